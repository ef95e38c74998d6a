'''The script of the demo session bundled as ``prime_nb/datasets/data/demo-session.jsonl``.

Why hand-written: a demo must read like a real coding session (a coherent story, real
looking files and outputs) while showing every feature of the format: forks where the
user rewound, a branch summary, compactions, labels, a renamed session, a failing tool
call, an API error, an image, thinking, a model change and extension entries.

The story: an agent fixes a flaky test in a small made-up project, ``csvkit-lite``, then
refactors its CSV parser. Run ``python -m sessiongen`` (from the repository's root) to
rewrite the file.
'''

from __future__ import annotations

import base64
import random
from collections.abc import Sequence
from typing import Any, NamedTuple

from ._core import Builder, Converter, Entry, tiny_png, tool_call_id, usage

CWD = "/home/dev/projects/csvkit-lite"


class Call(NamedTuple):
    """One tool call of an assistant message and the result it got."""

    name: str
    args: dict[str, Any]
    result: str
    is_error: bool = False
    details: dict[str, Any] | None = None


def read(path: str, content: str) -> Call:
    return Call("read", {"path": f"{CWD}/{path}"}, content)


def bash(command: str, output: str, *, exit_code: int = 0) -> Call:
    if exit_code:
        output += f"\n\nCommand exited with code {exit_code}"
    return Call("bash", {"command": command}, output, is_error=exit_code != 0)


def edit(path: str, old: str, new: str, diff: str = "", *, error: bool = False) -> Call:
    args = {"path": f"{CWD}/{path}", "oldText": old, "newText": new}
    if error:
        msg = (f"Could not find the exact text in {CWD}/{path}. The old text must match "
               "exactly including all whitespace and newlines.")
        return Call("edit", args, msg, is_error=True)
    return Call("edit", args, f"Successfully replaced text in {CWD}/{path}.",
                details={"diff": diff})


def write(path: str, content: str) -> Call:
    return Call("write", {"path": f"{CWD}/{path}", "content": content},
                f"Successfully wrote {len(content.encode())} bytes to {CWD}/{path}")


class Demo:
    """Thin layer over :class:`Builder` for writing the story turn by turn."""

    def __init__(self) -> None:
        self.rng = random.Random(2026)
        self.b = Builder(self.rng, cwd=CWD)
        self.results: list[str] = []
        self.last_usage: Entry = {}

    def user(self, text: str, *, image: bool = False) -> str:
        if image:
            data = base64.b64encode(tiny_png()).decode()
            return self.b.user([{"type": "text", "text": text},
                                {"type": "image", "data": data, "mimeType": "image/png"}])
        return self.b.user([{"type": "text", "text": text}])

    def ai(self, text: str | None = None, *, think: str | None = None,
           calls: Sequence[Call] = ()) -> str:
        """An assistant message with optional thinking, text and tool calls (+ results)."""
        blocks: list[Entry] = []
        if think:
            sig = base64.b64encode(self.rng.randbytes(96)).decode()
            blocks.append({"type": "thinking", "thinking": think, "thinkingSignature": sig})
        if text:
            blocks.append({"type": "text", "text": text})
        ids = [tool_call_id(self.rng) for _ in calls]
        for cid, call in zip(ids, calls, strict=True):
            blocks.append({"type": "toolCall", "id": cid, "name": call.name,
                           "arguments": call.args})
        aid = self.b.assistant(blocks, stop="toolUse" if calls else "stop")
        self.last_usage = self.b.last_usage
        self.results = [
            self.b.tool_result(cid, c.name, c.result, is_error=c.is_error, details=c.details)
            for cid, c in zip(ids, calls, strict=True)
        ]
        return aid


# --------------------------------------------------------------------------------------
# the project's files as the agent reads them
# --------------------------------------------------------------------------------------
TEST_SNIFF = r'''from csvkit_lite.sniff import sniff_delimiter


def test_comma():
    assert sniff_delimiter("a,b,c\n1,2,3\n") == ","


def test_semicolon():
    assert sniff_delimiter("a;b;c\n1;2;3\n") == ";"


def test_tab():
    assert sniff_delimiter("a\tb\n1\t2\n") == "\t"


def test_empty_sample_defaults_to_comma():
    assert sniff_delimiter("") == ","


def test_prefers_comma_on_tie():
    # every line has exactly one comma and one semicolon
    sample = "a,b;c\n1,2;3\n4,5;6\n"
    assert sniff_delimiter(sample) == ","
'''

SNIFF_OLD = r'''"""Guess the delimiter of a CSV sample."""

from collections import Counter

CANDIDATES = {",", "\t", ";", "|"}


def sniff_delimiter(sample: str) -> str:
    """Return the most likely delimiter in ``sample``.

    A delimiter must occur the same number of times on every line. Ties go to
    the comma, then tab, semicolon and pipe.
    """
    lines = [line for line in sample.splitlines() if line.strip()][:20]
    if not lines:
        return ","
    scores: Counter[str] = Counter()
    for cand in CANDIDATES:
        counts = {line.count(cand) for line in lines}
        if len(counts) == 1 and 0 not in counts:
            scores[cand] = counts.pop()
    if not scores:
        return ","
    best = max(scores.values())
    for cand in CANDIDATES:
        if scores[cand] == best:
            return cand
    return ","
'''

PARSER_OLD = r'''"""A tiny, dependency-free CSV reader."""

from collections.abc import Iterator
from typing import TextIO


def parse_line(line: str, delimiter: str = ",") -> list[str]:
    """Split one line into fields, honouring double quotes."""
    fields = []
    current = ""
    in_quotes = False
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == '"':
            if in_quotes and i + 1 < len(line) and line[i + 1] == '"':
                current += '"'
                i += 1
            else:
                in_quotes = not in_quotes
        elif ch == delimiter and not in_quotes:
            fields.append(current)
            current = ""
        else:
            current += ch
        i += 1
    fields.append(current)
    return fields


def read_rows(fh: TextIO, delimiter: str = ",") -> Iterator[list[str]]:
    """Yield the rows of an open CSV file."""
    for line in fh:
        line = line.rstrip("\r\n")
        if not line:
            continue
        yield parse_line(line, delimiter)
'''

TEST_PARSER_OLD = r'''import io

from csvkit_lite.parser import parse_line, read_rows


def test_simple_line():
    assert parse_line("a,b,c") == ["a", "b", "c"]


def test_quoted_delimiter():
    assert parse_line('a,"b,c",d') == ["a", "b,c", "d"]


def test_doubled_quote():
    assert parse_line('"say ""hi""",x') == ['say "hi"', "x"]


def test_empty_fields():
    assert parse_line(",,") == ["", "", ""]


def test_read_rows_skips_blank_lines():
    fh = io.StringIO("a,b\n\n1,2\n")
    assert list(read_rows(fh)) == [["a", "b"], ["1", "2"]]
'''

