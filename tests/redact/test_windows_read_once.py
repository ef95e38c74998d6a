"""A window around a wrapped line's break that recurs in many texts (the same lines
pasted, a log read twice) is read by the rules once; each text still has its token
found across the break."""

from __future__ import annotations

import random
from typing import Any

import pytest

from prime_nb.redact import _find, default_rules
from prime_nb.redact._encodings import TAIL_RUN
from prime_nb.redact._rule import dispatch as rule_dispatch
from prime_nb.redact._scrub import Scrubber

#: a GitHub token a terminal wrapped over two lines
WRAPPED = (
    "the deploy key printed by the job was ghp_aB3dE5fG7hJ9kL1mN3pQ5r\n"
    "S7tU9vW1xY3zA5cD7e and then the job went on to the next step\n"
)
FILLER = "the build log went on for a while without anything of note. " * 10


def test_a_recurring_window_is_read_once_and_found_in_each_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read: list[str] = []
    dispatch = rule_dispatch

    def counted(rules: Any, text: str, low: str | None) -> Any:
        read.append(text)
        return dispatch(rules, text, low)

    monkeypatch.setattr(_find, "dispatch", counted)
    scrubber = Scrubber(default_rules(hostnames=[]))
    texts = [f"step {n} of the run\n{FILLER}\n{WRAPPED}" for n in range(12)]
    found = [scrubber.spans(text) for text in texts]
    windows = [text for text in read if "ghp_" in text and "\n" not in text[-60:-1]]
    assert windows  # the rules read a window joined over the break
    assert max(read.count(window) for window in windows) == 1
    for text, spans in zip(texts, found, strict=True):
        crossing = [s for s in spans if s.alias is not None]
        values = {text[s.start : s.end].replace("\n", "") for s in crossing}
        assert "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5cD7e" in values


def test_the_remembered_windows_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows are remembered up to a number of characters, then forgotten."""
    monkeypatch.setattr(_find, "_REMEMBERED_CHARS", 5000)
    scrubber = Scrubber(default_rules(hostnames=[]))
    for n in range(40):
        scrubber.spans(f"{n:05d} " + WRAPPED)
        assert scrubber._rule_memo_size <= 5000
        assert sum(map(len, scrubber._rule_memo)) == scrubber._rule_memo_size
    assert scrubber._rule_memo  # some remembered since the last clearing


def test_a_lines_tail_is_read_as_the_tail_run_reads_it() -> None:
    """The wrapped-token pass tests a line's last characters, not the whole line: the
    same answer as ``TAIL_RUN.search`` on lines of every kind of ending."""
    r = random.Random(5)
    alphabet = "aZ09+/=_-.~ :\"'\t\u00e9"
    for _ in range(3000):
        line = "".join(r.choice(alphabet) for _ in range(r.randrange(8, 40)))
        want = TAIL_RUN.search(line) is not None
        assert (_find._TAIL.fullmatch(line, len(line) - _find._TAIL_LEAST) is not None) == want
