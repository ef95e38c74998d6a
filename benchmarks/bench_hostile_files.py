"""Files that lie, run through every reader: what each reader did with each, and how long.

Each case is a small session file that says something false or odd (a version it is
not, a parent after its child, a cycle, a link to no entry, usage as text, UTF-16...),
or a big one (a 10k-deep chain, 100k roots, a 100 MB line). Each runs in a child
process with a timeout, through: ``load``, its problems, the context at every leaf
(up to 300), ``to_messages``, the widget's columns, ``export_html``, every figure of
``prime_nb.plots``, ``load_corpus``, ``search`` with and without its index, and the
commands ``info``, ``validate``, ``ls``, ``grep``, ``export``, ``redact --dry-run``.

A line per case: each step ``ok`` or what it raised (``TIMEOUT`` if it hung), then the
problems reported (line:kind:severity). What passes: no step raised but ``load`` of a
file that is no session (with a one-line message), and each lie is a problem.

``--manifest``: the CPU seconds of a cached search of one file whose index manifest
holds a million hostile entries (well formed for paths that exist but are not listed,
or naming segments outside the index), against the same search with a clean manifest.
``--marks``: the CPU seconds and peak memory (VmHWM) of a folded search for a query with
an i, k or s (each non-ASCII line must be parsed) over 100 MB of non-ASCII text.

Usage: python benchmarks/bench_hostile_files.py [--only NAME,...] [--big] [--manifest] [--marks]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import session_entries
from machine import describe
from session_entries import SHORT_USAGE, compaction, lines

HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-05T10:00:00Z"}
STAMP = "2026-01-05T10:00:01.000Z"


user = functools.partial(session_entries.user, ms=None, stamp=STAMP)


def assistant(entry_id: str, parent: str | None, usage: Any = None) -> dict[str, Any]:
    """An assistant message as a provider writes it: short usage, the provider's name."""
    usage = SHORT_USAGE if usage is None else usage
    return session_entries.assistant(
        entry_id, parent, usage=usage, provider="anthropic", ms=None, stamp=STAMP
    )