PARSER_REGEX = r'''"""A tiny, dependency-free CSV reader."""

import re
from collections.abc import Iterator
from typing import TextIO

_FIELD = re.compile(r'(?:^|,)(?:"((?:[^"]|"")*)"|([^,\n]*))(?=,|\n|$)', re.S)


def read_rows(fh: TextIO, delimiter: str = ",") -> Iterator[list[str]]:
    """Yield the rows of an open CSV file (quoted fields may span lines)."""
    text = fh.read()
    row: list[str] = []
    for match in _FIELD.finditer(text):
        quoted, plain = match.groups()
        row.append(quoted if quoted is not None else plain)
        if text[match.end() : match.end() + 1] in ("\n", ""):
            yield row
            row = []


def parse_line(line: str, delimiter: str = ",") -> list[str]:
    return next(read_rows(iter([line])), [])  # type: ignore[arg-type]
'''

PARSER_NEW = r'''"""A tiny, dependency-free CSV reader (RFC 4180 quoting).

Quoted fields may contain the delimiter, doubled quotes ("") and line breaks.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import Enum, auto
from typing import TextIO


class CSVError(ValueError):
    """Input that is not valid CSV, e.g. a quoted field that never ends."""


class State(Enum):
    FIELD_START = auto()
    UNQUOTED = auto()
    QUOTED = auto()
    QUOTE_IN_QUOTED = auto()


class Tokenizer:
    """Turn a stream of text chunks into rows with a small state machine."""

    def __init__(self, delimiter: str = ",") -> None:
        if len(delimiter) != 1 or delimiter in '"\r\n':
            raise ValueError(f"bad delimiter: {delimiter!r}")
        self.delimiter = delimiter

    def rows(self, chunks: Iterable[str]) -> Iterator[list[str]]:
        """Yield one list of fields per record; blank lines are skipped."""
        state = State.FIELD_START
        field: list[str] = []
        row: list[str] = []
        delim = self.delimiter
        for chunk in chunks:
            for ch in chunk:
                if state is State.QUOTED:
                    if ch == '"':
                        state = State.QUOTE_IN_QUOTED
                    else:
                        field.append(ch)
                    continue
                if state is State.QUOTE_IN_QUOTED and ch == '"':
                    field.append('"')  # a doubled quote inside quotes
                    state = State.QUOTED
                    continue
                if ch == delim:
                    row.append("".join(field))
                    field = []
                    state = State.FIELD_START
                elif ch == "\n":
                    if row or field or state is not State.FIELD_START:
                        row.append("".join(field))
                        yield row
                    row, field = [], []
                    state = State.FIELD_START
                elif ch == '"' and state is State.FIELD_START:
                    state = State.QUOTED
                else:
                    field.append(ch)
                    state = State.UNQUOTED
        if state is State.QUOTED:
            raise CSVError("unterminated quoted field at end of input")
        if row or field or state is not State.FIELD_START:
            row.append("".join(field))
            yield row


def read_rows(fh: TextIO, delimiter: str = ",") -> Iterator[list[str]]:
    """Yield the rows of an open CSV file."""
    return Tokenizer(delimiter).rows(fh)


def parse_line(line: str, delimiter: str = ",") -> list[str]:
    """Split one line into fields (kept for backwards compatibility)."""
    return next(Tokenizer(delimiter).rows([line]), [""])
'''

TESTS_ADDED = r'''

def test_quoted_newline_is_one_field():
    fh = io.StringIO('id,note\n1,"first line\nsecond line"\n2,plain\n')
    assert list(read_rows(fh)) == [
        ["id", "note"],
        ["1", "first line\nsecond line"],
        ["2", "plain"],
    ]


def test_crlf_line_endings():
    fh = io.StringIO("a,b\r\n1,2\r\n")
    assert list(read_rows(fh)) == [["a", "b"], ["1", "2"]]


def test_no_trailing_newline():
    assert list(read_rows(io.StringIO("a,b\n1,2"))) == [["a", "b"], ["1", "2"]]


def test_unterminated_quote_raises():
    with pytest.raises(CSVError):
        list(read_rows(io.StringIO('a,"b\n')))
'''

BENCH = r'''"""Time read_rows on a generated CSV file."""

import io
import time

from csvkit_lite.parser import read_rows

ROW = '42,"Smith, Jane",2024-03-01,"said ""hi""",19.99\n'
DATA = "id,name,date,note,price\n" + ROW * 200_000

if __name__ == "__main__":
    start = time.perf_counter()
    n = sum(1 for _ in read_rows(io.StringIO(DATA)))
    print(f"{n} rows in {time.perf_counter() - start:.2f} s")
'''

FUZZ = r'''"""Compare read_rows with csv.reader on random inputs and chunk sizes."""

import argparse
import csv
import io
import random

from csvkit_lite.parser import Tokenizer

ALPHABET = 'ab,"\r\n '


def chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=500)
    args = parser.parse_args()
    rng = random.Random(14)
    sizes = range(1, 7)
    for _ in range(args.cases):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 40)))
        try:
            expected = [r for r in csv.reader(io.StringIO(text, newline="")) if r]
        except csv.Error:
            continue  # e.g. a bare CR inside an unquoted field: not comparable
        for size in sizes:
            got = list(Tokenizer().rows(chunks(text, size)))
            assert got == expected, (text, size, got, expected)
    print(f"{args.cases} random inputs, {len(sizes)} chunk sizes: "
          "output identical to csv.reader")


if __name__ == "__main__":
    main()
'''

README_OLD = r'''## Parsing

`read_rows(fh)` yields one list of strings per line. Quoted fields may contain
the delimiter and doubled quotes (`""`).
'''

README_NEW = r'''## Parsing

`read_rows(fh)` yields one list of strings per record. Quoted fields may contain
the delimiter, doubled quotes (`""`) and line breaks, so a record can span
several lines of the file. CRLF and LF line ends are both accepted.

The reader streams: it pulls the file in 64 KiB chunks and never holds more
than the current record in memory. Invalid input (a quoted field that never
ends) raises `csvkit_lite.parser.CSVError`.
'''


