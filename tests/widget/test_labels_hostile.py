"""A node's line is read from untrusted session text: Markdown marks that never close
(a line of ``[``, of ``**a ``, of spaces before a word) are read in time linear in the
line. The old patterns tried each opening mark against the rest of the line, so a
100 KB line of them took 40-110 CPU seconds, and a 1 MB one hours.

The test asserts the answer; a CPU-time guard far above the linear cost (milliseconds)
fails a read that takes longer (Python runs the guard's handler between two calls, so
the old code failed once its minute-long pattern call returned). The time of a 1 MB
line is measured in ``benchmarks/bench_hostile_leftovers.py``."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from prime_nb.widget._labels import first_line

SIZE = 100_000
#: CPU seconds after which a read counts as hung
GUARD = 20
#: a line of unclosed marks of each kind; each is shown as it is (none closes), cut
HOSTILE = {
    "brackets": "x" + "[" * SIZE,
    "images": "x" + "![" * (SIZE // 2),
    "link targets": "x" + "[a](" * (SIZE // 4),
    "bold": "x" + "**a " * (SIZE // 4),
    "underscores": "x" + "__a " * (SIZE // 4),
    "strikes": "x" + "~~a " * (SIZE // 4),
    "spaces before a word": " " * SIZE + "x",
    "a table rule's spaces": "---" + " " * SIZE + "x",
}


def _shown(line: str) -> str:
    """What a reader sees of a line of no Markdown: one space for each run, 200 at most."""
    text = " ".join(line.split())
    return text if len(text) <= 200 else text[:199] + "…"


class Hung(Exception):
    pass


@contextmanager
def cpu_guard(seconds: float) -> Iterator[None]:
    """Raise :class:`Hung` once this process has used ``seconds`` more CPU time."""

    def hung(signum: int, frame: object) -> None:
        raise Hung(f"still reading after {seconds} CPU seconds")

    previous = signal.signal(signal.SIGPROF, hung)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_line_of_unclosed_marks_is_read_in_linear_time(kind: str) -> None:
    line = HOSTILE[kind]
    with cpu_guard(GUARD):
        assert first_line(line) == _shown(line)


@pytest.mark.parametrize(
    ("markdown", "plain"),
    [
        ("see [the page](https://e.org/wiki/A_(b)) now", "see the page now"),
        ("![alt](x.png) and [a](b) [c](d)", "alt and a c"),
        ("**a** and **b**, __c__ ~~d~~", "a and b, c d"),
        ("**bold with *emph* inside**", "bold with emph inside"),
        ("  |  ---  |  :---:  |  \nrow", "row"),
        ("a ** b ** c", "a ** b ** c"),
    ],
)
def test_closed_marks_still_read_as_plain_text(markdown: str, plain: str) -> None:
    assert first_line(markdown) == plain
