"""A damaged or hostile search index: no crash, no hang, nothing read outside it, and the
same hits as the search without the index.

Each cached search after the damage runs in a child process with a timeout: a SIGSEGV
fails the test (instead of killing pytest), and so does a hang.
"""

from __future__ import annotations

import json
import os
import pickle
import random
import re
import select
import signal
import subprocess
import sys
import textwrap
import warnings
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import header, msg, write_lines

from prime_nb.corpus import search
from prime_nb.corpus._search_manifest import load_manifest
from prime_nb.corpus._search_segment import DamagedSegment, open_segment

REPO = Path(__file__).resolve().parents[2]
QUERY = "rm -rf"
#: a child that takes longer than this hangs (a FIFO read, /dev/zero)
TIMEOUT = 60


def corpus(folder: Path) -> list[Path]:
    """Three sessions holding the query in texts, tool output, a NUL text (kept as bytes)
    and non-ASCII text."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for k in range(3):
        lines = [
            header(id=f"s{k}"),
            msg("u1", None, "user", f"session {k}: please rm -rf build/ now", 1),
            msg("a1", "u1", "assistant", f"ok, é rm -rf the build {k}", 2),
            msg("t1", "a1", "toolResult", f"removed\x00 by rm -rf {k}", 3),
            msg("a2", "t1", "assistant", "done " * 50 + "rm -rf again " * 3, 4),
        ]
        write_lines(folder / f"s{k}.jsonl", lines)
        paths.append(folder / f"s{k}.jsonl")
    return paths


def plain(folder: Path, **kwargs: Any) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return search(folder, QUERY, workers=1, **kwargs)


WORKER = textwrap.dedent(
    """
    import ctypes, json, os, pickle, sys, traceback, warnings
    from prime_nb.corpus import search
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # whatever the search prints goes to stderr, not into the answers
    for line in sys.stdin:
        target, query, cache, out, kwargs, crash = pickle.loads(bytes.fromhex(line))
        try:
            if crash:
                ctypes.string_at(0)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                hits = search(target, query, workers=1, cache=cache, **kwargs)
            with open(out, "wb") as fh:
                pickle.dump(hits, fh)
            answer = {"ok": True, "warnings": [str(w.message) for w in caught]}
        except BaseException:
            answer = {"ok": False, "error": traceback.format_exc()}
        answers.write(json.dumps(answer) + "\\n")
        answers.flush()
    """
)


class Child:
    """One child process that runs the module's cached searches one after another (its
    imports paid once). A case that kills it (a SIGSEGV), raises or hangs fails, named
    by its test; the next case starts a new child."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.process: subprocess.Popen[bytes] | None = None
        self.started = 0

    def _start(self) -> subprocess.Popen[bytes]:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
        self.started += 1
        self.stderr = self.folder / f"stderr-{self.started}.txt"
        with open(self.stderr, "wb") as err:
            return subprocess.Popen(
                [sys.executable, "-c", WORKER],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                env=env,
            )

    def run(self, target: Any, cache: Any, out: Path, crash: bool = False, **kwargs: Any) -> Any:
        """The child's answer to one search: its warnings (the hits pickled in ``out``)."""
        if self.process is None or self.process.poll() is not None:
            self.process = self._start()
        process = self.process
        assert process.stdin is not None and process.stdout is not None
        request = pickle.dumps((target, QUERY, cache, out, kwargs, crash)).hex()
        process.stdin.write(request.encode() + b"\n")
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout], [], [], TIMEOUT)
        if not ready:
            self.stop()
            pytest.fail(f"the cached search hung for {TIMEOUT} s")
        line = process.stdout.readline()
        if not line:
            code = process.wait(TIMEOUT)
            self.process = None
            pytest.fail(f"exit {code}: {self.stderr.read_text('utf-8', 'replace')[-3000:]}")
        answer: dict[str, Any] = json.loads(line)
        assert answer["ok"], answer["error"]
        return answer["warnings"]

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


