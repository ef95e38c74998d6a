"""Every pattern's literal hits or shape ends in a long text, found in one Hyperscan scan.

Why: ``_literals.finditer`` reads a long text once for each pattern tried on it: a scan
for the pattern's literals, or, where they stand everywhere, for where its shape ends
(``_shape_ends``). The patterns a text is tried with are known before any runs (the
rules its dispatch leaves in), so their questions go into one database, each match's id
naming the question it answers, and the text is read once for all of them.

Each answer is the one the question's own scan gives: a literal's starts, reported once
(a hit that starts in a piece's overlap is the next piece's), and a shape's ends within
the same stretch of each piece that its own scan reads (``CHUNK`` characters and its
reach), less any its own scan reports where the piece's end stands for a character the
shape reads after it (here the longer piece holds that character, which decides). A
question with more answers than its cap has none (its own scan stops there
too); a text wider than Latin-1, a database Hyperscan refuses or a scan that keeps
reporting hits no question wants any more answers nothing, and every pattern then runs
its own scan. Python's regex still decides every match.
"""

from __future__ import annotations

import contextlib
import functools
import re
import threading
from array import array
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import hyperscan

from ._compiled import compiled
from ._engine import CHUNK, EXACT
from ._shape_ends import ShapeEnds, merged

#: a question answered by where its literals start
HITS = 0
#: a question answered by where its shape's form ends
ENDS = 1
#: a long text's shape ends are worth windows up to one a this many characters per
#: character of reach (``_literals``' density)
DENSITY = 16
#: how many hits past their questions' caps end the scan (it then answers nothing)
SPARE = 1 << 16

#: the regexes finders try on every text they read, besides those their rules name
ALSO: list[re.Pattern[str]] = []


def also_expected(*patterns: re.Pattern[str]) -> None:
    """Have ``_literals.Presence.expect`` answer for ``patterns`` too (a finder's)."""
    ALSO.extend(p for p in patterns if p not in ALSO)


class Question(NamedTuple):
    """``kind``: :data:`HITS` of ``items`` (``(literal, mode)``), or :data:`ENDS` of one
    item (``(form, reach)``, a ``_shape_ends`` form); at most ``cap`` answers."""

    kind: int
    items: tuple[tuple[Any, int], ...]
    cap: int


class Answer(NamedTuple):
    """A question's answer: its sorted positions, or None past its cap."""

    question: Question
    found: Sequence[int] | None


def _expression(kind: int, item: tuple[Any, int]) -> tuple[bytes, int, int] | None:
    """(expression, flags, length of a literal or reach of a form); None for a literal
    no Latin-1 text (lower-cased, when not exact) holds."""
    if kind == ENDS:
        form, reach = item
        return form, 0, reach
    literal, mode = item
    if mode != EXACT and literal != literal.lower():
        return None
    try:
        encoded = literal.encode("latin-1")
    except UnicodeEncodeError:
        return None
    caseless = hyperscan.HS_FLAG_CASELESS if mode != EXACT else 0
    return b"".join(b"\\x%02x" % byte for byte in encoded), caseless, len(literal)


class Scan:
    """The database of some questions' items, each id naming its question."""

    def __init__(self, questions: tuple[Question, ...]) -> None:
        self.questions = questions
        expressions, flags = [], []
        #: for each id: its question, and its literal's length or its form's reach
        self.owner: list[tuple[int, int]] = []
        for index, question in enumerate(questions):
            for item in question.items:
                made = _expression(question.kind, item)
                if made is not None:
                    expressions.append(made[0])
                    flags.append(made[1])
                    self.owner.append((index, made[2]))
        self.overlap = max((size for _, size in self.owner), default=0)
        self._db: Any = None
        if expressions:
            with contextlib.suppress(hyperscan.error):
                self._db = compiled(expressions, list(range(len(expressions))), flags)
        self._lock = threading.Lock()

    def answers(self, text: str) -> list[Answer] | None:
        """Each question's answer in ``text``; None when the scan cannot give them."""
        if self._db is None:
            return [Answer(q, []) for q in self.questions] if not self.owner else None
        # 8 bytes a position (the questions' answers are held together, each up to its cap)
        found: list[array[int] | None] = [array("q") for _ in self.questions]
        caps = [q.cap for q in self.questions]
        ends = [q.kind == ENDS for q in self.questions]
        owner = self.owner
        spare = SPARE
        stopped = False
        at = own = 0

        def event(item: int, _from: int, end: int, _flags: int, _ctx: object) -> bool:
            nonlocal spare, stopped
            index, size = owner[item]
            held = found[index]
            if held is None:  # past its cap
                spare -= 1
                stopped = spare < 0
                return stopped
            if ends[index]:
                if end > own + size:
                    return False  # beyond what its own scan of the piece reads
                held.append(at + end)
            else:
                if end - size >= own:
                    return False  # the next piece's (it starts there)
                held.append(at + end - size)
            if len(held) > caps[index]:
                found[index] = None
            return False

        for at in range(0, len(text), CHUNK):
            own = min(CHUNK, len(text) - at)
            try:
                data = text[at : at + CHUNK + self.overlap].encode("latin-1")
            except UnicodeEncodeError:
                return None
            with self._lock, contextlib.suppress(hyperscan.ScanTerminated):
                self._db.scan(data, match_event_handler=event)
            if stopped:
                return None
        return [
            Answer(q, None if held is None else array("q", sorted(held)))
            for q, held in zip(self.questions, found, strict=True)
        ]


@functools.lru_cache(maxsize=64)
def scan_of(questions: tuple[Question, ...]) -> Scan:
    """The compiled scan of ``questions`` (compiled once)."""
    return Scan(questions)


def answered(answer: Answer | None, kind: int, budget: int) -> tuple[bool, Sequence[int] | None]:
    """(whether ``answer`` tells, the positions: None past ``budget``) for a question of
    ``kind`` asked with ``budget``: it does not tell past its own cap, for a larger one."""
    if answer is None or answer.question.kind != kind:
        return False, None
    if answer.found is not None:
        return True, None if len(answer.found) > budget else answer.found
    return budget <= answer.question.cap, None


def ends_budget(text: str, ends: ShapeEnds) -> int:
    """The most ends of a shape worth its windows in ``text``."""
    return len(text) // DENSITY // (ends.reach or 1) + 1


def shape_windows(
    ends: ShapeEnds, text: str, answer: Answer | None
) -> list[tuple[int, int]] | None:
    """``ends.windows`` of ``text`` (with its budget), from ``answer`` when it tells."""
    budget = ends_budget(text, ends)
    known, found = answered(answer, ENDS, budget)
    if not known or ends.reach is None:
        return ends.windows(text, budget)
    return None if found is None else merged(found, ends.reach)


def hit_windows(hits: Sequence[int], lead: int) -> Iterator[tuple[int, int]]:
    """The positions a match can start at, ``[hit - lead, hit]`` for each hit, merged."""
    first = last = -1
    for hit in hits:
        start = max(0, hit - lead)
        if start > last + 1 and last >= 0:
            yield first, last
            first = start
        elif last < 0:
            first = start
        last = max(last, hit)
    if last >= 0:
        yield first, last