def cases(big: bool) -> dict[str, bytes]:
    """Each case's bytes (the big ones only with ``big``)."""
    h, u, a = HEADER, user, assistant
    text = lines(h, u("u1", None), a("a1", "u1"))
    made = {
        "header claims v3, entries are v1": lines(
            h, {"type": "message", "message": {"role": "user", "content": "x"}}
        ),
        "header not first": lines(u("u1", None), h, a("a1", "u1")),
        "two headers": lines(h, u("u1", None), dict(h, id="s2", version=1), a("a1", "u1")),
        "header version 99": lines(dict(h, version=99), u("u1", None)),
        "header version -1": lines(dict(h, version=-1), u("u1", None)),
        "ids duplicated": lines(h, u("u1", None), a("u1", "u1"), u("u1", "u1")),
        "cycle a->b->a": lines(h, u("u1", "a1"), a("a1", "u1")),
        "self-parent": lines(h, u("u1", "u1"), a("a1", "u1")),
        "parent later in the file": lines(h, a("a1", "u1"), u("u1", None)),
        "parent in another file": lines(h, u("u1", "elsewhere")),
        "type missing or a number": lines(
            h, u("u1", None), {"id": "x", "parentId": "u1"}, {"type": 5, "id": "y"}
        ),
        "usage NaN and Infinity": lines(
            h,
            u("u1", None),
            b'{"type":"message","id":"a1","parentId":"u1","message":{"role":"assistant","content":[],"usage":{"input":NaN,"output":Infinity}}}',
        ),
        "usage huge, negative, text": lines(
            h,
            u("u1", None),
            a(
                "a1",
                "u1",
                {"input": 2**70, "output": -5, "cacheRead": "12", "cost": {"total": 1e308}},
            ),
        ),
        "usage a list, a string": lines(
            h, u("u1", None), a("a1", "u1", [1, 2]), a("a2", "a1", "lots")
        ),
        "timestamps year 99999, numbers": lines(
            h,
            dict(u("u1", None), timestamp="99999-01-01T00:00:00Z"),
            dict(a("a1", "u1"), timestamp=1e20),
        ),
        "BOM": b"\xef\xbb\xbf" + text,
        "UTF-16": text.decode().encode("utf-16"),
        "CRLF": text.replace(b"\n", b"\r\n"),
        "CR only": text.replace(b"\n", b"\r"),
        "NUL bytes in lines": lines(h, b"\x00" * 100, u("u1", None))
        + b'{"type":"message","id":"u2\x00"}\n',
        "lone surrogates": lines(
            h,
            b'{"type":"message","id":"\\ud800","parentId":null,"message":{"role":"user","content":"x\\udfffy"}}',
        ),
        "invalid UTF-8 mid-line": text.replace(b'"hi"', b'"h\xff\xfei"'),
        "truncated mid-line": text[:-20],
        "kept entry missing": lines(
            h, u("u1", None), a("a1", "u1"), compaction("c1", "a1", "gone"), u("u2", "c1")
        ),
        "kept entry later": lines(h, u("u1", None), compaction("c1", "u1", "u2"), u("u2", "c1")),
        "kept entry itself": lines(h, u("u1", None), compaction("c1", "u1", "c1"), u("u2", "c1")),
        "label on a missing target": lines(
            h,
            u("u1", None),
            {"type": "label", "id": "l1", "parentId": "u1", "targetId": "gone", "label": "x"},
        ),
        "JSON nested 100k deep": lines(
            h,
            b'{"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":'
            + b"[" * 100_000
            + b"]" * 100_000
            + b"}}",
        ),
        "empty": b"",
        "only NUL bytes": b"\x00" * 10_000,
        "a 1 MB key": lines(h, u("u1", None), b'{"' + b"k" * 1_000_000 + b'":1,"type":"x"}'),
        "1e6 keys in one object": lines(
            h,
            u("u1", None),
            json.dumps(
                {
                    "type": "custom",
                    "id": "c1",
                    "parentId": "u1",
                    "data": dict.fromkeys((f"k{i}" for i in range(1_000_000)), 1),
                }
            ).encode(),
        ),
        "a number of 1e6 digits": lines(
            h,
            b'{"type":"message","id":"a1","parentId":null,"message":{"role":"assistant",'
            b'"content":[],"usage":{"input":' + b"9" * 1_000_000 + b',"output":1}}}',
            b'{"type":"custom","id":"c1","parentId":"a1","data":{"n":' + b"7" * 1_000_000 + b"}}",
        ),
        "1e6 nested arrays": lines(
            h,
            b'{"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":'
            + b"[" * 1_000_000
            + b"]" * 1_000_000
            + b"}}",
        ),
        "Infinity and -Infinity": lines(
            h,
            u("u1", None),
            b'{"type":"message","id":"a1","parentId":"u1","timestamp":Infinity,"message":'
            b'{"role":"assistant","content":[],"timestamp":-Infinity,"usage":{"input":-Infinity,'
            b'"output":Infinity,"cost":{"total":-Infinity}}}}',
        ),
        "cwd and name as markup": lines(
            dict(h, cwd="<img src=x onerror=alert(1)>\x1b]0;t\x07"),
            {"type": "session_info", "id": "n1", "parentId": None, "name": "<script>x</script>"},
            u("u1", "n1"),
        ),
        "timestamps past future garbage": lines(
            dict(h, timestamp="0001-01-01T00:00:00Z"),
            dict(u("u1", None), timestamp="9999-12-31T23:59:59Z"),
            dict(a("a1", "u1"), timestamp="yesterday-ish"),
            dict(u("u2", "a1"), timestamp=-1e300),
            dict(a("a2", "u2"), timestamp="1677-09-21T00:12:43Z"),
            dict(u("u3", "a2"), timestamp=[1, 2]),
            dict(a("a3", "u3"), timestamp="2262-04-12T00:00:00Z"),
        ),
    }
    if big:
        chain = [u("e0", None)] + [u(f"e{i}", f"e{i - 1}") for i in range(1, 10_000)]
        made["10k-deep chain"] = lines(h, *chain)
        made["100k roots"] = lines(h, *(u(f"r{i}", None) for i in range(100_000)))
        huge = b'{"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":"'
        made["a 100 MB line, no newline"] = lines(h) + huge + b"x" * 100_000_000 + b'"}}'
    return made


