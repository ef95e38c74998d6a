"""Where a regex can match at all: literals that every match holds, found with ``str.find``.

Why: Python's ``re`` tries a pattern at every position of a text, and most of redaction's
patterns begin with a lookbehind or a character class, which it cannot skip ahead on. But
nearly every pattern holds a fixed piece (``ghp_``, ``AKIA``, ``password``) at a bounded
distance from where its match starts. Read off the parsed pattern once, those pieces are
found by a substring search (many times faster than the regex's scan), and the pattern is
then tried only where a match could start: ``pattern.match`` at those positions, on the
whole text, so lookbehinds, lookaheads and greedy runs see what they would see in a scan.
A text without any of the pieces is not read by the pattern at all.

The result is the same as ``pattern.finditer``: every match starts within ``lead``
characters before a piece, so the positions tried hold every match, in order, and each is
tried as the scan would try it. A pattern with no such piece, or one that can match the
empty string, runs whole. With ``re.IGNORECASE`` (anywhere in the pattern) the pieces are
looked for in a lower-cased copy; the three characters that ``re`` matches to an ASCII
letter but ``str.lower`` does not turn into it (dotted and dotless i, long s) are mapped
first, and the copy keeps every offset.
"""

from __future__ import annotations

import functools
import re
import re._constants as sre_constants  # type: ignore[import-not-found,unused-ignore]
import re._parser as sre_parse  # type: ignore[import-not-found,unused-ignore]
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from weakref import ref

from ._engine import EXACT, FOLD, LOWER, Literals, literals, run, usable
from ._long_scan import (
    ALSO,
    ENDS,
    HITS,
    Answer,
    Question,
    answered,
    ends_budget,
    hit_windows,
    scan_of,
    shape_windows,
)
from ._prefilter import scans_slowly, tried
from ._run_led import finditer as run_led_finditer
from ._shape_ends import shape_ends

#: what a token is made of (``_rule._token_run``): with the patterns' IGNORECASE,
#: ``[a-z]`` also takes dotted and dotless i, long s and the Kelvin sign
TOKEN_CHARS = (
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-\u0130\u0131\u017f\u212a"
)
#: a width no pattern reaches (a repeat without an upper bound)
_UNBOUNDED = 1 << 40
#: the most literals a set of alternatives is expanded to
_MAX_SET = 64
#: a text this short is tested for the pieces with ``in`` and then scanned whole
SHORT = 4096
#: beyond this many positions to try per character of text, the whole scan is cheaper
_DENSITY = 16
#: a pattern whose search tries every position (``scans_slowly``) scans a character in
#: about the time a window of its hits is tried in, over this many
_SLOW_SCAN = 96
#: a pattern with more literals than this scans a long text whole: each literal is one
#: substring search of the text, and together they cost more than the regex's scan
_MOST_FINDS = 24
#: a text this long whose literals are many is tried where its patterns' shapes end
#: (``_shape_ends``), not around each literal: a shape is compiled when a text first
#: needs it, and
#: its compiler's few megabytes for a moment are small beside such a text
SHAPE_MIN = 1 << 25
#: a text with more literal hits than one per this many characters is worth its
#: patterns' shapes (below that, their compiling costs more than the hits)
SHAPE_WORTH = 1 << 13
#: how much of a long text's start is read for its literals' density first
SHAPE_SAMPLE = 1 << 20
#: a long text is lower-cased a piece at a time (no copy of the whole)
_PIECE = 1 << 16
#: characters ``re.IGNORECASE`` matches to ``i`` or ``s`` that ``str.lower`` keeps apart
#: (U+0130 would also change the length), replaced by ``str.replace``, a search in C
#: (``str.translate`` looks up every character of a text wider than ASCII)
_FOLD = (("\u0130", "i"), ("\u0131", "i"), ("\u017f", "s"))


@dataclass(frozen=True)
class Plan:
    """Every match holds one of ``literals``, starting at most ``lead`` characters after
    the match's start; ``folded``: looked for in the lower-cased text."""

    literals: tuple[str, ...]
    lead: int
    folded: bool


