"""Fuzz what ``fuzz_sessions.py`` does not reach, for as long as asked: the corpus cache,
the search index's manifest and segments, ``redact`` and ``export_html`` on mutated
sessions, and the CLI on odd paths.

Usage: python benchmarks/fuzz_caches.py [--seconds 300] [--seed 0] [--only NAME] [--keep DIR]

Each case is one of:

- ``cache``: a corpus of three seed sessions read once with ``cache=``; then the cache
  file damaged (bytes flipped, cut, a cell of its Parquet set to an odd value, a row's
  JSON edited) and the corpus read again, with its tables.
- ``manifest``: a search with ``cache=``, then its ``manifest.json`` edited (a value set
  to an odd one at a random place) or cut, and the search run again: its hits must be
  the uncached search's.
- ``segment``: the same, a segment's cell set to an odd value and written back as a
  segment the index would take (its CRC-32 in its name, the manifest pointing at it).
- ``redact``: a seed session mutated as ``fuzz_sessions.py`` does, redacted to a new
  file, and that file exported as HTML.
- ``cli``: a CLI command run in-process on a path made of odd parts (a newline, an
  escape, a leading dash, bytes that are not UTF-8, a FIFO, a symlink loop, a folder
  named ``.jsonl``, a name of 255 bytes).

A case fails on an exception the API does not document, a traceback from the CLI, or a
call that does not return within ``--patience`` seconds. Prints the cases run per kind
and the failures (first line each); failing inputs are kept in --keep.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import time
import traceback
import warnings
import zlib
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.append(str(Path(__file__).resolve().parents[1]))  # the session generators
import pyarrow as pa
import pyarrow.parquet as pq
from cli_in_process import run_cli
from session_fuzz import MUTATIONS, ODD_VALUES, _paths, mutate, seeds

import prime_nb
from prime_nb.corpus import corpus_branches, corpus_compactions, load_corpus, search
from prime_nb.errors import SessionFormatError
from prime_nb.widget import export_html

#: what the API may raise for a case's input: a file that is no session
DOCUMENTED = (SessionFormatError,)


#: the places ``odd_json`` set in the current case (key paths)
EDITS: list[list[Any]] = []


class Hang(Exception):
    """A call ran past the patience."""


def _alarm(signum: int, frame: Any) -> None:
    raise Hang("no answer within the patience")


def odd_json(value: Any, rng: random.Random) -> Any:
    """``value`` (parsed JSON) with one place set to an odd value, or the whole of it."""
    places = _paths(value)
    if not places or rng.random() < 0.1:
        return rng.choice(ODD_VALUES)
    *parent_path, last = rng.choice(places)
    parent = value
    for step in parent_path:
        parent = parent[step]
    parent[last] = rng.choice([*ODD_VALUES, 1e190, -1e190, float("nan"), "../../etc/passwd"])
    EDITS.append([*parent_path, last])
    return value


def damage_bytes(file: Path, rng: random.Random) -> None:
    data = bytearray(file.read_bytes())
    how = rng.randrange(4)
    if how == 0 and data:
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    elif how == 1:
        del data[rng.randrange(len(data) + 1) :]
    elif how == 2:
        data += bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
    else:
        data = bytearray(json.dumps(rng.choice(ODD_VALUES)).encode())
    file.write_bytes(bytes(data))


def odd_cell(table: Any, rng: random.Random) -> Any:
    """``table`` with one cell set to an odd value of its column's type (a JSON cell
    edited as JSON)."""
    if table.num_rows == 0:
        return table
    k = rng.randrange(table.num_columns)
    field = table.schema.field(k)
    values = table.column(k).to_pylist()
    row = rng.randrange(len(values))
    kind = field.type
    if pa.types.is_integer(kind):
        bits = kind.bit_width
        low, high = (
            (0, 2**bits - 1)
            if pa.types.is_unsigned_integer(kind)
            else (
                -(2 ** (bits - 1)),
                2 ** (bits - 1) - 1,
            )
        )
        values[row] = rng.choice([low, high, 0, None, rng.randint(low, high)])
    elif pa.types.is_floating(kind):
        values[row] = rng.choice([1e190, -1e190, float("nan"), float("inf"), -0.0, None])
    elif pa.types.is_boolean(kind):
        values[row] = rng.choice([True, False, None])
    elif values[row] is not None and (pa.types.is_binary(kind) or pa.types.is_large_binary(kind)):
        try:
            values[row] = json.dumps(odd_json(json.loads(values[row]), rng)).encode()
        except ValueError:
            values[row] = rng.choice([b"", b"\xff" * 9, values[row][: len(values[row]) // 2]])
    elif pa.types.is_string(kind) or pa.types.is_large_string(kind):
        values[row] = rng.choice(
            [
                "",
                "\x00",
                "x" * 70_000,
                "\udcff".encode("utf-8", "surrogatepass").decode("utf-8", "replace"),
                None,
            ]
        )
    else:
        return table
    return table.set_column(k, field, pa.array(values, kind))


def corpus_folder(work: Path, rng: random.Random) -> Path:
    folder = work / "corpus"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    names = sorted(seeds())
    for n in range(3):
        (folder / f"s{n}.jsonl").write_bytes(seeds()[rng.choice(names)])
    return folder


def case_cache(work: Path, rng: random.Random) -> None:
    folder, cache = corpus_folder(work, rng), work / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    load_corpus(folder, cache=cache, workers=1, progress=False)
    (file,) = cache.glob("corpus-*.parquet")
    if rng.random() < 0.6:
        table = pq.read_table(file)
        for _ in range(rng.randint(1, 3)):
            table = odd_cell(table, rng)
        pq.write_table(table, file)
    else:
        damage_bytes(file, rng)
    load_corpus(folder, cache=cache, workers=1, progress=False)
    corpus_compactions(folder, cache=cache, workers=1, progress=False)
    corpus_branches(folder, cache=cache, workers=1, progress=False)


def _hits(folder: Path, cache: Path | bool) -> list[tuple[Any, ...]]:
    found = search(folder, "e", cache=cache, workers=1, progress=False)
    return sorted(tuple(map(repr, hit)) for hit in found.itertuples(index=False))


def _indexed(work: Path, rng: random.Random) -> tuple[Path, Path, list[Any], Path]:
    """A corpus, its search index's folder, the hits without the index, its manifest."""
    folder, cache = corpus_folder(work, rng), work / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    expected = _hits(folder, False)
    _hits(folder, cache)
    (manifest,) = cache.glob("search-*/manifest.json")
    return folder, cache, expected, manifest


