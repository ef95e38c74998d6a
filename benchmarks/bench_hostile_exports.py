"""Hostile sessions through every export and output: what each did with each.

Each attack is a small session file (or a big one: a 1e5-deep chain, 1 MB fields) with
something an export must survive: markup and control characters in every text field,
ids that collide or are not strings, parentId cycles, timestamps out of range or garbage,
negative, NaN and huge usage, non-UTF-8 bytes, lone surrogates, an entry cut over two
lines and two entries on one line. Each runs in a child process with a timeout, through:
``to_atif`` (checked by ATIF's own models), ``to_scout`` (an Inspect Scout database),
``to_otel`` (an OTLP file, parsed back by OpenTelemetry's protobuf), ``from_sessions``
(an Arrow table, validated in full), ``export_html`` (no raw ``</script`` or session
markup outside the page's data), and the commands ``info``, ``validate``, ``export``,
``convert`` (no escape sequence on the terminal).

A line per attack: each step ``ok``, or what broke: a raised exception, ``TIMEOUT``,
``INVALID`` (the reading package rejected the file), ``MARKUP`` or ``ESCAPE``.

Usage: python benchmarks/bench_hostile_exports.py [--only NAME,...] [--timeout S]
"""

from __future__ import annotations

import argparse
import contextlib
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
from machine import describe
from session_entries import T0, assistant, head, tool_pair, user

MARKUP = "<script>alert(1)</script><img src=x onerror=alert(2)>\x1b]0;pwned\x07\x1b[2J\u202e"
#: CPU seconds past which a step is reported as slow
SLOW = 10.0


def line(obj: Any) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def markup_everywhere() -> bytes:
    m = MARKUP
    entries = [
        head(cwd=m),
        user("u1", None, m),
        assistant("a1", "u1", m, provider=m, model=m, stop=m),
        *tool_pair("a1", m, {m: m}, m),
        {"type": "session_info", "id": "n1", "parentId": "tr", "timestamp": T0, "name": m},
        {
            "type": "thinking_level_change",
            "id": "k1",
            "parentId": "n1",
            "timestamp": T0,
            "thinkingLevel": m,
        },
        {
            "type": "model_change",
            "id": "mc",
            "parentId": "k1",
            "timestamp": T0,
            "provider": m,
            "modelId": m,
        },
        {
            "type": "label",
            "id": "l1",
            "parentId": "mc",
            "timestamp": T0,
            "targetId": "u1",
            "label": m,
        },
        {
            "type": "custom_message",
            "id": "cm",
            "parentId": "l1",
            "timestamp": T0,
            "customType": m,
            "content": m,
            "display": True,
        },
        {
            "type": "compaction",
            "id": "c1",
            "parentId": "cm",
            "timestamp": T0,
            "summary": m,
            "firstKeptEntryId": "u1",
            "tokensBefore": 100,
        },
        user(m, "c1", m),
        assistant("a9", m, m),
    ]
    return b"".join(map(line, entries))


def megabyte_fields() -> bytes:
    big = "x<b>" * 250_000
    return b"".join(
        map(
            line,
            [
                head(),
                user("u1", None, big),
                assistant("a1", "u1", big, model=big, provider=big),
                *tool_pair("a1", big, {"k": big}, big),
                {
                    "type": "session_info",
                    "id": "n1",
                    "parentId": "tr",
                    "timestamp": T0,
                    "name": big,
                },
            ],
        )
    )


def deep_chain() -> bytes:
    """A chain of ``--depth`` entries, user and assistant in turn."""
    depth = DEPTH[0]
    parts = [line(head())]
    parent = None
    for k in range(depth):
        entry = user(f"u{k}", parent) if k % 2 == 0 else assistant(f"a{k}", parent)
        parent = entry["id"]
        parts.append(line(entry))
    return b"".join(parts)


def colliding_ids() -> bytes:
    return b"".join(
        map(
            line,
            [head(), user("x", None), assistant("x", "x"), user("x", "x"), assistant("y", "x")],
        )
    )


def ids_not_strings() -> bytes:
    return b"".join(
        map(
            line,
            [
                head(id=7),
                user(1, None),
                assistant(2.5, 1),
                user(["l"], 2.5),
                assistant({"d": 1}, ["l"]),
                user(None, {"d": 1}),
                assistant(True, None),
            ],
        )
    )


def parent_cycles() -> bytes:
    return b"".join(
        map(
            line,
            [
                head(),
                user("u1", "a2"),
                assistant("a1", "u1"),
                user("u2", "a1"),
                assistant("a2", "u2"),
                user("s", "s"),
                assistant("z", "s"),
            ],
        )
    )