@dataclass(frozen=True)
class _Info:
    """What a piece of a parsed pattern consumes (``low``, ``high`` characters), the set
    of strings it matches when that is small (``exact``), and its best required literals
    with their largest offset from the piece's start (``factor``)."""

    low: int
    high: int
    exact: frozenset[str] | None
    factor: tuple[frozenset[str], int] | None


_NEUTRAL = _Info(0, 0, frozenset({""}), None)
_UNKNOWN = _Info(0, _UNBOUNDED, None, None)


def _score(factor: tuple[frozenset[str], int]) -> tuple[int, int, int]:
    """Longer literals first (rarer: fewer places to try), then fewer of them (each is
    one substring search of the text), then a shorter lead."""
    shortest = min(len(s) for s in factor[0])
    return min(shortest, 4), -len(factor[0]), -factor[1]


def _usable(factor: tuple[frozenset[str], int] | None) -> bool:
    return (
        factor is not None
        and factor[1] < _UNBOUNDED
        and bool(factor[0])
        and min(len(s) for s in factor[0]) >= 1
    )


def _better(
    best: tuple[frozenset[str], int] | None, other: tuple[frozenset[str], int] | None
) -> tuple[frozenset[str], int] | None:
    if other is None or not _usable(other):
        return best
    if best is None or _score(other) > _score(best):
        return other
    return best


def _add(a: int, b: int) -> int:
    return min(a + b, _UNBOUNDED)


def _sequence(items: Any, flags: list[int]) -> _Info:
    low = high = 0
    best: tuple[frozenset[str], int] | None = None
    run: set[str] | None = {""}
    run_at = 0
    whole = True  # every item so far is exact and the run never restarted
    for op, av in items:
        info = _node(op, av, flags)
        if info.factor is not None:
            best = _better(best, (info.factor[0], _add(high, info.factor[1])))
        if info.exact is not None and run is not None and len(run) * len(info.exact) <= _MAX_SET:
            run = {a + b for a in run for b in info.exact}
        else:
            whole = False
            if run is not None:
                best = _better(best, (frozenset(run), run_at))
            if info.exact is not None and len(info.exact) <= _MAX_SET:
                run, run_at = set(info.exact), high
            else:
                run, run_at = {""}, _add(high, info.high)
        low, high = _add(low, info.low), _add(high, info.high)
    if run is not None:
        best = _better(best, (frozenset(run), run_at))
    exact = frozenset(run) if whole and run is not None else None
    return _Info(low, high, exact, best)


def _node(op: Any, av: Any, flags: list[int]) -> _Info:
    c = sre_constants
    if op is c.LITERAL:
        return _Info(1, 1, frozenset({chr(av)}), None)
    if op in (c.NOT_LITERAL, c.ANY, c.CATEGORY):
        return _Info(1, 1, None, None)
    if op is c.IN:
        chars: set[str] = set()
        for kind, value in av:
            if kind is c.LITERAL:
                chars.add(chr(value))
            elif kind is c.RANGE and value[1] - value[0] < 8:
                chars.update(chr(v) for v in range(value[0], value[1] + 1))
            else:
                return _Info(1, 1, None, None)
        return _Info(1, 1, frozenset(chars) if len(chars) <= 8 else None, None)
    if op in (c.AT, c.ASSERT_NOT):
        return _NEUTRAL
    if op is c.ASSERT:
        direction, body = av
        if direction != 1:
            return _NEUTRAL  # a lookbehind reads before the match's start
        inner = _sequence(body, flags)
        return _Info(0, 0, frozenset({""}), inner.factor if _usable(inner.factor) else None)
    if op is c.SUBPATTERN:
        _, add_flags, _, body = av
        flags[0] |= add_flags
        return _sequence(body, flags)
    if op is c.ATOMIC_GROUP:
        return _sequence(av, flags)
    if op is c.BRANCH:
        return _branch([_sequence(alt, flags) for alt in av[1]])
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
        least, most, body = av
        inner = _sequence(body, flags)
        high = _UNBOUNDED if most == c.MAXREPEAT else min(most * inner.high, _UNBOUNDED)
        exact: frozenset[str] | None = None
        if inner.exact is not None and (least, most) == (0, 1):
            exact = inner.exact | {""}
        elif inner.exact is not None and least == most == 1:
            exact = inner.exact
        return _Info(least * inner.low, high, exact, inner.factor if least >= 1 else None)
    if op is c.GROUPREF_EXISTS:
        _, yes, no = av
        if no is None:
            return _UNKNOWN
        both = _branch([_sequence(yes, flags), _sequence(no, flags)])
        return _Info(both.low, both.high, None, both.factor)
    return _UNKNOWN


