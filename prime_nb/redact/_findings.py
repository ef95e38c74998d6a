"""Where what was found in a JSON text stands in the text as written.

Apart from ``_find`` (which reads a text for what to find) because a JSON text's
findings are distinct values, each looked for once in every escaped form however many
records repeat it: placing them is one idea, finding them another.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ._rule import Rule
from ._span_list import Span, SpanList
from ._values import escaped_forms

#: what may not stand beside a number found in JSON text (it would be part of another)
_NUMBER_SIDE = re.compile(r"[\w.]")

#: a value longer than this is known by a digest (no copy of it is kept) and is replaced
#: only where a rule finds it, never file-wide: one regex over it would cost many times
#: its size, and what found it once finds it again
WIDE_MAX = 1 << 16


Findings = dict[tuple[str, int, bool, str | None], Rule]
"""Distinct findings in a JSON text, (value, id(rule), confident, how bounded) -> rule."""


def findings_spans(text: str, found: Findings) -> SpanList:
    """Where each finding of a JSON text stands in the text, in every escaped form: each
    distinct finding is looked for once, however many records repeat it."""
    out = SpanList()
    for (value, _, confident, quoted), rule in found.items():
        forms = {value, *escaped_forms(value)} if len(value) <= WIDE_MAX else {value}
        for form in forms - {""}:
            out.extend(
                Span(at, at + len(form), rule, confident) for at in _occurrences(text, form, quoted)
            )
    return out


def _occurrences(text: str, form: str, bound: str | None) -> Iterator[int]:
    """Where ``form`` stands in ``text``: anywhere, between quotes (``bound`` "string"),
    or as a whole number (``bound`` "number")."""
    at = text.find(form)
    while at >= 0:
        end = at + len(form)
        if bound == "number":
            ok = not _NUMBER_SIDE.match(text, at - 1) if at else True
            ok = ok and (end == len(text) or not _NUMBER_SIDE.match(text, end))
        elif bound:
            ok = text[at - 1 : at] == '"' and text[end : end + 1] == '"'
        else:
            ok = True
        if ok:
            yield at
        at = text.find(form, at + 1)