@pytest.fixture(scope="module")
def child(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Child]:
    runner = Child(tmp_path_factory.mktemp("child"))
    try:
        yield runner
    finally:
        if runner.process is not None and runner.process.stdin is not None:
            runner.process.stdin.close()
            runner.process.wait(TIMEOUT)


def cached_in_child(
    child: Child, target: Any, cache: Path, tmp_path: Path, **kwargs: Any
) -> pd.DataFrame:
    """The cached search in the child process: its hits, or a failed test if it crashed,
    raised or hung."""
    out = tmp_path / "hits.pickle"
    child.run(target, cache, out, **kwargs)
    with open(out, "rb") as fh:
        hits: pd.DataFrame = pickle.load(fh)
    return hits


def test_a_child_that_crashes_fails_its_case_and_the_next_runs(
    child: Child, tmp_path: Path
) -> None:
    """A SIGSEGV in the child fails the test that asked (not pytest), and the next
    search runs in a new child."""
    folder, cache = tmp_path / "corpus", tmp_path / "cache"
    corpus(folder)
    with pytest.raises(pytest.fail.Exception, match=rf"^exit -{signal.SIGSEGV}: "):
        child.run(folder, cache, tmp_path / "hits.pickle", crash=True)
    pd.testing.assert_frame_equal(cached_in_child(child, folder, cache, tmp_path), plain(folder))


@pytest.fixture
def indexed(tmp_path: Path) -> tuple[Path, Path, Path, pd.DataFrame]:
    """A corpus, its index (built in this process) and the hits without it."""
    folder, cache = tmp_path / "corpus", tmp_path / "cache"
    corpus(folder)
    want = plain(folder)
    assert len(want) == 12
    pd.testing.assert_frame_equal(plain(folder, cache=cache), want)
    return folder, cache, next(cache.glob("search-corpus-*")), want


# -- damage to a segment's bytes -----------------------------------------------------------


def _where(data: bytes, column: str, buffer: int) -> int:
    """The byte offset in a segment file of one buffer of one column."""
    whole = pa.py_buffer(data)
    batch = pa.ipc.open_file(pa.BufferReader(whole)).get_batch(0)
    held = batch.column(batch.schema.get_field_index(column)).buffers()[buffer]
    assert held is not None
    return int(held.address - whole.address)


def _poke(dtype: Any, column: str, row: int, value: int) -> Callable[[bytearray], None]:
    """Set one value of a column's offsets (or data) buffer."""

    def damage(data: bytearray) -> None:
        at = _where(bytes(data), column, 1) + row * np.dtype(dtype).itemsize
        data[at : at + np.dtype(dtype).itemsize] = np.array([value], dtype).tobytes()

    return damage


def _swap_offsets(data: bytearray) -> None:
    """Two text offsets swapped: no longer monotonic, each still inside the data."""
    at = _where(bytes(data), "text", 1)
    offsets = np.frombuffer(bytes(data[at : at + 8 * 6]), np.int64).copy()
    offsets[[2, 4]] = offsets[[4, 2]]
    data[at : at + 8 * 6] = offsets.tobytes()


def _flip(seed: int) -> Callable[[bytearray], None]:
    def damage(data: bytearray) -> None:
        rng = random.Random(seed)
        for _ in range(64):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)

    return damage


