"""Redaction's peak memory against the longest line, and its depth against the stack.

Issue #43 asks that ``redact`` keep its peak within 3x the longest line on any input
``load()`` reads, and never raise RecursionError. Each shape of long line is written at
two sizes, and each is loaded, and redacted, in a child of its own of one process that
has redacted a small file first: every step starts from the same heap, as what one step
leaves free (a small object's pool) would flatter the next. Before each step the heap's
free memory is given back to the system (``malloc_trim``), so that whatever a step
reuses it touches anew and counts; glibc is told to give every large block back when
freed (``MALLOC_MMAP_THRESHOLD_``), as it does for lines over 32 MB. A step's growth is
the rise of its peak resident size (VmHWM, reset before the step) over its size before.
The bound is of the growth between the two sizes per byte of line between them: the
fixed cost of a step (what a first redaction of a long line makes once, the report's
DataFrame machinery) drops out, and what is held per byte of line is what is measured.
A copy of the line held through the step moves that figure by 1.

A string with 4-byte characters (emoji) in it is four times its line in memory, so
``load`` itself is over 3x. Redaction narrows such a string (``_narrow.py``): each
symbol wider than Latin-1 becomes one Latin-1 stand-in the text lacks, written over the
string's UTF-8 in the line's own buffer, and every finder reads that one-byte-a-character
text whole. Plain text with an emoji in it stays within 2.5x; chat-like text (quotes,
URLs, ``key=value`` pairs, secrets to replace, a report row for each) within 3x, with
curly quotes, dashes and bullets too (narrowed as well, with emoji or without), under a
custom entry's description, or among many small strings (walked as a stream). A line
of many small strings is many times its line as Python objects (``load``, 10x), but is
walked as a stream (``_stream.py``), and its report (a row per replacement, one per 35
bytes of line) is kept in compact buffers and built as categoricals and an Arrow text
column joined from those buffers (``_report.py``): it stays within 3x.

A long string value (base64, hex, percent-encoding, prose, JSON held in a string) is
decoded apart from the line's other JSON (``_apart.py``): the line and the string are
all that is held, so those shapes stay within 2.5x. Replaced whole, prose dense with
secrets would hold the old text, the pieces of the new one and the new one at once: its
new text is written a piece at a time from the old (``_pending.py``). Parsed whole, JSON
held in a string would hold the line, orjson's copy of it and the string; decoded apart,
it was still 2.5-2.9x: the views of its joined literals (a window per record) filled the
memo of texts read again (``_find.py``) up to its cap, in step with the line at these
sizes. With a smaller cap it is within 2.5x as well.
Lines under
1 MB are measured too (``UNDER``): such a line was held as bytes until parsed, and
parsed whole (over 4x for base64); and a base64 run under 1 MB is decoded to be read as
text (``_disguise.py``), a piece at a time, so that no whole copy of the run is held
beside it: it stays within 2.5x too.

One object of thousands of short members is walked as a stream too; its keys are held
as 8-byte hashes (``_shell.py``), not as a dict of every key (over 7x the line, with the
spans of every key remembered besides), and its report is that of the many small
strings, so it stays within 3x.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import json
import os
import random
import re
import select
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from prime_nb.redact import redact

MB = 1 << 20

HEAD = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}


def _message(content: Any) -> dict[str, Any]:
    return {
        "type": "message",
        "id": "u1",
        "parentId": None,
        "timestamp": "2026-01-05T10:00:01Z",
        "message": {"role": "user", "content": content, "timestamp": 0},
    }


#: chat as a chat client writes it: curly apostrophes and quotes, dashes, bullets
CURLY = "4-byte chat, curly quotes"
#: a long text under a key other than a message's ``content`` (the session tests of
#: ``test_narrowed_text.py`` put texts under a tool call's command, a summary, a list)
DESCRIPTION = "4-byte chat under a custom entry's description"


def _entry(shape: str, content: Any) -> dict[str, Any]:
    if shape == DESCRIPTION:
        data = {"description": content, "n": 1}
        return {**_message(""), "type": "custom", "customType": "note", "data": data}
    return _message(content)


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


_CHAT = (
    "Hey, it's deployed 😀 see https://example.com/docs/run?id=42&step=3 for the logs. ",
    'She said "ship it" 🎉 and we did, 3 times, at 10:45. ',
    "I'm not sure why 🤔 the build's cache was cold; retry=3 timeout=30s fixed it. ",
    "Thanks! 👍 ✅ That's 100% done ❤️ ",
    "The DB is at postgres://app:Pg5ecret9x@db.internal:5432/app 🙈 oops. ",
    "My token was ghp_Zq8vN2xL5pT7rWk3J9mB4cY6hD1fG0sA2eR8 🔑 rotate it. ",
)


def _chat(size: int, curly: bool = False, emoji: bool = True) -> str:
    """Chat-like text: apostrophes, quotes, URLs, digits, ``key=value`` pairs, an emoji
    every 50 characters or so, and a secret in one sentence of 20; typographic (curly
    apostrophes and quotes, dashes, bullets: what a chat client writes) where ``curly``,
    without its emoji unless ``emoji``."""
    r = random.Random(7)
    parts: list[str] = []
    total = 0
    while total < size:
        part = _CHAT[4 + r.randrange(2)] if r.randrange(20) == 0 else _CHAT[r.randrange(4)]
        if curly:
            part = re.sub(r'"([^"]*)"', "\u201c\\1\u201d", part).replace("'", "\u2019")
            part = part.replace(", ", " \u2014 ", 1).replace("Thanks!", "\u2022 Thanks!")
        if not emoji:
            part = "".join(char for char in part if char <= "\uffff")
        parts.append(part)
        total += len(part.encode())
    return "".join(parts)


#: Japanese chat with full-width marks (U+FF01, U+FF1F): each is folded to ASCII in a view
#: (``_disguise``), made a stretch at a time with a translation, not per mark
FULL_WIDTH = "CJK chat, full-width marks"
#: shapes also written under 1 MB, where a line is held as bytes until parsed and was
#: parsed whole
UNDER = " under 1 MB"


def _content(shape: str, size: int) -> Any:
    if shape.endswith(UNDER):
        return _content(shape.removesuffix(UNDER), size)
    r = random.Random(5)
    if shape == "base64":
        return _fill(base64.b64encode(r.randbytes(size)).decode(), size)
    if shape == "base64 of text":
        return base64.b64encode(_prose(size * 3 // 4).encode()).decode()
    if shape == "prose":
        return _prose(size)
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
    if shape == "4-byte chat":
        return _chat(size)
    if shape == CURLY:
        return _chat(size, curly=True)
    if shape == "chat, curly quotes, no emoji":
        return _chat(size, curly=True, emoji=False)
    if shape == "4-byte chat, a math letter":
        return "\U0001d400 " + _chat(size - 6, curly=True)
    if shape == DESCRIPTION:
        return _chat(size, curly=True)
    if shape == FULL_WIDTH:
        return _fill("今日はデプロイが失敗しました\uff01 retry=3 で直りました\uff1f ok ", size // 2)
    if shape == "4-byte chat among small strings":  # walked as a stream
        return [*(["ab", "cd", "password=hunter2xyz"] * (size // 80)), _chat(size // 2, curly=True)]
    if shape == "many small strings":
        return ["ab", "cd", "password=hunter2xyz"] * (size // 40)
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
    "many small strings",
    "many keys",
    "4-byte characters",
    "4-byte chat",
    CURLY,
    "chat, curly quotes, no emoji",
    DESCRIPTION,
    "4-byte chat among small strings",
    FULL_WIDTH,
]
#: a string with 4-byte characters is four times its line in memory: ``load`` alone is
#: over 3x, redaction within it (narrowed, ``_narrow.py``)
FOUR_BYTE = ["4-byte characters", "4-byte chat"]
#: shapes whose long string is decoded apart from the line's other JSON, so orjson's copy
#: of the line is never made, and whose new text is written from the old in pieces
DECODED_APART = [
    "prose",
    "base64",
    "base64 of text",
    "hex",
    "hex of text",
    "percent-encoded",
    "2-byte characters",
    "json in a string",
    "base64" + UNDER,
    "4-byte characters",
]
#: a chat text with a mathematical letter in it: the letter narrowed to a letter of
#: Latin-1 that folds as it does (``_narrow_math.math_fold``), a byte a character, not a
#: ``str`` of 3.5x its line. Its folded view is made a stretch around the letter
#: (``_stretches.py``), not a second copy of the text
MATH_LETTER = "4-byte chat, a math letter"
SHAPES = [*WITHIN_THREE, MATH_LETTER]
#: chat with typographic marks, narrowed to a byte a character: as two bytes a character
#: (its ``str``, or its marks kept as they are) it grew 3.3-3.6x, within what the bound
#: allows for noise at the sizes above, so these are measured further apart
TYPOGRAPHIC = [CURLY, "chat, curly quotes, no emoji"]
#: the two sizes of each line whose growth is compared: what the bound is of is the growth
#: between them (the interpreter's own fixed cost, the report's DataFrame machinery, an
#: arena of small objects, is the same at both and drops out)
SIZES = (MB + MB // 16, MB + 9 * MB // 16)
#: the sizes of a line under 1 MB, and of the object of many keys (whose every member the
#: rules read: the slowest shape per byte, walked as a stream at any size over 256 KB)
SIZES_OF = {
    "base64" + UNDER: (MB // 8, 15 * MB // 16),
    "many keys": (5 * MB // 16, 3 * MB // 4),
    **dict.fromkeys(TYPOGRAPHIC, (MB + MB // 16, 2 * MB + MB // 2)),
}
#: what a step's growth may stray by at either size (pages of the heap, an arena)
NOISE = 128 << 10

PROBE = r"""
import ctypes, gc, json, os, sys
import prime_nb
from prime_nb.redact import redact