def bad_timestamps() -> bytes:
    entries = [
        head(timestamp="garbage"),
        user("u1", None),
        assistant("a1", "u1"),
        user("u2", "a1"),
        assistant("a2", "u2"),
        user("u3", "a2"),
        assistant("a3", "u3"),
    ]
    for entry, value in zip(
        entries[1:],
        ["99999-01-01T00:00:00Z", -1e20, 1e300, "NaN", "0000-00-00", [1], {"t": 1}],
        strict=False,
    ):
        entry["timestamp"] = value
        entry["message"]["timestamp"] = value
    return b"".join(map(line, entries))


def odd_usage() -> bytes:
    values = [-5, float("nan"), 1e308, float("inf"), "12", 10**30, None]
    entries: list[dict[str, Any]] = [head(), user("u1", None)]
    parent = "u1"
    for k, value in enumerate(values):
        usage = {
            "input": value,
            "output": value,
            "cacheRead": value,
            "cacheWrite": value,
            "totalTokens": value,
            "cost": {"total": value, "input": value},
        }
        entries.append(assistant(f"a{k}", parent, usage=usage))
        entries.append(user(f"u{k + 2}", f"a{k}"))
        parent = f"u{k + 2}"
    text = "".join(json.dumps(e, allow_nan=True) + "\n" for e in entries)
    return text.encode()


def huge_numbers() -> bytes:
    big = "1" + "0" * 400
    text = line(head()).decode() + line(user("u1", None)).decode()
    raw = json.dumps(assistant("a1", "u1")).replace('"input": 10', f'"input": {big}')
    raw = raw.replace('"timestamp": 1767607200000', f'"timestamp": {big}')
    return (text + raw + "\n").encode()


def non_utf8() -> bytes:
    base = line(head()) + line(user("u1", None, "PLACE")) + line(assistant("a1", "u1", "PLACE"))
    return base.replace(b"PLACE", b"caf\xe9 \xff\xfe \xc3\x28")


def lone_surrogates() -> bytes:
    raw = line(head()) + line(user("u1", None, "SUR")) + line(assistant("a1", "u1", "SUR"))
    raw += line(assistant("a2", "a1", "ok", model="SUR"))
    return raw.replace(b"SUR", b"\\ud800 and \\udfff\\ud83d")


def split_and_glued() -> bytes:
    one = line(user("u1", None, "split"))
    cut = len(one) // 2
    return (
        line(head())
        + one[:cut]
        + b"\n"
        + one[cut:]
        + line(assistant("a1", "u1")).rstrip(b"\n")
        + line(user("u2", "a1"))
        + line(assistant("a2", "u2"))
    )


#: the steps of each attack, in order (``child``)
STEPS = (
    "load",
    "to_atif",
    "to_scout",
    "to_otel",
    "from_sessions",
    "export_html",
    "cli_info",
    "cli_validate",
    "cli_export",
    "cli_convert",
    "from_sessions_turn",
)

#: the deep chain's entries (``--depth``)
DEPTH = [100_000]

ATTACKS: dict[str, Callable[[], bytes]] = {
    "markup_everywhere": markup_everywhere,
    "megabyte_fields": megabyte_fields,
    "deep_chain_1e5": deep_chain,
    "colliding_ids": colliding_ids,
    "ids_not_strings": ids_not_strings,
    "parent_cycles": parent_cycles,
    "bad_timestamps": bad_timestamps,
    "odd_usage": odd_usage,
    "huge_numbers": huge_numbers,
    "non_utf8": non_utf8,
    "lone_surrogates": lone_surrogates,
    "split_and_glued": split_and_glued,
}


def _check_atif(paths: list[Path]) -> None:
    import atif

    for path in paths:
        atif.Trajectory.model_validate_json(path.read_bytes())


def _check_otel(path: Path) -> None:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    data = path.read_bytes()
    request = ExportTraceServiceRequest()
    request.ParseFromString(data)
    for resource in request.resource_spans:
        for scope in resource.scope_spans:
            for span in scope.spans:
                span.name.encode("utf-8")  # a str with a lone surrogate fails here


def _check_page(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    if "<script>alert(1)" in text or "<img src=x onerror" in text:
        raise AssertionError("MARKUP: session markup raw in the page")
    if text.count("</script") != text.count("<script"):
        raise AssertionError("MARKUP: a </script> breaks out of the page's data")


def _cli(argv: list[str]) -> None:
    from prime_nb.cli import main

    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        contextlib.suppress(SystemExit),
    ):
        main(argv)
    said = out.getvalue() + err.getvalue()
    if "\x1b" in said or "\x07" in said or "\x9b" in said:
        raise AssertionError(f"ESCAPE: {argv[0]} printed a control character")