def _branch(alts: list[_Info]) -> _Info:
    low = min(a.low for a in alts)
    high = max(a.high for a in alts)
    exact: frozenset[str] | None = None
    if all(a.exact is not None for a in alts):
        union = frozenset().union(*(a.exact for a in alts if a.exact is not None))
        exact = union if len(union) <= _MAX_SET else None
    factor: tuple[frozenset[str], int] | None = None
    if all(_usable(a.factor) for a in alts):
        sets = [a.factor for a in alts if a.factor is not None]
        literals = frozenset().union(*(s for s, _ in sets))
        factor = (literals, max(d for _, d in sets))
    return _Info(low, high, exact, factor)


@functools.lru_cache(maxsize=512)
def plan_of(pattern: re.Pattern[str]) -> Plan | None:
    """The literals every match of ``pattern`` holds and how far into it, or None (the
    pattern runs whole)."""
    if not isinstance(pattern.pattern, str):
        return None
    try:
        parsed = sre_parse.parse(pattern.pattern, pattern.flags)
        if parsed.getwidth()[0] == 0:
            return None  # an empty match: finditer's stepping rules, not ours
        flags = [pattern.flags]
        info = _sequence(parsed, flags)
    except (re.error, RecursionError, TypeError, ValueError, AttributeError):
        return None
    if info.factor is None or not _usable(info.factor):
        return None
    literals, lead = info.factor
    folded = bool(flags[0] & re.IGNORECASE)
    if folded:
        if not all(s.isascii() for s in literals):
            return None
        literals = frozenset(s.lower() for s in literals)
    # a literal that holds another is found wherever the other is: keep the shorter
    kept = [s for s in literals if not any(o != s and o in s for o in literals)]
    # the offset counts from a kept literal's start, which may lie inside a longer one
    longest = max(len(s) for s in literals)
    return Plan(tuple(sorted(kept)), lead + longest, folded)


def fold(text: str) -> str:
    """``text`` lower-cased as ``re.IGNORECASE`` sees ASCII letters, offsets kept."""
    for char, ascii_letter in _FOLD:  # no search where the text is narrower than the char
        text = text.replace(char, ascii_letter)
    return text.lower()


#: the piece of a long text lower-cased at a time, and the overlap that keeps a hint cut
#: between two pieces whole (a hint is shorter)
HINT_PIECE = 1 << 16
HINT_OVERLAP = 64


def hinted_in_pieces(text: str, hints: tuple[str, ...]) -> bool:
    """Whether ``text`` lower-cased holds one of ``hints``, without a copy of the whole."""
    for at in range(0, len(text), HINT_PIECE):
        piece = text[at : at + HINT_PIECE + HINT_OVERLAP].lower()
        if any(hint in piece for hint in hints):
            return True
    return False


@dataclass(frozen=True)
class Primer:
    """One scan's worth of many groups of literals: the compiled items, and each
    group's items by ``(id(parts), where)``; ``parts`` holds the tuples, so that no other
    takes their ids while this is known."""

    engine: Literals
    groups: dict[tuple[int, int], tuple[int, ...]]
    parts: tuple[tuple[str, ...], ...]


#: primers by the groups' identities (the rules' tuples live as long as the rules)
_primers: dict[tuple[tuple[int, int], ...], Primer] = {}
_MOST_PRIMERS = 64
_MODES = (EXACT, LOWER, FOLD)