trim = ctypes.CDLL(None).malloc_trim

def status(key):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key):
                return int(line.split()[1]) * 1024
    return 0

def measured(step):
    gc.collect()
    trim(0)  # freed heap given back: what a step reuses it touches anew, and counts
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    before = status("VmRSS:")
    result = step()
    grown = status("VmHWM:") - before
    del result
    return grown

def mapped():
    # every page of the files this process maps, mapped: a child of fork maps them anew
    # where it runs them, which would count as growth of its first step
    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    with open("/proc/self/maps") as fh:
        for row in fh:
            parts = row.split()
            if len(parts) >= 6 and parts[5].startswith("/") and parts[1].startswith("r"):
                start, end = (int(at, 16) for at in parts[0].split("-"))
                libc.madvise(start, end - start, 22)  # MADV_POPULATE_READ

def alone(step):
    # in a child of this warmed process, so that every step starts from the same heap:
    # what one step leaves free (a small object's pool) would flatter the next
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read)
        mapped()
        os.write(write, json.dumps(measured(step)).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        grown = json.loads(fh.read() or b"null")
    os.waitpid(child, 0)
    return grown

def warmed(warm):
    redact(warm, warm + ".out", hostnames=[])  # what a first long line of a shape makes
    len(prime_nb.load(warm).entries)  # once (imports, compiled patterns, caches) made here
    gc.collect()
    trim(0)

def steps(loaded, paths):
    out = {}
    for path in paths:
        out[path] = {"redact": alone(lambda: redact(path, path + ".out", hostnames=[]))}
        if path in loaded:
            out[path]["load"] = alone(lambda: prime_nb.load(path).entries)
    return out

if sys.argv[1] == "--serve":
    # one warmed process for many measures: a request a line, [loaded, paths], and its
    # answer a line; each step is still in a child of its own of this warmed process
    warmed(sys.argv[2])
    while request := sys.stdin.readline():
        loaded, paths = json.loads(request)
        print(json.dumps(steps(set(loaded), paths)), flush=True)
        del request, loaded, paths
        gc.collect()
        trim(0)
else:
    warm, loaded, paths = sys.argv[1], set(json.loads(sys.argv[2])), sys.argv[3:]
    warmed(warm)
    print(json.dumps(steps(loaded, paths)))
"""


def _line(shape: str, size: int) -> str:
    """The long line of ``shape`` at about ``size`` bytes."""
    return json.dumps(_entry(shape, _content(shape, size)), ensure_ascii=False)


def _write(path: Path, entry: str) -> int:
    """Write a session whose long line is ``entry``; the line's bytes."""
    path.write_text(json.dumps(HEAD) + "\n" + entry + "\n", encoding="utf-8")
    return len(entry.encode()) + 1


def _probe_env() -> dict[str, str]:
    return {**os.environ, "MALLOC_MMAP_THRESHOLD_": str(1 << 16)}


class _WarmedProbe:
    """One warmed ``PROBE`` process per pytest process, shared by every test file that
    measures (``PROBE --serve``): its start (the interpreter, prime_nb's imports, the
    first redaction and load) is paid once, not once per file, and each step still runs
    in a child of its own of that one warmed process, as with a probe per call."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[str] | None = None
        self.errors: Any = None
        self.folder: Path | None = None

    def _started(self) -> subprocess.Popen[str]:
        if self.process is None or self.process.poll() is not None:
            self.folder = Path(tempfile.mkdtemp(prefix="prime-nb-probe-"))
            warm = self.folder / "warm.jsonl"
            _write_warm(warm)
            self.errors = tempfile.TemporaryFile("w+")  # noqa: SIM115 (closed in close)
            self.process = subprocess.Popen(
                [sys.executable, "-c", PROBE, "--serve", str(warm)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.errors,
                text=True,
                env=_probe_env(),
            )
            atexit.register(self.close)
        return self.process

    def steps(self, loaded: list[str], paths: list[str]) -> dict[str, Any]:
        """Each of ``paths`` redacted (and loaded, if in ``loaded``): growth by path."""
        process = self._started()
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps([loaded, paths]) + "\n")
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout], [], [], 300)
        answer = process.stdout.readline() if ready else ""
        if not answer:
            process.kill()
            process.wait()
            self.errors.seek(0)
            raise AssertionError(f"the probe gave no answer: {self.errors.read()}")
        grown: dict[str, Any] = json.loads(answer)
        return grown

    def close(self) -> None:
        if self.process is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()  # type: ignore[union-attr]
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process.stdout.close()  # type: ignore[union-attr]
            self.errors.close()
            self.process = None
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


_PROBES = _WarmedProbe()


def _write_warm(warm: Path) -> None:
    """The small file a probe redacts and loads before it measures."""
    warm.write_text(json.dumps(HEAD) + "\n" + json.dumps(_message("password=abc123xyz")) + "\n")


def measure(
    folder: Path,
    shapes: list[str],
    probe: str = PROBE,
    loaded: tuple[str, ...] = (),
    line: Callable[[str, int], str] = _line,
) -> dict[str, dict[str, float]]:
    """Per shape, its line at two sizes, each step in a child of one warmed process (the
    pytest process's one ``PROBE``, shared by the files that measure): redact's growth
    per byte of line between the two sizes (and load's, for the shapes ``loaded``), and
    the lines' bytes apart. ``line`` writes a shape's line at a size
    (another test file's shapes: its own)."""
    paths: dict[str, list[Path]] = {}
    lines: dict[str, list[int]] = {}
    for i, shape in enumerate(shapes):
        paths[shape] = [folder / f"shape{i}-{size}.jsonl" for size in SIZES_OF.get(shape, SIZES)]
        lines[shape] = [
            _write(path, line(shape, size))
            for path, size in zip(paths[shape], SIZES_OF.get(shape, SIZES), strict=True)
        ]
    every = [str(path) for shape in shapes for path in paths[shape]]
    load = [str(path) for shape in shapes if shape in loaded for path in paths[shape]]
    if probe == PROBE:
        grown = _PROBES.steps(load, every)
    else:  # a probe of the caller's own: a process of its own
        warm = folder / "warm.jsonl"
        _write_warm(warm)
        run = subprocess.run(
            [sys.executable, "-c", probe, str(warm), json.dumps(load), *every],
            capture_output=True,
            text=True,
            env=_probe_env(),
            timeout=300,
        )
        assert run.returncode == 0, run.stderr
        grown = json.loads(run.stdout.strip().splitlines()[-1])
    slopes = {}
    for shape in shapes:
        small, big = (grown[str(path)] for path in paths[shape])
        apart = lines[shape][1] - lines[shape][0]
        slopes[shape] = {"apart": apart, "redact": (big["redact"] - small["redact"]) / apart}
        if shape in loaded:
            slopes[shape]["load"] = (big["load"] - small["load"]) / apart
    return slopes


@pytest.fixture(scope="module")
def peaks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, float]]:
    """Per shape: redact's growth per byte of line (the slope between two sizes), and
    load's for the 4-byte shapes."""
    return measure(tmp_path_factory.mktemp("memory"), SHAPES, loaded=tuple(FOUR_BYTE))


def assert_grew_at_most(peaks: dict[str, dict[str, float]], shape: str, factor: float) -> None:
    """The shape's redaction grew at most ``factor`` bytes per byte of line, beside a
    noise at each of the two sizes."""
    got = peaks[shape]
    bound = factor + 2 * NOISE / got["apart"]
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


def test_a_text_with_a_math_letter_stays_within_three_times_the_line(
    peaks: dict[str, dict[str, float]],
) -> None:
    """Narrowed, and no whole folded view (held whole as a ``str``, 4.1x)."""
    assert_grew_at_most(peaks, MATH_LETTER, 3.0)


@pytest.mark.parametrize("shape", FOUR_BYTE)
def test_a_four_byte_text_is_over_three_times_its_line_when_loaded(
    peaks: dict[str, dict[str, float]], shape: str
) -> None:
    """The 4-byte shapes are what they claim: as one ``str`` (``load``) over 3x, so that
    their redaction within 3x is the narrowing's doing."""
    got = peaks[shape]
    assert got["load"] > 3.0, f"{shape}: load is within 3x ({got})"


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


def test_the_report_keeps_each_text_once_and_reads_as_text(tmp_path: Path) -> None:
    """A row per 35 bytes of a dense line: its rule, placeholder and entry id are codes of
    a categorical (each text once, the ones used, in sorted order), which compare, match
    and sort as text."""
    path = tmp_path / "dense.jsonl"
    entries = [
        {**_message(f"password=hunter{i % 2}xyz and token ghp_{'x' * 35}{i % 2}"), "id": f"e{i}"}
        for i in range(3)
    ]
    path.write_text("\n".join(json.dumps(row) for row in [HEAD, *entries]) + "\n")
    report = redact(path, dry_run=True, hostnames=[]).report
    for column in ("entry_id", "rule", "placeholder"):
        assert report[column].dtype == "category"
        texts = list(report[column].cat.categories)
        assert texts == sorted(set(report[column].astype(str))), column
    assert list(report["entry_id"].astype(str)) == ["e0", "e0", "e1", "e1", "e2", "e2"]
    assert report.sort_values("rule")["rule"].astype(str).is_monotonic_increasing
    github = report[report["rule"] == "github-token"]
    assert len(github) == 3 and github["placeholder"].str.contains("github").all()
    assert report["line"].tolist() == [2, 2, 3, 3, 4, 4]