def _sniff_turns(d: Demo) -> dict[str, str]:
    """Part 1: the flaky sniffer test. Returns ids the later parts refer to."""
    ids: dict[str, str] = {}
    d.user("CI keeps failing on `tests/test_sniff.py::test_prefers_comma_on_tie` about half "
           "the time (screenshot of the last run attached), but it always passes on my "
           "machine. Can you figure out why?", image=True)
    d.ai("Let me look at the test and at the sniffer first.",
         think="A test that fails about half the time in CI but never locally: randomness "
               "or ordering. The screenshot shows the assertion `';' == ','`, so the "
               "sniffer sometimes returns the semicolon. Read the test and the code.",
         calls=[read("tests/test_sniff.py", TEST_SNIFF),
                read("csvkit_lite/sniff.py", SNIFF_OLD)])
    d.ai("The tie-break walks over `CANDIDATES`, which is a `set`. Let me check whether the "
         "result depends on the hash seed.",
         think="In the tie test both ',' and ';' occur once per line, so both score 1. The "
               "final loop returns the first candidate with the best score in *set* order. "
               "Set order of strings depends on their hashes, and str hashes are salted "
               "per process unless PYTHONHASHSEED is fixed. Running the test with a few "
               "explicit seeds will prove it.",
         calls=[bash('for s in 1 2 3 4 5 6 7 8; do PYTHONHASHSEED=$s python -m pytest -q '
                     'tests/test_sniff.py::test_prefers_comma_on_tie 2>&1 | tail -1 | '
                     'sed "s/^/seed $s: /"; done',
                     "seed 1: 1 passed in 0.02s\nseed 2: 1 failed in 0.05s\n"
                     "seed 3: 1 passed in 0.02s\nseed 4: 1 failed in 0.04s\n"
                     "seed 5: 1 failed in 0.05s\nseed 6: 1 passed in 0.02s\n"
                     "seed 7: 1 passed in 0.02s\nseed 8: 1 failed in 0.04s\n")])
    d.ai("It flips with the seed. Now, why does it always pass for you?",
         calls=[bash("env | grep -i pythonhash", "PYTHONHASHSEED=0\n")])
    d.ai("Is `CANDIDATES` used anywhere else, where the order could matter too?",
         calls=[bash("grep -rn CANDIDATES --include=*.py .",
                     "./csvkit_lite/sniff.py:5:CANDIDATES = {\",\", \"\\t\", \";\", \"|\"}\n"
                     "./csvkit_lite/sniff.py:18:    for cand in CANDIDATES:\n"
                     "./csvkit_lite/sniff.py:25:    for cand in CANDIDATES:\n"
                     "./csvkit_lite/cli.py:9:from .sniff import CANDIDATES, sniff_delimiter\n"
                     "./csvkit_lite/cli.py:41:        choices=sorted(CANDIDATES),\n")])
    ids["diagnosis"] = d.ai(
        "Found it. This is not a timing problem, it is **set iteration order**.\n\n"
        "### Root cause\n\n"
        "`sniff_delimiter` scores every candidate and then returns the first one with the "
        "best score, iterating over `CANDIDATES`:\n\n"
        "```python\nCANDIDATES = {\",\", \"\\t\", \";\", \"|\"}   # a set!\n...\n"
        "for cand in CANDIDATES:\n    if scores[cand] == best:\n        return cand\n```\n\n"
        "In `test_prefers_comma_on_tie` the comma and the semicolon both score 1. Which one "
        "comes first in the set depends on the string hashes, and Python salts those per "
        "process. CI runs with a random salt, so the test is a coin flip:\n\n"
        "| PYTHONHASHSEED | result |\n|---|---|\n| 1, 3, 6, 7 | passed |\n"
        "| 2, 4, 5, 8 | failed |\n| 0 (your shell) | always the same order: passed |\n\n"
        "Your shell exports `PYTHONHASHSEED=0`, which turns the salting off, so you always "
        "get the same (lucky) order.\n\n"
        "### Fix\n\nMake the preference order explicit: a tuple, and return the first "
        "candidate *in that order* that has the best score. Shall I do it?")
    d.user("Wait, why would the order of a set change between runs at all?")
    ids["why_sets"] = d.ai(
        "Because a set is a hash table: iteration follows the slots the elements land in, "
        "and the slot comes from `hash(element)`. Since Python 3.3 `hash()` of a `str` is "
        "salted with a random value per process (a defence against hash-flooding attacks), "
        "so the slots, and with them the iteration order, differ from run to run:\n\n"
        "```console\n$ for i in 1 2 3; do python -c 'print(list({\",\", \";\", \"|\"}))'; "
        "done\n[';', ',', '|']\n[',', '|', ';']\n['|', ';', ',']\n```\n\n"
        "`PYTHONHASHSEED=0` disables the salt, which is why your machine always sees the "
        "same order. Integers hash to themselves, so sets of small ints *look* ordered, "
        "which makes this easy to miss.")
    return ids


def _sniff_fix(d: Demo, ids: dict[str, str]) -> None:
    b = d.b
    d.user("Nice detective work. Yes, fix it, and keep the documented preference order: "
           "comma, tab, semicolon, pipe.")
    d.ai(calls=[edit("csvkit_lite/sniff.py", "CANDIDATES = {',', '\\t', ';', '|'}\n",
                     'CANDIDATES = (",", "\\t", ";", "|")\n', error=True)])
    d.ai("The file uses double quotes; retrying with the exact text.",
         calls=[edit("csvkit_lite/sniff.py", 'CANDIDATES = {",", "\\t", ";", "|"}\n',
                     'CANDIDATES = (",", "\\t", ";", "|")  # preference order: first wins '
                     'a tie\n',
                     '   3 from collections import Counter\n   4 \n'
                     '-  5 CANDIDATES = {",", "\\t", ";", "|"}\n'
                     '+  5 CANDIDATES = (",", "\\t", ";", "|")  # preference order: first '
                     'wins a tie\n   6 \n')])
    d.ai(calls=[edit("csvkit_lite/sniff.py",
                     "    best = max(scores.values())\n    for cand in CANDIDATES:\n"
                     "        if scores[cand] == best:\n            return cand\n"
                     "    return \",\"\n",
                     "    best = max(scores.values())\n"
                     "    return next(cand for cand in CANDIDATES if scores[cand] == best)\n",
                     "  24     best = max(scores.values())\n-25     for cand in CANDIDATES:\n"
                     "-26         if scores[cand] == best:\n-27             return cand\n"
                     "-28     return \",\"\n"
                     "+25     return next(cand for cand in CANDIDATES if scores[cand] == best)\n")])
    d.ai("Now the same check as before, with 30 seeds and the whole sniffer test file:",
         calls=[bash('for s in $(seq 1 30); do PYTHONHASHSEED=$s python -m pytest -q '
                     'tests/test_sniff.py 2>&1 | tail -1; done | sort | uniq -c',
                     "     30 5 passed in 0.03s\n")])
    good = d.ai(
        "Fixed. All 5 sniffer tests pass for 30 different hash seeds.\n\n"
        "```diff\n-CANDIDATES = {\",\", \"\\t\", \";\", \"|\"}\n"
        "+CANDIDATES = (\",\", \"\\t\", \";\", \"|\")  # preference order: first wins a tie\n"
        "...\n-    for cand in CANDIDATES:\n-        if scores[cand] == best:\n"
        "-            return cand\n-    return \",\"\n"
        "+    return next(cand for cand in CANDIDATES if scores[cand] == best)\n```\n\n"
        "The trailing `return \",\"` was unreachable anyway (`scores` is not empty there).\n\n"
        "Tip: you may want to drop `PYTHONHASHSEED=0` from your shell profile, so local runs "
        "behave like CI.")
    b.label(good, "good fix")
    b.bash_execution("git diff --stat",
                     " csvkit_lite/sniff.py | 7 ++-----\n 1 file changed, 2 insertions(+), "
                     "5 deletions(-)\n", 0)
    b.session_info("Fix flaky sniffer test")
    b.custom("todo", {"items": [
        {"text": "Fix flaky test_prefers_comma_on_tie", "done": True},
        {"text": "Parser: quoted fields with line breaks (#14)", "done": False},
        {"text": "Update README + CHANGELOG", "done": False}]})
    d.user("Commit that please.")
    d.ai(calls=[bash('git add csvkit_lite/sniff.py && git commit -q -m "sniff: break ties in '
                     'a fixed preference order" && git log --oneline -1',
                     "a41c9e2 sniff: break ties in a fixed preference order\n")])
    d.ai("Committed as `a41c9e2`.")