def _latin1(part: str) -> bool:
    """Whether ``part`` can be in a Latin-1 text, lower-cased or folded (the only texts
    the scan answers for): a character beyond Latin-1 never is, since no Latin-1
    character lowers to one. Such a part is left out of its group, not the group out of
    the scan (a hint such as ``…`` beside ASCII ones)."""
    return all(ord(char) < 256 for char in part)


def _primer(groups: list[tuple[tuple[str, ...], int]]) -> Primer:
    key = tuple((id(parts), where) for parts, where in groups)
    primer = _primers.get(key)
    if primer is None:
        kept = [
            (parts, where, tuple(part for part in parts if _latin1(part)))
            for parts, where in groups
            if parts and all(usable(part, _MODES[where]) or not _latin1(part) for part in parts)
        ]
        items = sorted({(part, _MODES[where]) for _, where, held in kept for part in held})
        index = {item: i for i, item in enumerate(items)}
        primer = Primer(
            literals(tuple(items)),
            {
                (id(parts), where): tuple(index[part, _MODES[where]] for part in held)
                for parts, where, held in kept
            },
            tuple(parts for parts, _ in groups),
        )
        if len(_primers) >= _MOST_PRIMERS:
            _primers.clear()
        _primers[key] = primer
    return primer


class Presence:
    """Which of the rules' cheap tests one text passes, each worked out once: many rules
    share a tuple of needed substrings (the blanks), a hint or a literal. ``low`` is the
    text lower-cased (``str.lower``, what hints are tested against)."""

    __slots__ = (
        "__weakref__",
        "_alive",
        "_answers",
        "_folded",
        "_found",
        "_parts",
        "_primer",
        "_runs",
        "_seen",
        "low",
        "text",
    )

    def __init__(self, text: str, low: str | None) -> None:
        self.text, self.low = text, low
        self._folded: str | None = low if low is not None and text.isascii() else None
        self._seen: dict[tuple[int, int], bool] = {}
        #: the tuples known by identity, held so that no other takes their id meanwhile
        self._alive: list[tuple[str, ...]] = []
        self._runs: dict[int, bool] = {}
        self._parts: dict[str, bool] = {}
        self._primer: Primer | None = None
        self._found: set[int] = set()
        self._answers: dict[re.Pattern[str], Answer] = {}

    def any_in(self, parts: tuple[str, ...], where: int) -> bool:
        """Whether one of ``parts`` is in the text (``where`` 0), its ``low`` (1) or its
        folded form (2); remembered by the tuple's identity, so pass long-lived tuples."""
        key = (id(parts), where)
        known = self._seen.get(key)
        if known is None:
            known = self._primed(key)
        if known is None:
            if where == 1 and self.low is None:
                self.find_hints([parts])
                return self._seen[key]
            if where == 2 and self._folded is None:
                self._folded = fold(self.text)
            hay = self.text if where == 0 else self.low if where == 1 else self._folded
            assert hay is not None
            if where == 0 and self.low is None:  # a long text: each substring read once
                known = any(self._holds(part) for part in parts)
            else:
                known = any(part in hay for part in parts)
            self._seen[key] = known
            self._alive.append(parts)
        return known

    def _holds(self, part: str) -> bool:
        held = self._parts.get(part)
        if held is None:
            held = self._parts[part] = part in self.text
        return held

    def prime(self, groups: list[tuple[tuple[str, ...], int]]) -> None:
        """``any_in`` of each ``(parts, where)`` worked out in one scan of the text for
        all of them (when the scan can answer for this text), each answer read when
        asked; pass the same long-lived tuples for every text."""
        self.prime_with(_primer(groups))

    def prime_with(self, primer: Primer) -> None:
        """:meth:`prime` with the groups' primer known (see :func:`primer_of`)."""
        found = primer.engine.present(self.text)
        if found is not None:
            self._primer, self._found = primer, found

    def found(self) -> set[int] | None:
        """The primer's items the scan found in the text (None: the scan could not
        answer for it, a text wider than Latin-1)."""
        return self._found if self._primer is not None else None

    def _primed(self, key: tuple[int, int]) -> bool | None:
        """The scan's answer for ``key`` (remembered), or None when it has none."""
        if self._primer is None:
            return None
        indices = self._primer.groups.get(key)
        if indices is None:
            return None
        found = self._found
        known = self._seen[key] = any(i in found for i in indices)
        return known

    def find_hints(self, groups: list[tuple[str, ...]]) -> None:
        """For a text with no lower-cased copy (a long one): whether it holds one of each
        group of hints, all groups in one lower-casing of its pieces (``HINT_PIECE``
        characters and ``HINT_OVERLAP`` more, so that a hint cut between two is whole in
        one), not one per rule."""
        pending = {
            id(parts): parts
            for parts in groups
            if (id(parts), 1) not in self._seen and self._primed((id(parts), 1)) is None
        }
        self._alive.extend(pending.values())
        for at in range(0, len(self.text), HINT_PIECE):
            if not pending:
                break
            piece = self.text[at : at + HINT_PIECE + HINT_OVERLAP].lower()
            for key, parts in list(pending.items()):
                if any(part in piece for part in parts):
                    self._seen[key, 1] = True
                    del pending[key]
        for key in pending:
            self._seen[key, 1] = False

    def expect(self, patterns: list[re.Pattern[str]], also: bool = True) -> None:
        """For a text of :data:`SHAPE_MIN` or more: what :func:`finditer` of each of
        ``patterns`` reads the whole text for (its literals' hits, or its shape's ends
        where they stand everywhere), found in one scan for all (``_long_scan``);
        ``also``: the finders' patterns (``ALSO``) too, as a rule dispatch asks."""
        text, questions, asked = self.text, [], []
        if len(text) < SHAPE_MIN:
            return
        for pattern in dict.fromkeys([*patterns, *(ALSO if also else ())]):
            plan = plan_of(pattern)
            engine = _engine_of(plan) if plan is not None else None
            if plan is None or engine is None or not engine.handles(text):
                continue
            budget, few = _budgets(text, plan, pattern)
            if few < budget and _hits(text[:SHAPE_SAMPLE], plan, _SAMPLED) is None:
                ends = shape_ends(pattern)
                if ends.answered():
                    cap = ends_budget(text, ends)
                    questions.append(Question(ENDS, ((ends.form, ends.reach or 0),), cap))
                    asked.append(pattern)
                continue
            questions.append(Question(HITS, engine.items, min(few, budget)))
            asked.append(pattern)
        answers = scan_of(tuple(questions)).answers(text) if questions else None
        if answers is not None:  # a finder's ``finditer`` is given no presence: it finds it
            self._answers, _expected.presence = dict(zip(asked, answers, strict=True)), ref(self)

    def answer(self, pattern: re.Pattern[str], text: str) -> Answer | None:
        """What :meth:`expect` found for ``pattern`` in ``text`` (None: not asked)."""
        return self._answers.get(pattern) if text is self.text else None

    def has_run(self, pattern: re.Pattern[str], length: int) -> bool:
        """Whether ``pattern`` (``_rule._token_run(length)``) is in the text."""
        known = self._runs.get(length)
        if known is None:
            if len(self.text) > SHORT:  # one pass in C; a short text's search stops soon
                known = run(TOKEN_CHARS, length).in_text(self.text)
            else:
                known = pattern.search(self.text) is not None
            self._runs[length] = known
        return known


