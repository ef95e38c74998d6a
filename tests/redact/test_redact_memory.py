"""Redaction's peak memory against the longest line, and its depth against the stack.

Issue #43 asks that ``redact`` keep its peak within 3x the longest line on any input
``load()`` reads, and never raise RecursionError. Each shape of long line is written
once (a couple of MB: the bound is a ratio), then loaded and redacted in one fresh
process that measures the growth of its peak resident size (VmHWM, reset before each
step) over its size before the step, after a warm-up redaction of a small file. glibc
is told to give every large block back when freed (``MALLOC_MMAP_THRESHOLD_``), as it
does for lines over 32 MB, so that the peak is what is held at once. Small blocks
freed by earlier steps stay mapped and are reused, so a step's growth over the
process's size reads lower than what it holds at once when the heap is given back
(``malloc_trim``) before each step: the bounds here are of growth as measured so.

A string of 4-byte characters is four times its line in memory, and a line of many
small strings many times its line as Python objects, so ``load`` itself is over 3x:
there, redaction must stay within ``load``'s own peak of the same line. The many small
strings are walked as a stream (``_stream.py``), and their report (a row per
replacement, thousands) is built as Arrow columns from compact buffers (``_report.py``):
the bound holds with the report's DataFrames built.

A long string value (base64, hex, percent-encoding, prose, JSON held in a string) is
decoded apart from the line's other JSON (``_apart.py``): the line and the string are
all that is held, so those shapes stay within 2.5x. Replaced whole, prose dense with
secrets would hold the old text, the pieces of the new one and the new one at once (3.5x
at this size): its new text is written a piece at a time from the old
(``_pending.py``). Parsed whole, JSON held in a string would hold the line, orjson's
copy of it and the string (3.4x). Lines under 1 MB are measured too (``UNDER``): such
a line was held as bytes until parsed, and parsed whole (over 4x for base64).

One object of thousands of short members is walked as a stream too; its keys are held
as 8-byte hashes (``_shell.py``), not as a dict of every key (over 7x the line, with the
spans of every key remembered besides), so it stays within 3x.
"""

from __future__ import annotations

import base64
import json
import os
import random
import subprocess
import sys
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from prime_nb.redact import redact

MB = 1 << 20
#: the size of each long line (small enough to be cheap, large enough that a copy of it
#: stands out over the process's own noise)
SIZE = 2 * MB

HEAD = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}


def _message(content: Any) -> dict[str, Any]:
    return {
        "type": "message",
        "id": "u1",
        "parentId": None,
        "timestamp": "2026-01-05T10:00:01Z",
        "message": {"role": "user", "content": content, "timestamp": 0},
    }