def _sniff_side(d: Demo, parent: str) -> None:
    """A short fork: the user considered just retrying the flaky test, then went back."""
    b = d.b
    saved = b.head
    b.head = parent
    d.user("Could we just mark it flaky with pytest-rerunfailures and move on?")
    end = d.ai(
        "We could (`@pytest.mark.flaky(reruns=3)`), but it would hide a real bug: "
        "`sniff_delimiter` gives *different answers for the same input* depending on the "
        "process. Users reading semicolon/comma files would see it too. The proper fix is "
        "a two-line change, so I would not add a dependency to paper over it.")
    d.user("ok fair, but would it at least stop the red builds today?")
    end = d.ai("Yes, with three reruns a 50% failure rate drops to about 6% per build, so "
               "you would still see it roughly once every 16 builds. The real fix is smaller "
               "than adding the plugin; I'd rather do that.")
    b.head = saved
    b.label(end, "rejected: rerun plugin")


def _parser_analysis(d: Demo, ids: dict[str, str]) -> None:
    b = d.b
    d.user("Next: the parser. Issue #14 says a quoted field with a line break in it gets "
           "split into two rows. Have a look at `csvkit_lite/parser.py` and tell me what "
           "you'd do before changing anything.")
    d.ai(calls=[read("csvkit_lite/parser.py", PARSER_OLD),
                read("tests/test_parser.py", TEST_PARSER_OLD)])
    d.ai("Let me reproduce the issue:",
         calls=[bash("python -c 'import io; from csvkit_lite.parser import read_rows; "
                     "print(list(read_rows(io.StringIO(\"id,note\\n1,\\\"first line\\nsecond "
                     "line\\\"\\n\"))))'",
                     "[['id', 'note'], ['1', 'first line'], ['second line\"']]\n")])
    ids["repro"] = d.results[0]
    d.ai("Who calls these functions?",
         calls=[bash("grep -rn 'parse_line\\|read_rows' --include=*.py csvkit_lite",
                     "csvkit_lite/__init__.py:3:from .parser import parse_line, read_rows\n"
                     "csvkit_lite/cli.py:10:from .parser import read_rows\n"
                     "csvkit_lite/cli.py:57:    rows = read_rows(fh, delimiter)\n"
                     "csvkit_lite/parser.py:7:def parse_line(line: str, delimiter: str = \",\")"
                     " -> list[str]:\n"
                     "csvkit_lite/parser.py:33:def read_rows(fh: TextIO, delimiter: str = "
                     "\",\") -> Iterator[list[str]]:\n"
                     "csvkit_lite/parser.py:39:        yield parse_line(line, delimiter)\n")])
    b.label(ids["repro"], "bug found")
    ids["options"] = d.ai(
        "Reproduced: the record `1,\"first line\\nsecond line\"` comes out as two broken "
        "rows.\n\n### Why\n\n`read_rows` iterates over the file **line by line** and hands "
        "each physical line to `parse_line`. A line break inside quotes ends the line, so "
        "the quote state is lost. (`parse_line` also builds fields with `current += ch`, "
        "which is quadratic for long fields, but that's secondary.)\n\n"
        "### Options\n\n"
        "| | approach | pros | cons |\n|---|---|---|---|\n"
        "| A | one regex over the whole text | little code | hard to read, reads the whole "
        "file into memory, easy to get quoting edge cases wrong |\n"
        "| B | a small state machine over characters | explicit, streams, easy to test "
        "state by state | ~60 lines |\n\n"
        "I'd go with **B**: a `Tokenizer` with four states (`FIELD_START`, `UNQUOTED`, "
        "`QUOTED`, `QUOTE_IN_QUOTED`) that consumes the whole stream, so a record may span "
        "lines. `parse_line` stays as a thin wrapper so the public API does not change "
        "(it is exported from `csvkit_lite/__init__.py`; the CLI only uses `read_rows`).")


def _regex_attempt(d: Demo) -> str:
    """The abandoned branch: the regex approach. Returns its last entry id."""
    b = d.b
    d.user("Let's try the regex one first, it's less code.")
    d.ai("OK, trying the regex approach.",
         think="One pattern that matches a field: either a quoted field (anything but a "
               "quote, or a doubled quote) or a run of non-delimiters. The end of a record "
               "is a newline outside quotes, which the regex sees because it runs over the "
               "whole text with re.S.",
         calls=[write("csvkit_lite/parser.py", PARSER_REGEX)])
    wip = d.ai(calls=[bash("python -m pytest -q tests/test_parser.py",
                           "..F.F\n=================================== FAILURES "
                           "===================================\n___________________"
                           "_____________ test_doubled_quote ________________________________"
                           "\n    assert parse_line('\"say \"\"hi\"\"\",x') == ['say \"hi\"', "
                           "'x']\nE   AssertionError: assert ['say \"\"hi\"\"', 'x'] == "
                           "['say \"hi\"', 'x']\n___________________________ test_read_rows_"
                           "skips_blank_lines ____________________________\nE   Assertion"
                           "Error: assert [['a', 'b'], [''], ['1', '2']] == [['a', 'b'], "
                           "['1', '2']]\n2 failed, 3 passed in 0.04s", exit_code=1)])
    b.label(wip, "regex attempt")
    d.ai("Two problems: doubled quotes are not unescaped, and blank lines become `['']`.",
         calls=[edit("csvkit_lite/parser.py",
                     "        row.append(quoted if quoted is not None else plain)\n",
                     "        if quoted is not None:\n"
                     "            row.append(quoted.replace('\"\"', '\"'))\n"
                     "        elif plain or row or text[match.start() : match.start() + 1] "
                     "== \",\":\n            row.append(plain)\n",
                     "-        row.append(quoted if quoted is not None else plain)\n"
                     "+        if quoted is not None:\n+            row.append(quoted.replace("
                     "'\"\"', '\"'))\n+        elif plain or row or ...:\n"
                     "+            row.append(plain)\n")])
    d.ai(calls=[bash("python -m pytest -q tests/test_parser.py",
                     "....F\nE   AssertionError: assert [['a', 'b'], ['1', '2'], []] == "
                     "[['a', 'b'], ['1', '2']]\n1 failed, 4 passed in 0.04s", exit_code=1)])
    d.ai("Closer, but the regex now yields an empty trailing row, and the condition that "
         "decides whether an empty match is a field has become hard to follow:\n\n"
         "```python\nelif plain or row or text[match.start() : match.start() + 1] == \",\":\n"
         "```\n\nI can patch this too, but each fix adds another special case.")
    d.user("Hmm, that regex is unreadable and it's still wrong. Let's not do this.")
    return d.ai("Agreed. I'll stop here; the state machine (option B) handles these cases by "
                "construction.")


