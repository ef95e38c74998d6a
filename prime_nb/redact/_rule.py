"""The Rule: one kind of secret, a name and how to find its spans in one string.

Apart from the rule list (``_rules``) because the shape of a rule, with its cheap tests
of whether a text can hold a match at all (hints, needed substrings, a start, a run of
token characters), is one idea, and the list of what counts as a secret is another.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from ._engine import run
from ._literals import (
    TOKEN_CHARS,
    Presence,
    Primer,
    compile_for,
    finditer,
    hinted_in_pieces,
    plan_of,
    primer_of,
)
from ._prefilter import Shapes, shapes

#: a callable rule: the string in, the spans to replace out (``(start, end)`` or substrings)
Finder = Callable[[str], Iterable[tuple[int, int] | str]]

#: characters trimmed off a whole-pattern match (detect-secrets' Artifactory patterns eat them)
_EDGE = " \t\r\n=:'\"`,;"


def secret_placeholder(rule: str, n: int) -> str:
    return f"[REDACTED:{rule}:{n}]"


@dataclass(frozen=True)
class Rule:
    """One kind of secret: a name (shown in the report), and how to find its spans.

    ``pattern`` spans are the group ``group`` (a name or number; the first group that
    matched when ``group`` is None and the pattern has groups; else the whole match).
    ``valid`` filters candidate values (an entropy test, a JWT's structure).
    ``placeholder`` makes the n-th distinct value's replacement for this rule.
    """

    name: str
    pattern: re.Pattern[str] | None = None
    finder: Finder | None = None
    group: int | str | None = None
    valid: Callable[[str], bool] | None = None
    placeholder: Callable[[int, str], str] | None = None
    #: a cheap test that must pass before the pattern runs (a substring, lower-cased)
    hints: tuple[str, ...] = field(default=())
    #: substrings (as written) of which every match holds one: its operator, a blank, a
    #: fixed part. A text with none is not read by the pattern or finder: a long base64
    #: blob holds every short hint, but no ``=`` or blank. Tested with ``in``, which is
    #: far cheaper than a regex search of a long text
    needs: tuple[str, ...] = field(default=())
    #: or the text starts with one of these (a pattern's ``^`` branch)
    starts: tuple[str, ...] = field(default=())
    #: a run of this many token characters (``[A-Za-z0-9_-]``) that every match holds: a
    #: text of prose and short words is not read by a pattern that wants a long value
    run: int = 0
    #: take the first group only when it ends the match (``key = "<group>"``), else the
    #: whole match (``(ghp|gho)_...`` groups a prefix): detect-secrets' patterns mix both
    group_if_trailing: bool = False
    #: replace the values found only where they stand as whole words
    word_bounded: bool = False
    #: whether a value this rule finds is replaced everywhere in the file (True, or a test
    #: of the value), or only where the rule found it: a rule that reads context can be
    #: wrong, and a wrong guess must not spread to every message
    confident: bool | Callable[[str], bool] = True
    #: regexes one of which matches wherever the rule finds anything (a finder that
    #: yields only spans of some regexes' matches names them; a rule with a pattern and
    #: no finder has its pattern): a text where none of their necessary forms
    #: (``_prefilter``) matches is not read by the rule. An empty tuple: none (a rule
    #: whose literals suffice, and whose pattern changes from one redaction to the next)
    shape: tuple[re.Pattern[str], ...] | None = None

    def needed_shapes(self) -> tuple[re.Pattern[str], ...]:
        """The regexes without a match of one of which this rule finds nothing; none
        when not known."""
        if self.shape is not None:
            return self.shape
        return (self.pattern,) if self.pattern is not None and self.finder is None else ()

    def spans(
        self, text: str, low: str | None = None, presence: Presence | None = None
    ) -> Iterator[tuple[int, int]]:
        """The spans of ``text`` this rule replaces, in any order (``low``: the text
        lower-cased, and ``presence``: its cheap tests, when the caller runs many rules
        over one text)."""
        if presence is not None and presence.text is not text:
            presence = None
        if not self.admits(text, presence):
            return
        if self.hints:
            if presence is not None:
                hinted = presence.any_in(self.hints, 1)
            elif low is None:  # no lower-cased copy of a long text: its pieces, one at a time
                hinted = hinted_in_pieces(text, self.hints)
            elif len(low) > _PIECE_BY_FIND:
                hinted = any(hint in low for hint in self.hints)
            else:
                hinted = bool(_hint_pattern(self.hints).search(low))
            if not hinted:
                return
        if self.pattern is not None:
            yield from self._pattern_spans(text, presence)
        if self.finder is not None:
            for item in self.finder(text):
                if isinstance(item, str):
                    if item:
                        yield from (m.span() for m in re.finditer(re.escape(item), text))
                else:
                    start, end = item
                    if not (0 <= start < end <= len(text)):
                        raise ValueError(
                            f"redaction rule {self.name!r}: span {(start, end)!r} is outside "
                            f"a string of length {len(text)}; return (start, end) within it"
                        )
                    yield start, end

    def admits(self, text: str, presence: Presence | None = None) -> bool:
        """Whether ``text`` passes this rule's tests before its hints: what it needs, how
        it starts, a run of token characters."""
        if self.needs:
            if presence is not None:
                needed = presence.any_in(self.needs, 0)
            else:
                needed = any(part in text for part in self.needs)
            if not needed and not (self.starts and text.startswith(self.starts)):
                return False
        if self.run:
            pattern = _token_run(self.run)
            if presence is not None:
                return presence.has_run(pattern, self.run)
            return pattern.search(text) is not None
        return True

    def _pattern_spans(
        self, text: str, presence: Presence | None = None
    ) -> Iterator[tuple[int, int]]:
        assert self.pattern is not None
        for match in finditer(self.pattern, text, presence):
            if self.group is not None:
                start, end = match.span(self.group)
            elif match.re.groups and not self.group_if_trailing:
                found = next((i for i in range(1, match.re.groups + 1) if match.group(i)), 0)
                start, end = match.span(found)
            elif match.re.groups and match.group(1) and match.end() - match.end(1) <= 2:
                start, end = match.span(1)
            else:
                start, end = match.span()
                while start < end and text[start] in _EDGE:
                    start += 1
                while end > start and text[end - 1] in _EDGE:
                    end -= 1
            if start < 0 or start >= end:
                continue
            if self.valid is not None and not self.valid(text[start:end]):
                continue
            yield start, end

    def is_confident(self, value: str) -> bool:
        """Whether ``value``, found by this rule, is replaced everywhere in the file."""
        return self.confident if isinstance(self.confident, bool) else self.confident(value)

    def make_placeholder(self, n: int, value: str) -> str:
        if self.placeholder is not None:
            return self.placeholder(n, value)
        return secret_placeholder(self.name, n)


def presence_for(rules: list[Rule], text: str, low: str | None) -> Presence:
    """The cheap tests many rules share (a blank, a hint, a literal), each made once for
    ``text``; for a long one (no ``low``), the hints of the rules it admits are found in
    one pass over its pieces."""
    return dispatch(rules, text, low)[0]


def dispatch(rules: list[Rule], text: str, low: str | None) -> tuple[Presence, list[Rule]]:
    """``text``'s cheap tests (see :func:`presence_for`) and the rules that may find
    anything in it: from the one scan of every rule's literals, a rule whose needed
    substrings, hints or pattern literals are all absent is left out, without a test of
    its own (most rules, for most strings). The rules left out find nothing there: each
    would return at that same test, answered by the same scan."""
    presence = Presence(text, low)
    known = dispatch_of(rules)
    presence.prime_with(known.primer)
    found = presence.found()
    alive = rules if found is None else known.alive(text, found)
    if low is None:
        presence.find_hints([r.hints for r in alive if r.hints and r.admits(text, presence)])
        presence.expect([p for r in alive for p in (r.pattern, *r.needed_shapes()) if p])
    return presence, alive


def dispatch_of(rules: list[Rule]) -> _Dispatch:
    """The dispatch of a rule list (built once, see :func:`dispatch`)."""
    listed = tuple(rules)
    entry = _rule_groups.get(id(rules))
    # the same list (held, so no other takes its id) with the same rules: a tuple's
    # ``==`` compares identical items by identity, where a rule compared by value
    # compares every field (its dispatch may hold an equal rule list of an earlier file)
    if entry is not None and entry[0] is rules and entry[1] == listed:
        known = entry[2]
    else:
        # each redaction makes its rule list anew, equal to the last: its dispatch is
        # found by value, not built again within the file's redaction
        known = _by_rules.get(listed) or _Dispatch.of(rules)
        if len(_rule_groups) > 16:
            _rule_groups.clear()
            _by_rules.clear()
        _rule_groups[id(rules)] = (rules, listed, known)
        _by_rules[known.rules] = known
    return known


@dataclass(frozen=True)
class _Gate:
    """What the scan must find for a rule to run: one of ``needs`` (or the text starts
    with one of ``starts``), one of ``hints``, and, for a rule with a pattern and no
    finder, one of the pattern's ``literals``; each as the primer's item numbers, None
    where the scan cannot answer (the rule's own test then decides)."""

    rule: Rule
    needs: frozenset[int] | None
    hints: frozenset[int] | None
    literals: frozenset[int] | None
    #: the numbers of the rule's shapes in the dispatch's ``Shapes`` (None: no shape
    #: known, or one the scan does not answer for)
    shape: frozenset[int] | None = None

    def opens(self, text: str, found: set[int]) -> bool:
        starts = self.rule.starts
        if (
            self.needs is not None
            and self.needs.isdisjoint(found)
            and not (starts and text.startswith(starts))
        ):
            return False
        if self.hints is not None and self.hints.isdisjoint(found):
            return False
        return self.literals is None or not self.literals.isdisjoint(found)


@dataclass(frozen=True)
class _Dispatch:
    """A rule list's one scan (its primer) and each rule's gate."""

    rules: tuple[Rule, ...]
    groups: list[tuple[tuple[str, ...], int]]
    primer: Primer
    gates: tuple[_Gate, ...]
    #: the rules (by number) no scan leaves out, those a found item may open, and those
    #: a text's start opens (their needs found or not)
    always: frozenset[int]
    by_item: dict[int, tuple[int, ...]]
    starting: tuple[int, ...]
    #: the rules' shapes, scanned in one pass (see ``_prefilter``)
    shapes: Shapes

    def alive(self, text: str, found: set[int], matching: set[int] | None = None) -> list[Rule]:
        """The rules whose gates the found items open, in the rules' order: only the
        rules one of the items can open are tested (most strings hold none). ``matching``:
        the shapes a scan found (of a text that holds this one), else the text is scanned."""
        picked = set(self.always)
        for item in found:
            picked.update(self.by_item.get(item, ()))
        for i in self.starting:
            if text.startswith(self.rules[i].starts):
                picked.add(i)
        gates = self.gates
        opened = [gates[i] for i in sorted(picked) if gates[i].opens(text, found)]
        if all(gate.shape is None for gate in opened):
            return [gate.rule for gate in opened]
        if matching is None:
            matching = self.shapes.matching(text)
        if matching is None:
            return [gate.rule for gate in opened]
        return [
            gate.rule
            for gate in opened
            if gate.shape is None or not gate.shape.isdisjoint(matching)
        ]

    @classmethod
    def of(cls, rules: list[Rule]) -> _Dispatch:
        groups = _groups(rules)
        primer = primer_of(groups)
        compile_for(groups)
        for length in {r.run for r in rules if r.run}:
            run(TOKEN_CHARS, length)

        def items(parts: tuple[str, ...], where: int) -> frozenset[int] | None:
            if not parts:
                return None
            found = primer.groups.get((id(parts), where))
            return None if found is None else frozenset(found)

        needed = [rule.needed_shapes() for rule in rules]
        distinct = tuple(dict.fromkeys(p for shapes_ in needed for p in shapes_))
        numbers = {p: i for i, p in enumerate(distinct)}
        scan = shapes(distinct)
        gates = []
        for rule, shape in zip(rules, needed, strict=True):
            plan = plan_of(rule.pattern) if rule.pattern is not None else None
            literals = None
            if plan is not None and rule.finder is None:
                literals = items(plan.literals, 2 if plan.folded else 0)
            wanted = frozenset(numbers[p] for p in shape)
            known = wanted if wanted and wanted <= scan.answered else None
            gates.append(_Gate(rule, items(rule.needs, 0), items(rule.hints, 1), literals, known))
        # each rule is listed under the items of one test it cannot open without
        always: set[int] = set()
        by_item: dict[int, list[int]] = {}
        starting: list[int] = []
        for i, gate in enumerate(gates):
            required = gate.hints if gate.hints is not None else gate.literals
            if required is None and gate.needs is not None:
                required = gate.needs
                if gate.rule.starts:
                    starting.append(i)
            if required is None:
                always.add(i)
            for item in required or ():
                by_item.setdefault(item, []).append(i)
        listed = {item: tuple(numbers) for item, numbers in by_item.items()}
        return cls(
            tuple(rules),
            groups,
            primer,
            tuple(gates),
            frozenset(always),
            listed,
            tuple(starting),
            scan,
        )


#: each rule list's dispatch by the list's identity: the list, its rules when it was
#: met, and the dispatch
_rule_groups: dict[int, tuple[list[Rule], tuple[Rule, ...], _Dispatch]] = {}
_by_rules: dict[tuple[Rule, ...], _Dispatch] = {}


def _groups(rules: list[Rule]) -> list[tuple[tuple[str, ...], int]]:
    """Every group of literals the rules test a text for: what each needs, its hints,
    and its pattern's literals (see ``Presence.any_in`` for the second item)."""
    groups = [(r.needs, 0) for r in rules] + [(r.hints, 1) for r in rules]
    for rule in rules:
        plan = plan_of(rule.pattern) if rule.pattern is not None else None
        if plan is not None:
            groups.append((plan.literals, 2 if plan.folded else 0))
    return groups


@functools.lru_cache(maxsize=256)
def _hint_pattern(hints: tuple[str, ...]) -> re.Pattern[str]:
    """One search for any of a rule's hints (cheaper than a test of each)."""
    return re.compile("|".join(re.escape(h) for h in hints))


@functools.lru_cache(maxsize=16)
def _token_run(length: int) -> re.Pattern[str]:
    return re.compile(f"[{re.escape(TOKEN_CHARS)}]{{{length}}}")


#: a text longer than this is searched for each hint with ``in`` (a fast substring
#: search), not with one regex alternation (which steps through every character)
_PIECE_BY_FIND = 4096