def _fill(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


_PARAGRAPH = (
    "The deploy failed on the staging host again, so I read the logs line by line and "
    "compared the configuration with the one that worked last week. "
) * 12


def _prose(size: int) -> str:
    """Paragraphs of about 2 KB, each with a password and a provider token in it (40 of
    each, repeated: a session holds a few secrets many times)."""
    r = random.Random(3)
    tokens = [
        "ghp_" + "".join(r.choice("abcdefghijkABCDEFGH0123456789") for _ in range(36))
        for _ in range(40)
    ]
    parts: list[str] = []
    total = 0
    while total < size:
        n = len(parts) % 40
        part = f"{_PARAGRAPH} Then I ran mysql -u root -pS3cr3t{n}x and used {tokens[n]}. "
        parts.append(part)
        total += len(part)
    return "".join(parts)


def _records(size: int) -> str:
    """JSON text of records (a tool's output), a secret in one record of 20."""
    rows: list[dict[str, Any]] = []
    total, i = 0, 0
    while total < size:
        row: dict[str, Any] = {"id": i, "name": f"item {i}", "notes": _PARAGRAPH[:600]}
        if i % 20 == 0:
            row["api_key"] = f"k{i:06d}Zq8vN2xL5pT7rW"
        rows.append(row)
        total += 700
        i += 1
    return json.dumps(rows)


#: shapes also written under 1 MB, where a line is held as bytes until parsed and was
#: parsed whole
UNDER = " under 1 MB"


def _content(shape: str, size: int = SIZE) -> Any:
    if shape.endswith(UNDER):
        return _content(shape.removesuffix(UNDER), size * 9 // 20)
    r = random.Random(5)
    if shape == "base64":
        return _fill(base64.b64encode(r.randbytes(size)).decode(), size)
    if shape == "base64 of text":
        return base64.b64encode(_prose(size * 3 // 4).encode()).decode()
    if shape == "prose":  # twice as long: held three times, it stood plainly over 3x
        return _prose(2 * size)
    if shape == "hex":
        return r.randbytes(size // 2).hex()
    if shape == "hex of text":
        return _prose(size // 2).encode().hex()
    if shape == "percent-encoded":
        return urllib.parse.quote(_prose(size * 2 // 3))
    if shape == "json in a string":
        return _records(size)
    if shape == "2-byte characters":
        return _fill("Съешь же ещё этих мягких французских булок, да выпей чаю. ", size // 2)
    if shape == "4-byte characters":
        return _fill("plain text with one emoji 😀 then more plain text. ", size)
    if shape == "many small strings":
        return ["ab", "cd", "password=hunter2xyz"] * (size // 120)
    if shape == "many keys":  # one object of thousands of short members
        text = ("password=hunter2xyz", "a few plain words of a value")
        return {f"key {i}": text[i % 3 > 0] for i in range(size // 48)}
    raise ValueError(shape)


#: shapes redacted within 3x the line (a string of 1- or 2-byte characters; JSON held in
#: a string is read as a stream, ``_embedded.py``)
WITHIN_THREE = [
    "prose",
    "base64",
    "base64 of text",
    "hex",
    "hex of text",
    "percent-encoded",
    "2-byte characters",
    "json in a string",
    "base64" + UNDER,
    "many keys",
]
#: a string of 4-byte characters is four times its line in memory, a list of short
#: strings many times: ``load`` alone is over 3x, and redaction must stay within it
WITHIN_LOAD = ["4-byte characters", "many small strings"]
#: shapes whose long string is decoded apart from the line's other JSON, so orjson's copy
#: of the line is never made, and whose new text is written from the old in pieces
DECODED_APART = [
    "prose",
    "json in a string",
    "base64",
    "base64 of text",
    "hex",
    "hex of text",
    "percent-encoded",
    "2-byte characters",
]
SHAPES = [*WITHIN_THREE, *WITHIN_LOAD]
#: what the interpreter itself may touch during a step (an arena of small objects, the
#: report, pages of its heap)
NOISE = 384 << 10

PROBE = r"""
import gc, json, os, sys
import prime_nb
from prime_nb.redact import redact

def status(key):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key):
                return int(line.split()[1]) * 1024
    return 0

def measured(step):
    gc.collect()
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    before = status("VmRSS:")
    result = step()
    grown = status("VmHWM:") - before
    del result
    return grown

warm, paths = sys.argv[1], sys.argv[2:]
redact(warm, warm + ".out", hostnames=[])
len(prime_nb.load(warm).entries)
out = {}
for path in paths:
    load = measured(lambda: prime_nb.load(path).entries)
    gc.collect()
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    start = status("VmRSS:")
    done = redact(path, path + ".out", hostnames=[])
    red = status("VmHWM:") - start
    del done
    out[path] = {"load": load, "redact": red}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def peaks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, float]]:
    """Per shape: the long line's bytes, and load's and redact's growth in that unit."""
    folder = tmp_path_factory.mktemp("memory")
    warm = folder / "warm.jsonl"
    warm.write_text(json.dumps(HEAD) + "\n" + json.dumps(_message("password=abc123xyz")) + "\n")
    paths, lines = {}, {}
    for i, shape in enumerate(SHAPES):
        path = folder / f"shape{i}.jsonl"
        entry = json.dumps(_message(_content(shape)), ensure_ascii=False)
        path.write_text(json.dumps(HEAD) + "\n" + entry + "\n", encoding="utf-8")
        paths[shape], lines[shape] = path, len(entry.encode()) + 1
    env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": str(1 << 16)}
    run = subprocess.run(
        [sys.executable, "-c", PROBE, str(warm), *map(str, paths.values())],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    grown = json.loads(run.stdout.strip().splitlines()[-1])
    return {
        shape: {
            "line": lines[shape],
            "load": grown[str(paths[shape])]["load"] / lines[shape],
            "redact": grown[str(paths[shape])]["redact"] / lines[shape],
        }
        for shape in SHAPES
    }


def assert_grew_at_most(peaks: dict[str, dict[str, float]], shape: str, factor: float) -> None:
    """The shape's redaction grew at most ``factor`` times its line, beside a fixed noise."""
    got = peaks[shape]
    bound = factor + NOISE / got["line"]
    assert got["redact"] <= bound, f"{shape}: redact grew {got['redact']:.2f}x the line ({got})"


@pytest.mark.parametrize("shape", WITHIN_THREE)
def test_redaction_peak_stays_within_three_times_the_line(
    peaks: dict[str, dict[str, float]], shape: str
) -> None:
    assert_grew_at_most(peaks, shape, 3.0)


@pytest.mark.parametrize("shape", DECODED_APART)
def test_a_long_string_costs_the_line_and_the_string(
    peaks: dict[str, dict[str, float]], shape: str
) -> None:
    """Parsed whole, the line, orjson's copy of it and the string were held at once (3x);
    replaced whole, the old text, the new one's pieces and the new one."""
    assert_grew_at_most(peaks, shape, 2.5)


@pytest.mark.parametrize("shape", WITHIN_LOAD)
def test_redaction_peak_stays_within_load_where_load_is_over_three(
    peaks: dict[str, dict[str, float]], shape: str
) -> None:
    got = peaks[shape]
    assert got["load"] > 3.0, f"{shape}: load is within 3x, so 3x applies ({got})"
    assert got["redact"] <= got["load"], f"{shape}: redact grew more than load ({got})"


def _nested(depth: int, leaf: str) -> str:
    return "[" * depth + json.dumps(leaf) + "]" * depth


@pytest.mark.parametrize(("depth", "glued"), [(1_000, False), (20_000, False), (20_000, True)])
def test_redaction_of_the_deepest_lines_raises_no_recursion_error(
    tmp_path: Path, depth: int, glued: bool
) -> None:
    """orjson reads 1,024 levels; deeper lines go to the lenient parser, which in the
    deep-stack thread reads far deeper than ``load()``'s thread: both are redacted,
    JSON nested as deep inside a string, and glued lines, too."""
    inner = _nested(depth, "password=hunter2xyz")
    embedded = json.dumps(_nested(min(depth, 1_000), "password=hunter2xyz"))
    line = (
        '{"type":"custom","id":"a","parentId":null,"timestamp":"2026-01-05T10:00:01Z",'
        f'"customType":"x","data":{inner},"text":{embedded}}}'
    )
    if glued:  # two entries on one line
        line += line.replace('"id":"a"', '"id":"b"')
    path = tmp_path / "deep.jsonl"
    path.write_text(json.dumps(HEAD) + "\n" + line + "\n")
    done = redact(path, tmp_path / "out.jsonl", hostnames=[])
    assert "hunter2xyz" not in (tmp_path / "out.jsonl").read_text()
    assert len(done.report) >= 1