def _parser_refactor(d: Demo, ids: dict[str, str]) -> None:
    b = d.b
    d.user("Go with the state machine (option B). Keep `parse_line` working for backwards "
           "compatibility, and write the tests for #14 first.")
    d.ai("Tests first, so we see them fail on the current code:",
         calls=[edit("tests/test_parser.py",
                     "import io\n\nfrom csvkit_lite.parser import parse_line, read_rows\n",
                     "import io\n\nimport pytest\n\nfrom csvkit_lite.parser import CSVError, "
                     "parse_line, read_rows\n",
                     "   1 import io\n   2 \n+  3 import pytest\n+  4 \n"
                     "-  3 from csvkit_lite.parser import parse_line, read_rows\n"
                     "+  5 from csvkit_lite.parser import CSVError, parse_line, read_rows\n"),
                edit("tests/test_parser.py",
                     "    assert list(read_rows(fh)) == [[\"a\", \"b\"], [\"1\", \"2\"]]\n",
                     "    assert list(read_rows(fh)) == [[\"a\", \"b\"], [\"1\", \"2\"]]\n"
                     + TESTS_ADDED,
                     "+ 28 def test_quoted_newline_is_one_field():\n+ 29     ...\n"
                     "+ 43 def test_unterminated_quote_raises():\n")])
    d.ai(calls=[bash("python -m pytest -q tests/test_parser.py",
                     "ImportError while importing test module '/home/dev/projects/csvkit-lite/"
                     "tests/test_parser.py'.\nE   ImportError: cannot import name 'CSVError' "
                     "from 'csvkit_lite.parser'\n1 error in 0.09s", exit_code=2)])
    d.ai("As expected: `CSVError` does not exist yet, and the new cases would fail on the "
         "line-based reader. Now the tokenizer.",
         think="States: FIELD_START (nothing read for this field), UNQUOTED, QUOTED, "
               "QUOTE_IN_QUOTED (saw a quote inside quotes: either the closing quote or the "
               "first half of a doubled quote). Collect characters in a list and join once "
               "per field, that also removes the quadratic string building. A newline ends "
               "the record only outside quotes. At the end of input: QUOTED means an "
               "unterminated field -> CSVError; otherwise flush the pending record. "
               "read_rows can pass the file object itself as the iterable of chunks.",
         calls=[write("csvkit_lite/parser.py", PARSER_NEW)])
    d.ai(calls=[bash("python -m pytest -q tests/test_parser.py",
                     ".......F.\n=================================== FAILURES "
                     "===================================\n___________________________ "
                     "test_crlf_line_endings ___________________________\n"
                     "E   AssertionError: assert [['a', 'b\\r'], ['1', '2\\r']] == "
                     "[['a', 'b'], ['1', '2']]\n1 failed, 8 passed in 0.05s", exit_code=1)])
    d.ai("CRLF: the `\\r` ends up in the last field. The old code stripped it per line; in "
         "the state machine the `\\n` ends the record, so a `\\r` outside quotes can be "
         "skipped.",
         calls=[edit("csvkit_lite/parser.py",
                     "                elif ch == '\"' and state is State.FIELD_START:\n",
                     "                elif ch == \"\\r\":\n"
                     "                    continue  # CRLF: the \"\\n\" ends the record\n"
                     "                elif ch == '\"' and state is State.FIELD_START:\n",
                     "+ 58                 elif ch == \"\\r\":\n"
                     "+ 59                     continue  # CRLF: the \"\\n\" ends the record\n"
                     "  60                 elif ch == '\"' and state is State.FIELD_START:\n")])
    d.ai(calls=[bash("python -m pytest -q", "..............\n14 passed in 0.07s")])
    d.ai("And end to end through the CLI, with the file from the issue:",
         calls=[bash("python -m csvkit_lite.cli head examples/issue14.csv",
                     "id | note                       | author\n"
                     "---+----------------------------+-------\n"
                     "1  | first line\\nsecond line    | ana\n"
                     "2  | plain                      | ben\n"
                     "3  | \"quoted\" and, comma       | ana\n")])
    wip = d.ai(
        "All 14 tests pass (5 sniffer + 9 parser), including the three new #14 cases.\n\n"
        "What changed in `csvkit_lite/parser.py`:\n\n"
        "- `Tokenizer.rows(chunks)`: a four-state machine over the characters of the whole "
        "stream; a line break inside quotes is kept in the field.\n"
        "- Fields are collected in a list and joined once, instead of `current += ch`.\n"
        "- `CSVError` for a quoted field that never ends.\n"
        "- `read_rows` and `parse_line` keep their signatures and delegate to `Tokenizer`.")
    ids["wip"] = wip
    b.label(wip, "wip")
    d.user("Why a list plus `join` for the field instead of `io.StringIO`?")
    d.ai("Both avoid the quadratic `current += ch`. For short fields (the common case) "
         "`list.append` + one `\"\".join` is a bit faster than creating a `StringIO` per "
         "field, and it is the idiom most readers know. For very long fields they are about "
         "the same.")
    b.custom_message("test-watcher", "pytest: 14 passed in 0.07s",
                     details={"passed": 14, "failed": 0, "durationMs": 70})
    ids["perf_q"] = d.user("Looks good. How does it perform compared to before on a big file?")
    d.ai("I'll generate a 200k-row file with some quoted fields and time both versions "
         "(the old one from `git stash`).",
         calls=[write("bench/bench_parser.py", BENCH),
                bash("git stash -q && python bench/bench_parser.py; git stash pop -q && "
                     "python bench/bench_parser.py",
                     "200001 rows in 1.84 s\n200001 rows in 2.71 s\n")])
    d.ai("| version | 200k rows (18 MB) |\n|---|---|\n| old, line based | 1.84 s |\n"
         "| new tokenizer | 2.71 s |\n\nThe new reader is about **47% slower**: it now looks "
         "at every character in Python, while the old one let `for line in fh` find the line "
         "ends in C (and got multi-line fields wrong). It is correct now; we can speed up "
         "the unquoted path if that matters for you.")