def finditer(
    pattern: re.Pattern[str], text: str, presence: Presence | None = None
) -> Iterator[re.Match[str]]:
    """The matches of ``pattern.finditer(text)``, the pattern tried only where one can
    start (see the module's docstring); ``presence``: the text's, when many patterns
    read it."""
    plan = plan_of(pattern)
    if plan is None:  # a long text: in the runs before a literal, where that tells
        yield from run_led_finditer(pattern, text)
        return
    if len(text) <= SHORT:
        if presence is not None and presence.text is text:
            held = presence.any_in(plan.literals, 2 if plan.folded else 0)
        else:
            hay = fold(text) if plan.folded else text
            held = any(s in hay for s in plan.literals)
        if held:
            yield from pattern.finditer(text)
        return
    if len(plan.literals) > _MOST_FINDS and not _engine_of(plan).handles(text):
        yield from pattern.finditer(text)  # one search of the text per literal costs more
        return
    budget, few = _budgets(text, plan, pattern)
    asked = getattr(_expected, "presence", _gone)() if presence is None else presence
    answer = asked.answer(pattern, text) if asked is not None else None
    # the text's start tells a literal that stands everywhere (then not read to the end)
    dense = few < budget and _hits(text[:SHAPE_SAMPLE], plan, _SAMPLED) is None
    hits = None if dense else _hits(text, plan, min(few, budget), answer)
    windows: Iterable[tuple[int, int]] | None = None
    if hits is None and few < budget:  # literals everywhere: their shape, where it ends
        windows = shape_windows(shape_ends(pattern), text, answer)
        if windows is None:
            hits = _hits(text, plan, budget, answer)
    if windows is None:
        if hits is None:
            yield from pattern.finditer(text)
            return
        windows = hit_windows(hits, plan.lead)
    yield from tried(pattern, text, windows)