def steps(path: str) -> dict[str, Callable[[], Any]]:
    """The readers a case goes through, in order (each after ``load``)."""
    import prime_nb
    from prime_nb import plots
    from prime_nb.cli import main
    from prime_nb.widget._data import SessionData

    held: dict[str, Any] = {}
    out = tempfile.mkdtemp()

    def load() -> int:
        held["s"] = prime_nb.load(path)
        return len(held["s"])

    def contexts() -> int:
        leaves = list(held["s"].leaves.index)[:300]
        return sum(len(held["s"].to_messages(leaf)) for leaf in leaves)

    def figures() -> int:
        names = [n for n in plots.__all__ if n != "escape_markup"]
        return sum(len(getattr(plots, n)(held["s"]).to_json()) for n in names)

    def cli(*args: str) -> Callable[[], Any]:
        def run() -> Any:
            with (
                contextlib.redirect_stdout(io.StringIO()),
                contextlib.redirect_stderr(io.StringIO()),
            ):
                code = main([*args, path])
            if code not in (0, 1, 2):
                raise RuntimeError(f"exit {code}")
            return code

        return run

    def search() -> int:
        plain = prime_nb.corpus.search([path], "x", workers=1)
        cached = prime_nb.corpus.search([path], "x", workers=1, cache=out)
        if len(plain) != len(cached):
            raise RuntimeError(f"{len(plain)} hits without the index, {len(cached)} with it")
        return len(plain)

    loaded: dict[str, Callable[[], Any]] = {
        "problems": lambda: len(held["s"].problems),
        "contexts": contexts,
        "widget": lambda: len(SessionData(held["s"]).columns()["parent"]),
        "export": lambda: prime_nb.export_html(held["s"], f"{out}/page.html"),
        "figures": figures,
    }
    return {
        "load": load,
        **{name: after_load(held, step) for name, step in loaded.items()},
        "corpus": lambda: len(prime_nb.corpus.load_corpus([path], workers=1, progress=False)),
        "search": search,
        "info": cli("info"),
        "validate": cli("validate"),
        "ls": cli("ls"),
        "grep": cli("grep", "x"),
        "cli export": cli("export", "-o", f"{out}/cli.html", "--force"),
        "redact": cli("redact", "--dry-run"),
    }


def after_load(held: dict[str, Any], step: Callable[[], Any]) -> Callable[[], Any]:
    """``step``, or nothing when the file did not load (``load`` says why)."""
    return lambda: step() if "s" in held else None


def child(path: str) -> None:
    """Every step on ``path``; one JSON line per step, then the problems."""
    warnings.simplefilter("ignore")
    for name, step in steps(path).items():
        start = time.perf_counter()
        try:
            step()
            said = "ok"
        except Exception as exc:
            said = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''}"
            if not isinstance(exc, OSError | ValueError) or name != "load":
                said += " | " + traceback.format_exc().splitlines()[-3].strip()[:120]
        print(json.dumps([name, said, time.perf_counter() - start]), flush=True)
    import prime_nb

    with contextlib.suppress(Exception):
        problems = prime_nb.load(path).problems
        shown = [f"{r.line}:{r.kind}:{r.severity}" for r in problems.head(6).itertuples()]
        print(json.dumps(["reported", " ".join(shown) or "nothing", 0.0]), flush=True)


def _peak_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as fh:
        held = dict(line.split(":", 1) for line in fh)
    return int(held["VmHWM"].split()[0]) / 1024