def _stdlib_side(d: Demo, parent: str) -> None:
    """A fork with its own (manual) compaction: the user explored the stdlib csv module."""
    b = d.b
    saved = b.head
    b.head = parent
    question = d.user("Honest question: should we drop our parser and wrap the stdlib `csv` "
                      "module?")
    d.ai("Let me compare them on the benchmark data and on the #14 sample.",
         calls=[bash("python -c 'import csv, io, time; from bench.bench_parser import DATA; "
                     "t = time.perf_counter(); n = sum(1 for _ in csv.reader(io.StringIO(DATA)))"
                     "; print(n, round(time.perf_counter() - t, 2))'", "200001 0.21\n"),
                bash("python -c 'import csv, io; print(list(csv.reader(io.StringIO("
                     "\"id,note\\n1,\\\"first line\\nsecond line\\\"\\n\"))))'",
                     "[['id', 'note'], ['1', 'first line\\nsecond line']]\n")])
    d.ai("The stdlib reader is about 13x faster (0.21 s; it is written in C) and handles the "
         "#14 case. What we would lose: the README says csvkit-lite is a teaching project "
         "with a readable, pure-Python parser, and `CSVError` would become `csv.Error`.")
    b.compaction(
        "## Goal\nDecide whether csvkit-lite should wrap the stdlib `csv` module instead of "
        "its own parser.\n\n## Findings\n- stdlib `csv.reader`: 0.21 s for 200k rows; our "
        "`Tokenizer`: 2.71 s.\n- Both handle quoted line breaks (#14).\n- Wrapping the "
        "stdlib would change the exception type (`CSVError` -> `csv.Error`) and contradict "
        "the README's goal of a readable pure-Python parser.\n\n## Open\nThe user has not "
        "decided yet.",
        question, {"readFiles": ["bench/bench_parser.py"], "modifiedFiles": []},
        instructions="focus on the stdlib comparison only")
    d.user("OK, we keep ours: the point of the project is a parser people can read. Going "
           "back to the main line.")
    end = d.ai("Makes sense. For the record: if speed ever matters more than readability, "
               "`read_rows` could fall back to `csv.reader` behind a flag.")
    b.head = saved
    b.label(end, "stdlib comparison")


def _speedup(d: Demo, ids: dict[str, str]) -> None:
    b = d.b
    b.model_change("claude-opus-4-5")
    b.thinking_level("high")
    d.user("Can we make it faster? Appending character by character in Python is slow. "
           "Keep it readable though.")
    b.assistant([], stop="error", error='529 {"type":"error","error":{"type":'
                "\"overloaded_error\",\"message\":\"Overloaded\"}}")
    d.user("continue")
    d.ai("Reading the current tokenizer again before changing the hot loop.",
         think="Most characters in real files are inside unquoted fields. In UNQUOTED or "
               "FIELD_START (when the char is not a quote) we can grab the whole run up to "
               "the next delimiter, quote or line break with one precompiled regex match "
               "(`[^,\"\\r\\n]+`, built from the delimiter), which runs in C. Quoted fields can "
               "do the same with `str.find('\"', i)`. That keeps the state machine intact and "
               "turns the per-character loop into a per-token loop. To do that, iterate by "
               "index within each chunk instead of `for ch in chunk`. Chunk boundaries are "
               "fine: a run that is cut just continues in the next chunk because the state "
               "stays UNQUOTED / QUOTED.",
         calls=[read("csvkit_lite/parser.py", PARSER_NEW.replace(
             "                elif ch == '\"' and state is State.FIELD_START:\n",
             "                elif ch == \"\\r\":\n"
             "                    continue  # CRLF: the \"\\n\" ends the record\n"
             "                elif ch == '\"' and state is State.FIELD_START:\n"))])
    d.ai(calls=[edit(
        "csvkit_lite/parser.py",
        "            for ch in chunk:\n                if state is State.QUOTED:\n",
        "            i, n = 0, len(chunk)\n            while i < n:\n"
        "                if state is State.QUOTED:\n"
        "                    end = chunk.find('\"', i)\n"
        "                    if end < 0:  # the field goes on in the next chunk\n"
        "                        field.append(chunk[i:])\n                        break\n"
        "                    field.append(chunk[i:end])\n"
        "                    state, i = State.QUOTE_IN_QUOTED, end + 1\n"
        "                    continue\n"
        "                run = self._run.match(chunk, i)\n"
        "                if run and state is not State.QUOTE_IN_QUOTED:\n"
        "                    field.append(run.group())\n"
        "                    state, i = State.UNQUOTED, run.end()\n"
        "                    continue\n                ch = chunk[i]\n                i += 1\n",
        "-            for ch in chunk:\n+            i, n = 0, len(chunk)\n"
        "+            while i < n:\n+                if state is State.QUOTED:\n"
        "+                    end = chunk.find('\"', i)\n+                    ...\n"
        "+                run = self._run.match(chunk, i)\n+                ...\n"),
        edit("csvkit_lite/parser.py",
             "        self.delimiter = delimiter\n",
             "        self.delimiter = delimiter\n"
             "        # a run of plain characters inside an unquoted field\n"
             "        self._run = re.compile(f'[^{re.escape(delimiter)}\"\\r\\n]+')\n",
             "  32         self.delimiter = delimiter\n+ 33         # a run of plain "
             "characters inside an unquoted field\n+ 34         self._run = re.compile("
             "f'[^{re.escape(delimiter)}\"\\r\\n]+')\n"),
        edit("csvkit_lite/parser.py", "from collections.abc import Iterable, Iterator\n",
             "import re\nfrom collections.abc import Iterable, Iterator\n",
             "+  7 import re\n   8 from collections.abc import Iterable, Iterator\n")])
    d.ai(calls=[bash("python -m pytest -q && python bench/bench_parser.py",
                     "..............\n14 passed in 0.06s\n200001 rows in 0.97 s\n")])
    d.ai("Since the hot loop changed, let me also compare against the stdlib on random "
         "inputs (quotes, delimiters, CR/LF, chunk sizes 1-6):",
         calls=[write("bench/fuzz_vs_stdlib.py", FUZZ),
                bash("python bench/fuzz_vs_stdlib.py --cases 2000",
                     "2000 random inputs, 6 chunk sizes: output identical to csv.reader\n")])
    fast = d.ai(
        "Faster than both previous versions, and still a readable state machine:\n\n"
        "| version | 200k rows | vs. old |\n|---|---|---|\n| old, line based (wrong on #14) "
        "| 1.84 s | 1.0x |\n| tokenizer, per character | 2.71 s | 0.68x |\n"
        "| tokenizer + runs | **0.97 s** | **1.9x** |\n\n"
        "The idea: instead of one loop iteration per character, take whole runs at once.\n\n"
        "```python\nrun = self._run.match(chunk, i)   # [^,\"\\r\\n]+ compiled once\n"
        "if run and state is not State.QUOTE_IN_QUOTED:\n    field.append(run.group())\n"
        "    state, i = State.UNQUOTED, run.end()\n    continue\n```\n\n"
        "Quoted fields jump to the next quote with `str.find`. The per-character branch only "
        "sees delimiters, quotes and line breaks now.")
    b.label(fast, "1.9x faster")
    b.label(ids["wip"], None)
    b.service_tier("priority")
    b.agent_status("Parser refactor done and fast; review and docs left", "in_progress", 58)
    b.custom_role("git-guard", "Reminder: 4 files have uncommitted changes "
                  "(csvkit_lite/parser.py, tests/test_parser.py, bench/bench_parser.py, "
                  "bench/fuzz_vs_stdlib.py).",
                  details={"files": ["csvkit_lite/parser.py", "tests/test_parser.py",
                                     "bench/bench_parser.py", "bench/fuzz_vs_stdlib.py"]})