def _turns_or_refused(path: Path) -> None:
    """The turn rows, validated, or the refusal that names ``max_messages``."""
    import pyarrow as pa

    from prime_nb.datasets import from_sessions
    from prime_nb.errors import DatasetTooLargeError

    try:
        table = from_sessions(path, unit="turn", progress=False, on_error="raise")
    except DatasetTooLargeError as exc:
        if "max_messages" not in str(exc):
            raise
        return
    pa.Table.validate(table, full=True)


def child(path: Path) -> None:
    """Every step on ``path``; one JSON object of results on stdout."""
    warnings.simplefilter("ignore")
    from prime_nb import load
    from prime_nb.datasets import from_sessions
    from prime_nb.interop import to_atif, to_otel, to_scout
    from prime_nb.widget import export_html

    out = path.parent / "out"
    out.mkdir(exist_ok=True)
    steps: dict[str, Callable[[], Any]] = {
        "load": lambda: load(path),
        "to_atif": lambda: _check_atif(to_atif(path, out / "atif", leaf="all", family=False)),
        "to_scout": lambda: to_scout(path, out / "scout", leaves="all"),
        "to_otel": lambda: (
            to_otel(path, path=out / "t.pb", leaf="all"),
            _check_otel(out / "t.pb"),
        ),
        "from_sessions": lambda: from_sessions(path, progress=False).validate(full=True),
        "export_html": lambda: _check_page(export_html(path, out / "p.html")),
        "cli_info": lambda: _cli(["info", str(path)]),
        "cli_validate": lambda: _cli(["validate", str(path)]),
        "cli_export": lambda: _cli(["export", str(path), "-o", str(out / "c.html"), "--force"]),
        "cli_convert": lambda: _cli(["convert", str(path), "--to", "atif", "-o", str(out / "cv")]),
        # its rows hold each turn's whole context, so a deep chain's grow as its square:
        # refused before they are built (max_messages), or built and valid
        "from_sessions_turn": lambda: _turns_or_refused(path),
    }
    assert tuple(steps) == STEPS
    said = path.with_suffix(".results").open("w", encoding="utf-8")
    for name, step in steps.items():
        results: dict[str, str] = {}
        start = time.process_time()
        try:
            step()
            took = time.process_time() - start
            results[name] = "ok" if took < SLOW else f"SLOW: {took:.1f} CPU s"
        except Exception as exc:
            text = str(exc).splitlines()[0][:160] if str(exc) else ""
            if isinstance(exc, AssertionError):
                results[name] = text
            else:
                where = traceback.extract_tb(exc.__traceback__)[-1]
                results[name] = (
                    f"{type(exc).__name__}: {text} [{Path(where.filename).name}:{where.lineno}]"
                )
        said.write(json.dumps(results) + "\n")  # as it goes: a step that hangs is named
        said.flush()
    said.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="attacks to run, comma separated")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--depth", type=int, default=100_000, help="the deep chain's entries")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    DEPTH[0] = args.depth
    if args.child:
        child(Path(args.child))
        return
    print(describe())
    names = args.only.split(",") if args.only else list(ATTACKS)
    broke = 0
    for name in names:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"{name}.jsonl"
            path.write_bytes(ATTACKS[name]())
            ended = ""
            try:
                done = subprocess.run(
                    [sys.executable, __file__, "--child", str(path), "--depth", str(args.depth)],
                    capture_output=True,
                    text=True,
                    timeout=args.timeout,
                    check=False,
                )
                if done.returncode:
                    ended = f"exit {done.returncode}: {done.stderr.strip()[-200:]}"
            except subprocess.TimeoutExpired:
                ended = f"TIMEOUT after {args.timeout} s"
            said = path.with_suffix(".results")
            results: dict[str, str] = {}
            for line in said.read_text().splitlines() if said.exists() else []:
                results.update(json.loads(line))
            if ended:
                running = next((n for n in STEPS if n not in results), "(after the steps)")
                results[running] = ended
        bad = {k: v for k, v in results.items() if v != "ok"}
        broke += len(bad)
        print(
            f"{name}: " + ("all ok" if not bad else "; ".join(f"{k}: {v}" for k, v in bad.items())),
            flush=True,
        )
    print(f"{broke} broken steps")


if __name__ == "__main__":
    main()