def manifest_child(kind: str) -> None:
    """A cached search after a million hostile manifest entries of ``kind``."""
    import prime_nb

    folder = Path(tempfile.mkdtemp())
    path = folder / "s.jsonl"
    path.write_bytes(lines(HEADER, user("u1", None, "a needle")))
    cache = folder / "cache"
    prime_nb.corpus.search([str(path)], "needle", workers=1, cache=cache)
    manifest = next(cache.glob("search-*")) / "manifest.json"
    held = json.loads(manifest.read_text(encoding="utf-8"))
    for k in range(1_000_000 if kind != "clean" else 0):
        spelt = folder.as_posix() + "".join("/./" if k >> b & 1 else "//" for b in range(20))
        spelt += "s.jsonl"  # the bits of k spell the same file a million ways
        if kind == "outside":
            held["files"][f"/gone/{k}.jsonl"] = [1, 2, 3, 4, "../x.arrow", None, None, ""]
        else:
            held["files"][spelt] = [1, 2, 3, 4, None, None, None, "00"]
    manifest.write_text(json.dumps(held), encoding="utf-8")
    size = manifest.stat().st_size / 1e6
    for run in ("first", "next"):
        start = time.process_time()
        hits = prime_nb.corpus.search([str(path)], "needle", workers=1, cache=cache)
        spent = time.process_time() - start
        print(f"manifest {kind} ({size:.0f} MB), {run} search: {spent:.2f} s CPU, {len(hits)} hit")


def marks_child(query: str) -> None:
    """A search of 100 MB of non-ASCII text (100 lines of 1 MB) for ``query``."""
    from prime_nb.corpus._search_match import Query, search_file

    folder = Path(tempfile.mkdtemp())
    path = folder / "s.jsonl"
    with open(path, "wb") as fh:
        fh.write(lines(HEADER))
        for k in range(100):
            text = "é" * 500_000 + " kiwi"
            fh.write(json.dumps(user(f"u{k}", None, text), ensure_ascii=False).encode() + b"\n")
    before = _peak_mb()
    with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
        fh.write("5")  # VmHWM from here
    start = time.process_time()
    found = search_file(str(path), Query(query))
    spent = time.process_time() - start
    print(
        f"marks {query!r}: {spent:.2f} s CPU, peak {_peak_mb():.0f} MB (before {before:.0f}),"
        f" {len(found.hits)} hits"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="comma-separated case names")
    parser.add_argument("--big", action="store_true", help="add the big cases")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--manifest", action="store_true", help="time hostile manifests")
    parser.add_argument("--marks", action="store_true", help="non-ASCII text's peak memory")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--manifest-child", help=argparse.SUPPRESS)
    parser.add_argument("--marks-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    if args.manifest_child:
        manifest_child(args.manifest_child)
        return
    if args.marks_child:
        marks_child(args.marks_child)
        return
    print(describe())
    if args.manifest or args.marks:
        runs = [("--manifest-child", kind) for kind in ("clean", "listed", "outside")]
        runs = runs * args.manifest + [("--marks-child", q) for q in ("ñkiwi", "kiwi")] * args.marks
        for flag, value in runs:
            subprocess.run([sys.executable, __file__, flag, value], check=True)
        return
    wanted = set(filter(None, args.only.split(",")))
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in cases(args.big).items():
            if wanted and name not in wanted:
                continue
            path = Path(tmp) / "case.jsonl"
            path.write_bytes(data)
            try:
                done = subprocess.run(
                    [sys.executable, __file__, "--child", str(path)],
                    capture_output=True,
                    text=True,
                    timeout=args.timeout,
                    check=False,
                )
                said = [
                    json.loads(line) for line in done.stdout.splitlines() if line.startswith("[")
                ]
                if done.returncode:
                    said.append(["process", f"exit {done.returncode}", 0.0])
            except subprocess.TimeoutExpired:
                said = [["process", "TIMEOUT", args.timeout]]
            raised = [
                f"{step} {what} ({s:.1f} s)"
                for step, what, s in said
                if what != "ok" and step != "reported"
            ]
            slowest = max((s for _, _, s in said), default=0.0)
            reported = next((what for step, what, _ in said if step == "reported"), "not loaded")
            ran = sum(step != "reported" for step, _, _ in said)
            print(f"{name}: {ran} steps, slowest {slowest:.1f} s; reported {reported}")
            for line in raised:
                print(f"    {line}")


if __name__ == "__main__":
    main()