def _review(d: Demo, ids: dict[str, str]) -> None:
    b = d.b
    d.user("Before I merge: have a reviewer look over the parser diff.")
    target = d.ai("Starting a sub-agent to review the diff with fresh eyes.", calls=[Call(
        "subagent",
        {"task": "Review `git diff main -- csvkit_lite/parser.py` for correctness problems "
                 "(quoting, line ends, end of input, chunk boundaries). Report concrete "
                 "inputs that break it."},
        "Review of csvkit_lite/parser.py\n\n1. `read_rows` passes `fh` as the chunk "
        "iterable, so chunks are *lines*. Correct, but a file with one huge line is read in "
        "one piece. Suggest `iter(lambda: fh.read(65536), \"\")`.\n2. Text after a closing "
        "quote (`\"ab\"c,d`) is appended to the field (`abc`). Same as the stdlib; "
        "worth a test so it stays intentional.\n3. Chunk boundaries: checked a quote as "
        "the last character of a chunk followed by `\"` in the next one; handled, since the "
        "state is kept across chunks.\n\nNo blocking issues.",
        details={"childSession": "csvkit-lite/review-3f9a", "turns": 6})])
    child = usage("claude-sonnet-4-5", 36, 1_840, 21_500, 7_900)
    b.child_usage(target, child, d.last_usage)
    d.ai("No blocking issues. I'll apply the two suggestions.",
         calls=[edit("csvkit_lite/parser.py",
                     "def read_rows(fh: TextIO, delimiter: str = \",\") -> Iterator[list[str]]:"
                     "\n    \"\"\"Yield the rows of an open CSV file.\"\"\"\n"
                     "    return Tokenizer(delimiter).rows(fh)\n",
                     "def _chunks(fh, size=65536):\n"
                     "    \"\"\"Read ``fh`` in blocks of ``size`` characters.\"\"\"\n"
                     "    return iter(lambda: fh.read(size), \"\")\n\n\n"
                     "def read_rows(fh: TextIO, delimiter: str = \",\") -> Iterator[list[str]]:"
                     "\n    \"\"\"Yield the rows of an open CSV file.\"\"\"\n"
                     "    return Tokenizer(delimiter).rows(_chunks(fh))\n",
                     "+ 79 def _chunks(fh, size=65536):\n"
                     "+ 80     \"\"\"Read ``fh`` in blocks of ``size`` characters.\"\"\"\n"
                     "+ 81     return iter(lambda: fh.read(size), \"\")\n"
                     "  ...\n-    return Tokenizer(delimiter).rows(fh)\n"
                     "+    return Tokenizer(delimiter).rows(_chunks(fh))\n"),
                edit("tests/test_parser.py",
                     "def test_unterminated_quote_raises():\n",
                     "def test_text_after_closing_quote_is_kept():\n"
                     "    assert parse_line('\"ab\"c,d') == [\"abc\", \"d\"]\n\n\n"
                     "def test_unterminated_quote_raises():\n",
                     "+ 43 def test_text_after_closing_quote_is_kept():\n"
                     "+ 44     assert parse_line('\"ab\"c,d') == [\"abc\", \"d\"]\n")])
    d.ai(calls=[bash("python -m pytest -q && python bench/bench_parser.py",
                     "...............\n15 passed in 0.06s\n200001 rows in 0.95 s\n")])
    d.ai("Done: `read_rows` now reads 64 KiB chunks (0.95 s on the benchmark, no slower), "
         "and the closing-quote behaviour is pinned by a test. 15 tests pass.")
    b.label(ids["repro"], "bug found: #14 quoted line breaks")


def _docs(d: Demo) -> str:
    """README and CHANGELOG; returns the user's request (the next compaction keeps it)."""
    question = d.user("Update the README section on parsing, and add a CHANGELOG entry.")
    d.ai(calls=[read("CHANGELOG.md", "# Changelog\n\n## Unreleased\n\n## 0.3.0\n\n- CLI: "
                     "`head` and `cols` commands.\n- Sniffer: pipe delimiter.\n"),
                read("README.md", "# csvkit-lite\n\nSmall, readable CSV tools for teaching."
                                  "\n\n" + README_OLD + "\n## Sniffing\n\n`sniff_delimiter("
                                  "sample)` guesses the delimiter.\n")])
    d.ai(calls=[edit("README.md", README_OLD, README_NEW,
                     "-`read_rows(fh)` yields one list of strings per line. Quoted fields may "
                     "contain\n-the delimiter and doubled quotes (`\"\"`).\n+`read_rows(fh)` "
                     "yields one list of strings per record. ...\n"),
                edit("CHANGELOG.md", "## Unreleased\n",
                     "## Unreleased\n\n- Parser: quoted fields may contain line breaks "
                     "(#14); new `Tokenizer`, `CSVError`; about 1.9x faster.\n- Sniffer: "
                     "ties are broken in a fixed order (comma, tab, semicolon, pipe); fixes a "
                     "flaky test.\n",
                     "+- Parser: quoted fields may contain line breaks (#14) ...\n"
                     "+- Sniffer: ties are broken in a fixed order ...\n")])
    d.ai("README and CHANGELOG updated. The README now says that records may span lines, "
         "that the reader streams in 64 KiB chunks, and which error invalid input raises.")
    return question