#: the presence whose text ``expect`` read last, in this thread (while it lives)
_expected = threading.local()
_gone: Callable[[], None] = lambda: None  # noqa: E731


def _budgets(text: str, plan: Plan, pattern: re.Pattern[str]) -> tuple[int, int]:
    """The most hits worth windows in ``text``, and (from :data:`SHAPE_MIN` on) the most
    worth them rather than the pattern's shape. A pattern Python's search tries at every
    position costs about a window's tries every :data:`_SLOW_SCAN` characters."""
    budget = len(text) // _DENSITY // (plan.lead + 1) + 1
    if scans_slowly(pattern):
        budget = max(budget, len(text) // _SLOW_SCAN)
    return budget, len(text) // SHAPE_WORTH if len(text) >= SHAPE_MIN else budget


#: the most hits in a long text's sample of a literal that does not stand everywhere
_SAMPLED = SHAPE_SAMPLE // SHAPE_WORTH


def _hits(text: str, plan: Plan, budget: int, answer: Answer | None = None) -> Sequence[int] | None:
    """Where each literal starts in ``text``, sorted; None past ``budget`` of them;
    from ``answer`` when it gives them."""
    known, hits = answered(answer, HITS, budget)
    if known:
        return hits
    handled, hits = _engine_of(plan).positions(text, budget)
    if handled:
        return hits
    found: list[int] = []
    for offset, hay, limit in _pieces(text, plan):
        for literal in plan.literals:
            at = hay.find(literal)
            while 0 <= at < limit:
                found.append(offset + at)
                if len(found) > budget:
                    return None
                at = hay.find(literal, at + 1)
    found.sort()
    return found


def primer_of(groups: list[tuple[tuple[str, ...], int]]) -> Primer:
    """The one scan of ``groups`` (see :meth:`Presence.prime`); keep it with the groups."""
    return _primer(groups)


def compile_for(groups: list[tuple[tuple[str, ...], int]]) -> None:
    """Compile the scan of ``groups`` (see ``Presence.prime``) now: the largest
    database, which every string needs (a plan's own is compiled when a long text
    first needs it)."""
    _primer(groups).engine.compile(True)


def _engine_of(plan: Plan) -> Literals:
    mode = FOLD if plan.folded else EXACT
    return literals(tuple((literal, mode) for literal in plan.literals))


def _pieces(text: str, plan: Plan) -> Iterator[tuple[int, str, int]]:
    """(offset, text to search, where a hit may start in it): the text itself, or, for
    folded literals, the text lower-cased a piece at a time (no copy of a long text),
    each piece longer by a literal's length so that a literal cut between two pieces is
    found in the first."""
    if not plan.folded:
        yield 0, text, len(text)
        return
    overlap = max(len(s) for s in plan.literals) - 1
    for at in range(0, len(text), _PIECE):
        yield at, fold(text[at : at + _PIECE + overlap]), _PIECE