def _truncate(data: bytearray) -> None:
    del data[len(data) // 2 :]


def _footer(data: bytearray) -> None:
    for k in range(len(data) - 200, len(data) - 10):
        data[k] = 0xFF


BYTE_DAMAGE: dict[str, Callable[[bytearray], None]] = {
    "text offset past the data": _poke(np.int64, "text", 3, 1 << 40),
    "text offset negative": _poke(np.int64, "text", 3, -(1 << 20)),
    "text offsets out of order": _swap_offsets,
    "last text offset past the data": _poke(np.int64, "text", 12, 1 << 33),
    "bytes offset past the data": _poke(np.int64, "odd", 1, 1 << 36),
    "string offset past the data": _poke(np.int32, "entry_id", 2, 1 << 30),
    "file number past the files": _poke(np.int32, "file", 0, 9999),
    "file number negative": _poke(np.int32, "file", 0, -2),
    "bits flipped (seed 1)": _flip(1),
    "bits flipped (seed 2)": _flip(2),
    "bits flipped (seed 3)": _flip(3),
    "cut in half": _truncate,
    "footer overwritten": _footer,
}


def forge(index: Path, segment: Path, data: bytes) -> Path:
    """``data`` in place of ``segment`` under a name of its CRC-32, the manifest pointing
    at it: what the checksum cannot catch, so that the checks behind it are tried."""
    name = f"{'e' * 32}-{zlib.crc32(data):08x}.arrow"
    (index / name).write_bytes(data)
    segment.unlink()
    manifest = index / "manifest.json"
    held = json.loads(manifest.read_text(encoding="utf-8"))
    for entry in held["files"].values():
        if entry[4] == segment.name:
            entry[4] = name
    manifest.write_text(json.dumps(held), encoding="utf-8")
    return index / name


@pytest.mark.parametrize("forged", [False, True], ids=["damaged", "forged"])
@pytest.mark.parametrize("damage", list(BYTE_DAMAGE))
def test_a_damaged_segment_never_crashes_and_gives_the_same_hits(
    child: Child,
    indexed: tuple[Path, Path, Path, pd.DataFrame],
    tmp_path: Path,
    damage: str,
    forged: bool,
) -> None:
    """Damaged in place (its CRC-32 says so), or made to match its name's CRC-32 (the
    structural checks must catch it): either way read again, never a crash."""
    folder, cache, index, want = indexed
    segment = next(index.glob("*.arrow"))
    data = bytearray(segment.read_bytes())
    BYTE_DAMAGE[damage](data)
    if forged:
        segment = forge(index, segment, bytes(data))
    else:
        segment.write_bytes(bytes(data))
    got = cached_in_child(child, folder, cache, tmp_path)
    pd.testing.assert_frame_equal(got, want)
    assert not segment.exists()  # read again into a new segment, the damaged one deleted


def _written(table: pa.Table, batches: int = 1) -> bytes:
    """``table`` as Arrow itself writes an IPC file, in ``batches`` record batches."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, table.schema) as writer:
        for part in np.array_split(np.arange(len(table)), batches):
            writer.write_table(table.take(part))
    return bytes(sink.getvalue())


def _held(segment: Path) -> pa.Table:
    """A segment's table, copied (a view on the mapped file would die as it is rewritten)."""
    return pa.ipc.open_file(pa.py_buffer(segment.read_bytes())).read_all()


def _null_active(table: pa.Table) -> pa.Table:
    k = table.schema.get_field_index("active")
    values = [None, *table["active"].to_pylist()[1:]]
    return table.set_column(k, "active", pa.array(values, pa.bool_()))


def _string_text(table: pa.Table) -> pa.Table:
    k = table.schema.get_field_index("text")
    return table.set_column(k, "text", table["text"].cast(pa.string()))


def _undecodable_bytes(table: pa.Table) -> pa.Table:
    k = table.schema.get_field_index("odd")
    values = [None if raw is None else b"\xff\xfe" + raw for raw in table["odd"].to_pylist()]
    assert any(values)
    return table.set_column(k, "odd", pa.array(values, pa.large_binary()))


def _files(value: Any) -> Callable[[pa.Table], pa.Table]:
    return lambda table: table.replace_schema_metadata({"files": json.dumps(value)})


WRITTEN_DAMAGE: dict[str, tuple[Callable[[pa.Table], pa.Table], int]] = {
    "two batches": (lambda table: table, 2),
    "a null where none is written": (_null_active, 1),
    "text as string, not large_string": (_string_text, 1),
    "a column dropped": (lambda table: table.drop_columns(["odd"]), 1),
    "texts kept as bytes that are no UTF-8": (_undecodable_bytes, 1),
    "files metadata not a list": (_files({"a": 1}), 1),
    "files metadata missing": (lambda table: table.replace_schema_metadata({}), 1),
    "files metadata too short": (_files([]), 1),
}


@pytest.mark.parametrize("damage", list(WRITTEN_DAMAGE))
def test_a_segment_of_other_columns_or_files_is_read_again(
    child: Child, indexed: tuple[Path, Path, Path, pd.DataFrame], tmp_path: Path, damage: str
) -> None:
    folder, cache, index, want = indexed
    segment = next(index.glob("*.arrow"))
    change, batches = WRITTEN_DAMAGE[damage]
    segment = forge(index, segment, _written(change(_held(segment)), batches))
    with pytest.raises(DamagedSegment, match=rf"^{re.escape(segment.name)}: (?!its bytes)"):
        open_segment(index, segment.name)
    pd.testing.assert_frame_equal(cached_in_child(child, folder, cache, tmp_path), want)


def test_a_forged_segment_of_far_off_times_gives_them_as_missing(
    child: Child, indexed: tuple[Path, Path, Path, pd.DataFrame], tmp_path: Path
) -> None:
    """A valid segment whose times no datetime holds (what the random forgeries found: a
    float of 1e190 failed the whole search): the same hits, each time NaT."""
    folder, cache, index, want = indexed
    segment = next(index.glob("*.arrow"))
    table = _held(segment)
    far = [1e190, -1e300, float("inf"), float("-inf"), 9.3e15, float("nan")]
    times = pa.array([far[k % len(far)] for k in range(len(table))], pa.float64())
    k = table.schema.get_field_index("time_ms")
    forge(index, segment, _written(table.set_column(k, "time_ms", times)))
    got = cached_in_child(child, folder, cache, tmp_path)
    assert got["timestamp"].isna().all()
    pd.testing.assert_frame_equal(got.drop(columns="timestamp"), want.drop(columns="timestamp"))
    assert got["timestamp"].dtype == want["timestamp"].dtype


@pytest.mark.parametrize("kind", ["fifo", "folder", "symlink", "empty"])
def test_a_segment_that_is_no_regular_file_is_read_again(
    child: Child, indexed: tuple[Path, Path, Path, pd.DataFrame], tmp_path: Path, kind: str
) -> None:
    folder, cache, index, want = indexed
    segment = next(index.glob("*.arrow"))
    elsewhere = tmp_path / "elsewhere.arrow"
    elsewhere.write_bytes(segment.read_bytes())
    segment.unlink()
    if kind == "fifo":
        os.mkfifo(segment)
    elif kind == "folder":
        segment.mkdir()
    elif kind == "symlink":  # the same bytes, but outside the index: not followed
        segment.symlink_to(elsewhere)
    else:
        segment.touch()
    with pytest.raises(DamagedSegment, match=rf"^{re.escape(segment.name)}: "):
        open_segment(index, segment.name)
    pd.testing.assert_frame_equal(cached_in_child(child, folder, cache, tmp_path), want)


# -- damage to the manifest ----------------------------------------------------------------


def _forged(tmp_path: Path, index: Path) -> Path:
    """A valid segment outside the index whose rows claim a hit in every file."""
    segment = next(index.glob("*.arrow"))
    table = _held(segment)
    k = table.schema.get_field_index("text")
    forged = pa.array(["FORGED rm -rf"] * len(table), pa.large_string())
    data = _written(table.set_column(k, "text", forged))
    outside = tmp_path / "outside" / f"{'d' * 32}-{zlib.crc32(data):08x}.arrow"
    outside.parent.mkdir()
    outside.write_bytes(data)
    return outside


def _point_at(index: Path, segment: Any) -> None:
    manifest = index / "manifest.json"
    held = json.loads(manifest.read_text(encoding="utf-8"))
    for entry in held["files"].values():
        if entry[4] is not None:
            entry[4] = segment
    manifest.write_text(json.dumps(held), encoding="utf-8")


@pytest.mark.parametrize("name", ["relative", "absolute", "numeric", "list", "empty", "dot"])
def test_a_manifest_segment_name_outside_the_index_is_never_read(
    child: Child, indexed: tuple[Path, Path, Path, pd.DataFrame], tmp_path: Path, name: str
) -> None:
    folder, cache, index, want = indexed
    outside = _forged(tmp_path, index)
    segment = {
        "relative": os.path.relpath(outside, index),
        "absolute": str(outside),
        "numeric": 42,
        "list": [str(outside)],
        "empty": "",
        "dot": ".",
    }[name]
    _point_at(index, segment)
    assert all(entry[4] is None or "/" not in entry[4] for entry in load_manifest(index).values())
    got = cached_in_child(child, folder, cache, tmp_path)
    assert not got["snippet"].str.contains("FORGED").any()
    pd.testing.assert_frame_equal(got, want)


def _entries(change: Callable[[list[Any]], Any]) -> Callable[[Path], None]:
    def damage(manifest: Path) -> None:
        held = json.loads(manifest.read_text(encoding="utf-8"))
        held["files"] = {path: change(entry) for path, entry in held["files"].items()}
        manifest.write_text(json.dumps(held), encoding="utf-8")

    return damage


def _files_a_list(manifest: Path) -> None:
    held = json.loads(manifest.read_text(encoding="utf-8"))
    manifest.write_text(json.dumps({**held, "files": [1]}), encoding="utf-8")


def _fifo(manifest: Path) -> None:
    manifest.unlink()
    os.mkfifo(manifest)


MANIFEST_DAMAGE: dict[str, Callable[[Path], object]] = {
    "not JSON": lambda manifest: manifest.write_bytes(b"{\x00nope"),
    "a JSON list": lambda manifest: manifest.write_text("[1, 2]", encoding="utf-8"),
    "files a list": _files_a_list,
    "entries not lists": _entries(lambda entry: "x"),
    "entries too short": _entries(lambda entry: entry[:5]),
    "sizes as text": _entries(lambda entry: [str(entry[0]), *entry[1:]]),
    "sizes negative": _entries(lambda entry: [-1, *entry[1:]]),
    "ends not text": _entries(lambda entry: [*entry[:7], 5]),
    "a FIFO": _fifo,
    "nested past the stack": lambda manifest: manifest.write_text("[" * 10**5 + "]" * 10**5),
}


@pytest.mark.parametrize("damage", list(MANIFEST_DAMAGE))
def test_a_damaged_manifest_is_rebuilt(
    child: Child, indexed: tuple[Path, Path, Path, pd.DataFrame], tmp_path: Path, damage: str
) -> None:
    folder, cache, index, want = indexed
    MANIFEST_DAMAGE[damage](index / "manifest.json")
    pd.testing.assert_frame_equal(cached_in_child(child, folder, cache, tmp_path), want)
    assert (index / "manifest.json").is_file()


def test_a_folder_where_the_manifest_goes_is_a_warning(
    indexed: tuple[Path, Path, Path, pd.DataFrame],
) -> None:
    """The index cannot be saved: the hits are complete all the same, and a warning says
    why (the corpus cache does the same on a full disk)."""
    folder, cache, index, want = indexed
    (index / "manifest.json").unlink()
    (index / "manifest.json").mkdir()
    with pytest.warns(UserWarning, match=r"search index was not updated \(Is a directory\)"):
        got = search(folder, QUERY, workers=1, cache=cache)
    pd.testing.assert_frame_equal(got, want)


def test_a_lock_file_that_is_a_link_is_not_followed(
    child: Child, indexed: tuple[Path, Path, Path, pd.DataFrame], tmp_path: Path
) -> None:
    """A link where the lock goes is removed, its target left as it was; a folder there
    is one line that says what to do."""
    folder, cache, index, want = indexed
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    (index / "index.lock").unlink(missing_ok=True)
    (index / "index.lock").symlink_to(victim)
    pd.testing.assert_frame_equal(cached_in_child(child, folder, cache, tmp_path), want)
    assert victim.read_text(encoding="utf-8") == "keep me"
    (index / "index.lock").unlink(missing_ok=True)
    (index / "index.lock").mkdir()
    with pytest.raises(OSError, match=r"index\.lock: cannot lock the search index \("):
        search(folder, QUERY, workers=1, cache=cache)


def test_a_manifest_symlinked_from_outside_is_not_followed(
    child: Child, indexed: tuple[Path, Path, Path, pd.DataFrame], tmp_path: Path
) -> None:
    """A manifest outside the index, naming a forged segment placed in the index by name:
    the link is not followed, so the forged rows are never read."""
    folder, cache, index, want = indexed
    outside = _forged(tmp_path, index)
    name = outside.name  # a name the index could give, of the forged bytes' CRC-32
    held = json.loads((index / "manifest.json").read_text(encoding="utf-8"))
    for entry in held["files"].values():
        entry[4] = name
    elsewhere = tmp_path / "outside" / "manifest.json"
    elsewhere.write_text(json.dumps(held), encoding="utf-8")
    (index / "manifest.json").unlink()
    (index / "manifest.json").symlink_to(elsewhere)
    (index / name).write_bytes(outside.read_bytes())
    assert load_manifest(index) == {}
    got = cached_in_child(child, folder, cache, tmp_path)
    assert not got["snippet"].str.contains("FORGED").any()
    pd.testing.assert_frame_equal(got, want)


# -- the files searched --------------------------------------------------------------------


def test_a_same_size_rewrite_with_the_mtime_put_back_is_read_again(
    child: Child, indexed: tuple[Path, Path, Path, pd.DataFrame], tmp_path: Path
) -> None:
    folder, cache, _, _ = indexed
    path = folder / "s1.jsonl"
    before = path.stat()
    data = path.read_bytes()
    path.write_bytes(data.replace(b"rm -rf build/", b"ls -la build/"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    assert path.stat().st_mtime_ns == before.st_mtime_ns
    want = plain(folder)
    assert len(want) == 11
    pd.testing.assert_frame_equal(cached_in_child(child, folder, cache, tmp_path), want)


@pytest.mark.parametrize("cached", [False, True], ids=["plain", "cached"])
@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_listed_path_that_is_no_regular_file_is_refused(
    child: Child, tmp_path: Path, cached: bool, kind: str
) -> None:
    """A FIFO (which a plain open waits on forever) or /dev/zero (which never ends) gives
    no hits and one warning, at once."""
    folder = tmp_path / "corpus"
    paths = corpus(folder)
    odd = tmp_path / "pipe.jsonl"
    if kind == "fifo":
        os.mkfifo(odd)
    else:
        odd = Path("/dev/zero")
    cache = tmp_path / "cache" if cached else False
    caught = child.run([paths[0], odd], cache, tmp_path / "hits.pickle")
    message = "|".join(caught)
    count = len(pd.read_pickle(tmp_path / "hits.pickle"))
    assert int(count) == 4
    assert f"{odd}: " in message and "not a regular file" in message


FUZZ = """
import json, random, sys, warnings, zlib
from pathlib import Path
import pandas as pd
from prime_nb.corpus import search

folder, cache, rounds, forged = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
warnings.simplefilter("ignore")
want = search(folder, "rm -rf", workers=1)
index = next(cache.glob("search-corpus-*"))
pristine = next(index.glob("*.arrow")).read_bytes()
rng = random.Random(0)
for k in range(rounds):
    damaged = bytearray(pristine)
    for _ in range(rng.randrange(1, 9)):
        at = rng.randrange(len(damaged))
        damaged[at] = rng.randrange(256)
    segment = next(index.glob("*.arrow"))
    if forged == "forged":  # under its CRC-32's name: the structural checks must hold
        name = f"{k:032x}-{zlib.crc32(damaged):08x}.arrow"
        (index / name).write_bytes(bytes(damaged))
        segment.unlink()
        manifest = json.loads((index / "manifest.json").read_text())
        for entry in manifest["files"].values():
            entry[4] = name if entry[4] == segment.name else entry[4]
        (index / "manifest.json").write_text(json.dumps(manifest))
        search(folder, "rm -rf", workers=1, cache=cache)  # any hits, but no crash
    else:
        segment.write_bytes(bytes(damaged))
        got = search(folder, "rm -rf", workers=1, cache=cache)
        pd.testing.assert_frame_equal(got, want)
print(rounds)
"""


@pytest.mark.parametrize("forged", ["damaged", "forged"])
def test_random_damage_never_crashes(
    indexed: tuple[Path, Path, Path, pd.DataFrame], tmp_path: Path, forged: str
) -> None:
    """Random bytes of the segment overwritten, 150 times over, each searched through the
    index in one child: it never crashes; a damaged segment (its CRC-32 says so) gives
    the same hits as the plain search. A forged one (renamed to its CRC-32) may give
    other hits when the bytes it changed leave a valid segment, but never a crash."""
    folder, cache, _, _ = indexed
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    done = subprocess.run(
        [sys.executable, "-c", FUZZ, str(folder), str(cache), "150", forged],
        capture_output=True,
        text=True,
        env=env,
        timeout=TIMEOUT * 5,
        check=False,
    )
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-3000:]}"
    assert done.stdout.split() == ["150"]


# -- the index's own folder, and a disk that fills up ----------------------------------------


def _victim(tmp_path: Path) -> Path:
    """A folder of the user's that looks like an index: a segment-named file, a manifest."""
    victim = tmp_path / "mine"
    victim.mkdir()
    (victim / "precious.arrow").write_text("keep me", encoding="utf-8")
    (victim / "manifest.json").write_text("{}", encoding="utf-8")
    return victim


@pytest.mark.parametrize("what", ["a link to a folder", "a file", "a FIFO"])
def test_something_else_where_the_index_folder_goes_is_replaced(
    child: Child, indexed: tuple[Path, Path, Path, pd.DataFrame], tmp_path: Path, what: str
) -> None:
    """The index deletes the segments its manifest does not name and rewrites its
    manifest: through a link it would do so in a folder of the user's. A link, file or
    FIFO in its place is removed (never followed), and the index made anew there."""
    folder, cache, index, want = indexed
    victim = _victim(tmp_path)
    for part in index.iterdir():
        part.unlink()
    index.rmdir()
    if what == "a link to a folder":
        index.symlink_to(victim, target_is_directory=True)
    elif what == "a file":
        index.write_text("x", encoding="utf-8")
    else:
        os.mkfifo(index)
    pd.testing.assert_frame_equal(cached_in_child(child, folder, cache, tmp_path), want)
    assert index.is_dir() and not index.is_symlink()
    assert sorted(p.name for p in victim.iterdir()) == ["manifest.json", "precious.arrow"]
    assert (victim / "precious.arrow").read_text(encoding="utf-8") == "keep me"
    assert (victim / "manifest.json").read_text(encoding="utf-8") == "{}"


FULL_DISK = """
import pickle, resource, signal, sys, warnings
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
resource.setrlimit(resource.RLIMIT_FSIZE, (512, hard))
from prime_nb.corpus import search
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    hits = search(sys.argv[1], "rm -rf", workers=int(sys.argv[3]), cache=sys.argv[2])
resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
with open(sys.argv[4], "wb") as fh:
    pickle.dump((hits, [str(w.message) for w in caught]), fh)
"""


@pytest.mark.parametrize("workers", [1, 2])
def test_a_segment_the_disk_cannot_hold_leaves_the_hits_complete(
    tmp_path: Path, workers: int
) -> None:
    """A segment that cannot be written (here a file size limit, as a full disk): the
    hits are those of the search without the index and a warning says why; nothing of it
    is recorded, so the next search indexes those files and finds the same hits."""
    folder, cache = tmp_path / "corpus", tmp_path / "cache"
    corpus(folder)
    want = plain(folder)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    out = tmp_path / "hits.pickle"
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK, str(folder), str(cache), str(workers), str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    with open(out, "rb") as fh:
        got, said = pickle.load(fh)
    pd.testing.assert_frame_equal(got, want)
    assert any(re.search(r"search index was not updated \(File too large\)", w) for w in said)
    assert not any("could not be read as sessions" in w for w in said)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pd.testing.assert_frame_equal(search(folder, QUERY, workers=1, cache=cache), want)