def case_manifest(work: Path, rng: random.Random) -> None:
    folder, cache, expected, manifest = _indexed(work, rng)
    flipped = rng.random() < 0.2
    if flipped:
        damage_bytes(manifest, rng)
    else:
        manifest.write_text(json.dumps(odd_json(json.loads(manifest.read_text()), rng)))
    # an entry edited into another valid one (another session id, no segment) is taken
    # as written, as the corpus cache's records are: only the other files' hits must
    # match, and after flipped bytes (which may have made another session id) all but
    # their session ids
    edited = {repr(place[1]) for place in EDITS if len(place) > 2 and place[0] == "files"}

    def kept(hits: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
        return [(h[0], *h[2:]) if flipped else h for h in hits if h[0] not in edited]

    found, expected = kept(_hits(folder, cache)), kept(expected)
    assert found == expected, f"other hits than uncached after {EDITS}"


def case_segment(work: Path, rng: random.Random) -> None:
    folder, cache, expected, manifest = _indexed(work, rng)
    index = manifest.parent
    segments = sorted(index.glob("*.arrow"))
    if not segments:
        return
    old = rng.choice(segments)
    with pa.memory_map(str(old)) as source:
        table = pa.ipc.open_file(source).read_all()
    for _ in range(rng.randint(1, 3)):
        table = odd_cell(table, rng)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    data = sink.getvalue()
    name = f"{os.urandom(16).hex()}-{zlib.crc32(data):08x}.arrow"
    (index / name).write_bytes(data.to_pybytes())
    held = json.loads(manifest.read_text())
    for entry in held["files"].values():
        if entry[4] == old.name:
            entry[4] = name
    manifest.write_text(json.dumps(held))
    old.unlink()
    _hits(folder, cache)  # a forged segment's values may be wrong, never a crash
    shutil.rmtree(cache)
    assert _hits(folder, cache) == expected


def case_redact(work: Path, rng: random.Random) -> None:
    name = rng.choice(sorted(seeds()))
    ops = [
        (rng.randrange(len(MUTATIONS)), rng.randrange(10**6), rng.randrange(10**6))
        for _ in range(rng.randint(1, 6))
    ]
    path, dest = work / "case.jsonl", work / "redacted.jsonl"
    path.write_bytes(mutate(seeds()[name], ops, rng.random() < 0.2))
    dest.unlink(missing_ok=True)
    try:
        prime_nb.redact(path, dest)
        session = prime_nb.load(dest)
    except DOCUMENTED:
        return
    export_html(session, work / "page.html")


#: parts of the odd paths; a bytes part is not UTF-8
PARTS: list[str | bytes] = [
    "a\nb",
    "\x1b]0;t\x07",
    "-x",
    "--help",
    " ",
    "\u202e",
    "\u200b",
    "..",
    ".jsonl",
    b"\xff\xfe",
    "x" * 120,
    "é",
    "*",
    "[",
    "~",
]
COMMANDS = [
    ["info", "{p}"],
    ["validate", "{p}"],
    ["ls", "{p}"],
    ["grep", "e", "{p}"],
    ["redact", "{p}", "-o", "{w}/out.jsonl"],
    ["convert", "{p}", "--to", "atif", "-o", "{w}/o.json"],
    ["family", "{p}"],
    ["export", "{p}", "-o", "{w}/p.html", "--force"],
    ["repair", "{p}", "-o", "{w}/r.jsonl", "--force"],
    ["upgrade", "{p}"],
]


def odd_path(work: Path, rng: random.Random) -> Path:
    root = work / "paths"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    parts = [rng.choice(PARTS) for _ in range(rng.randint(1, 3))]
    raw = b"".join(p if isinstance(p, bytes) else p.encode() for p in parts)[:250]
    path = root / os.fsdecode(raw + b".jsonl")
    what = rng.randrange(7)
    if what == 0:
        path.write_bytes(seeds()[rng.choice(sorted(seeds()))])
    elif what == 1:
        os.mkfifo(path)
    elif what == 2:
        path.symlink_to(path)  # a loop
    elif what == 3:
        path.mkdir()
        (path / "in.jsonl").write_bytes(seeds()["clean"])
    elif what == 4:
        path.symlink_to("/dev/zero")
    elif what == 5:
        path.write_bytes(b"")
    return path  # 6: no such path


def case_cli(work: Path, rng: random.Random) -> None:
    path = odd_path(work, rng)
    command = rng.choice(COMMANDS)
    args = [part.format(p=path, w=work) for part in command]
    done = run_cli(*args)
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.returncode in (0, 1, 2), (done.returncode, done.stderr[-500:])


CASES: dict[str, Callable[[Path, random.Random], None]] = {
    "cache": case_cache,
    "manifest": case_manifest,
    "segment": case_segment,
    "redact": case_redact,
    "cli": case_cli,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="how long to run")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--only", choices=sorted(CASES), help="one kind of case")
    parser.add_argument("--patience", type=float, default=60.0, help="seconds a case may take")
    parser.add_argument("--keep", metavar="DIR", help="folder for failing cases")
    args = parser.parse_args()
    keep = Path(args.keep or tempfile.mkdtemp(prefix="fuzz-caches-"))
    keep.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    kinds = [args.only] if args.only else sorted(CASES)
    runs: Counter[str] = Counter()
    failures: Counter[str] = Counter()
    signal.signal(signal.SIGALRM, _alarm)
    end = time.monotonic() + args.seconds
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        while time.monotonic() < end:
            kind = rng.choice(kinds)
            state = rng.getstate()
            EDITS.clear()
            runs[kind] += 1
            signal.setitimer(signal.ITIMER_REAL, args.patience)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    CASES[kind](work, rng)
            except Exception as exc:
                first = (str(exc).splitlines() or [""])[0][:100]
                failures[f"{kind}: {type(exc).__name__}: {first}"] += 1
                n = sum(failures.values())
                found = keep / f"{kind}-{n:04d}"
                shutil.copytree(
                    work,
                    found,
                    symlinks=True,
                    ignore_dangling_symlinks=True,
                    ignore=shutil.ignore_patterns("paths"),
                )
                (found / "traceback.txt").write_text(traceback.format_exc())
                (found / "rng-state.json").write_text(json.dumps(state, default=list))
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
    print(
        f"seed {args.seed}, {args.seconds:.0f} s: "
        + ", ".join(f"{k} {v}" for k, v in sorted(runs.items()))
    )
    for what, count in failures.most_common():
        print(f"  {count:5d}  {what}")
    print(f"failing cases in {keep}" if failures else "no failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
