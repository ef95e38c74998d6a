"""A text's cuts (``Scrubber._cuts``) group overlapping spans as the reading of each
span against the group's furthest end does: random spans that nest, touch, overlap and
stand apart, found by rules of different names, give the same cuts, placeholders and
hits as that reading (kept here as it was written), on a fresh scrubber each."""

from __future__ import annotations

import random

import pytest

from prime_nb.redact._find import Span
from prime_nb.redact._rule import Rule
from prime_nb.redact._scrub import Hit, Scrubber

RULES = [Rule("a"), Rule("bb"), Rule("ccc")]


def _reference(scrubber: Scrubber, text: str, found: list[Span]) -> list[tuple[int, int, str]]:
    """The grouping as each span read against ``max`` of its group's ends."""
    found = sorted(found, key=lambda s: (s.start, -s.end))
    cuts: list[tuple[int, int, str]] = []
    group: list[Span] = []
    for span in [*found, Span(len(text) + 1, len(text) + 1, found[0].rule, False)]:
        if group and span.start >= max(s.end for s in group):
            start, end = group[0].start, max(s.end for s in group)
            value = text[start:end]
            if value in scrubber.known:
                placeholder = scrubber.known[value][1]
            else:
                longest = max(group, key=lambda s: s.end - s.start)
                placeholder = scrubber._learn_value(value, longest.rule, False)
            cuts.append((start, end, placeholder))
            group = []
        group.append(span)
    return cuts


@pytest.mark.parametrize("seed", range(5))
def test_cuts_group_as_the_reading_span_by_span(seed: int) -> None:
    r = random.Random(seed)
    text = "".join(r.choices("abcxyz", k=3000))
    found = []
    for _ in range(120):
        start = r.randrange(len(text) - 1)
        end = min(len(text), start + r.choice([1, 2, 3, 8, 30]))
        found.append(Span(start, end, r.choice(RULES), False))
    found += found[:10]  # the same span twice
    want = _reference(Scrubber([], secret_keys=False), text, found)
    hits: list[Hit] = []
    got = Scrubber([], secret_keys=False)._cuts(text, "p", hits, found)
    assert got == want
    assert [h.placeholder for h in hits] == [c[2] for c in want]
    assert len(want) > 20