def _final_check(d: Demo) -> None:
    b = d.b
    d.user("Run the full check: tests, ruff, mypy.")
    d.ai(calls=[bash("python -m pytest -q && ruff check . && mypy csvkit_lite",
                     "...............\n15 passed in 0.06s\nAll checks passed!\n"
                     "csvkit_lite/parser.py:79: error: Function is missing a type annotation  "
                     "[no-untyped-def]\ncsvkit_lite/parser.py:86: error: Call to untyped "
                     "function \"_chunks\" in typed context  [no-untyped-call]\nFound 2 errors "
                     "in 1 file (checked 4 source files)", exit_code=1)])
    d.ai("My fault: the `_chunks` helper I added after the review has no annotations, and "
         "the project runs mypy in strict mode.",
         think="pyproject has strict = true for mypy. _chunks(fh, size=65536) needs "
               "TextIO, int and Iterator[str]. iter(callable, sentinel) is typed as "
               "Iterator[str] when the callable returns str, so nothing else changes.",
         calls=[edit("csvkit_lite/parser.py", "def _chunks(fh, size=65536):\n",
                     "def _chunks(fh: TextIO, size: int = 65536) -> Iterator[str]:\n",
                     "-79 def _chunks(fh, size=65536):\n"
                     "+79 def _chunks(fh: TextIO, size: int = 65536) -> Iterator[str]:\n")])
    d.ai(calls=[bash("python -m pytest -q && ruff check . && mypy csvkit_lite",
                     "...............\n15 passed in 0.06s\nAll checks passed!\n"
                     "Success: no issues found in 4 source files\n")])
    d.ai("Everything is green:\n\n| check | result |\n|---|---|\n| pytest | 15 passed |\n"
         "| ruff | all checks passed |\n| mypy | no issues in 4 files |")
    b.bash_execution("git status --short",
                     " M CHANGELOG.md\n M README.md\n M csvkit_lite/parser.py\n"
                     " M tests/test_parser.py\n?? bench/bench_parser.py\n"
                     "?? bench/fuzz_vs_stdlib.py\n", 0, exclude=True)
    b.git_state("main", True)
    b.session_info("Flaky sniffer fix + CSV parser refactor")
    b.add("future_thing", {"payload": {"kind": "ui_hint", "text": "ready to merge"}})
    d.user("Great. Commit the rest in two commits: the parser refactor, then the docs.")
    d.ai(calls=[bash("git add csvkit_lite/parser.py tests/test_parser.py bench/ && git commit"
                     ' -q -m "parser: state-machine tokenizer, quoted line breaks (#14)"', ""),
                bash('git add README.md CHANGELOG.md && git commit -q -m "docs: parser '
                     'changes" && git log --oneline -3',
                     "c27d5b0 docs: parser changes\n9be1f47 parser: state-machine tokenizer"
                     ", quoted line breaks (#14)\na41c9e2 sniff: break ties in a fixed "
                     "preference order\n")])
    d.ai("Committed:\n\n| commit | message |\n|---|---|\n| `a41c9e2` | sniff: break ties in a "
         "fixed preference order |\n| `9be1f47` | parser: state-machine tokenizer, quoted "
         "line breaks (#14) |\n| `c27d5b0` | docs: parser changes |\n\nThe branch is ready to "
         "push. Remember to drop `PYTHONHASHSEED=0` from your shell so local test runs match "
         "CI.")


COMPACTION_1 = (
    "## Goal\nIn csvkit-lite (`/home/dev/projects/csvkit-lite`): fix the flaky sniffer test, "
    "then refactor the CSV parser so quoted fields may contain line breaks (issue #14).\n\n"
    "## Done\n"
    "- **Flaky test** `test_prefers_comma_on_tie`: `sniff_delimiter` broke ties by iterating "
    "over a `set`, whose order depends on the per-process string hash salt. CI uses random "
    "salts; the user's shell exports `PYTHONHASHSEED=0`. `CANDIDATES` is now a tuple in "
    "preference order (comma, tab, semicolon, pipe). Verified with 30 seeds. Commit "
    "`a41c9e2`.\n"
    "- **Parser**: a regex-based rewrite was tried and abandoned (unreadable, wrong on "
    "doubled quotes and blank lines). `read_rows` now uses a `Tokenizer` state machine "
    "(`FIELD_START`, `UNQUOTED`, `QUOTED`, `QUOTE_IN_QUOTED`) over the whole stream; CRLF "
    "handled; `CSVError` for unterminated quotes; `parse_line` kept as a wrapper. 14 tests "
    "pass. Not committed yet.\n\n"
    "## In progress\n- Performance: `bench/bench_parser.py` (200k rows): old 1.84 s, new "
    "2.71 s. The user asked how it compares.\n\n"
    "## Key decisions\n- Keep the public API (`read_rows`, `parse_line`) unchanged.\n"
    "- Pure Python, readable: this is a teaching project.")
COMPACTION_2 = (
    "## Goal\nIn csvkit-lite: fix the flaky sniffer test (done) and refactor the CSV parser "
    "for quoted line breaks (#14), then update the docs.\n\n"
    "## Done\n- Sniffer tie-break fixed and committed (`a41c9e2`).\n"
    "- `csvkit_lite/parser.py`: `Tokenizer` state machine; runs of plain characters are "
    "taken with a precompiled regex and quoted fields with `str.find`, 0.97 s for 200k rows "
    "(old: 1.84 s, first tokenizer: 2.71 s). `read_rows` reads 64 KiB chunks.\n"
    "- A reviewer sub-agent found no blocking issues; its two suggestions were applied "
    "(chunked reads, test for text after a closing quote). 15 tests pass.\n"
    "- Decided against wrapping the stdlib `csv` module (readability is the point).\n\n"
    "## In progress\n- README \"Parsing\" section and CHANGELOG entry: being written.\n\n"
    "## Next steps\n- Full check (pytest, ruff, mypy), then commit parser and docs "
    "separately.")
READ_FILES = ["csvkit_lite/parser.py", "csvkit_lite/sniff.py", "tests/test_parser.py",
              "tests/test_sniff.py"]


def demo_entries() -> list[Entry]:
    """Header + entries of the demo session (v3, prime dialect)."""
    d = Demo()
    b = d.b
    b.model_change("claude-sonnet-4-5")
    b.thinking_level("medium")
    b.session_state("active")
    b.git_state("main", False)
    ids = _sniff_turns(d)
    _sniff_fix(d, ids)
    _parser_analysis(d, ids)
    fork_point = ids["options"]
    abandoned = _regex_attempt(d)
    b.head = fork_point
    b.branch_summary(
        abandoned,
        "The user first asked for the regex approach (option A). I replaced `read_rows` "
        "with one `re.finditer` over the whole text. It failed on doubled quotes and turned "
        "blank lines into `['']`; a patch fixed those but left an empty trailing row and an "
        "unreadable condition for empty fields. The user called it unreadable and dropped "
        "it. Nothing from that attempt is kept; `csvkit_lite/parser.py` is back to the "
        "original.",
        {"readFiles": ["csvkit_lite/parser.py", "tests/test_parser.py"],
         "modifiedFiles": ["csvkit_lite/parser.py"]})
    _parser_refactor(d, ids)
    bench_answer = b.head
    assert bench_answer is not None
    b.compaction(COMPACTION_1, ids["perf_q"],
                 {"readFiles": READ_FILES, "modifiedFiles": [
                     "bench/bench_parser.py", "csvkit_lite/parser.py", "csvkit_lite/sniff.py",
                     "tests/test_parser.py"]})
    _speedup(d, ids)
    _sniff_side(d, ids["diagnosis"])
    _stdlib_side(d, bench_answer)
    _review(d, ids)
    docs_user = _docs(d)
    b.compaction(COMPACTION_2, docs_user,
                 {"readFiles": [*READ_FILES, "README.md"], "modifiedFiles": [
                     "CHANGELOG.md", "README.md", "bench/bench_parser.py",
                     "csvkit_lite/parser.py", "tests/test_parser.py"]})
    _final_check(d)
    conv = Converter(3, "prime", b.new_id)
    return [conv.header(b.header), *(x for e in b.out for x in conv.convert(e))]
