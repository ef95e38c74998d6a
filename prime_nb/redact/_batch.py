"""Which of many short strings no rule can find anything in, all of them in one scan.

Why: each key of an object (and each short string beside it) was dispatched alone, two
Hyperscan scans and the gates for a key like ``k1234`` in which nothing is found. Joined
into one text, the strings are scanned once for the rules' literals and once for their
shapes.

Why that answers for each string: a literal in a string is in the text that holds it,
and a match of a shape's necessary form in a string is one in that text too (the forms
have no anchors, see ``_prefilter``), so what the scans find in the joined text holds
what they find in each string. A rule's gate only opens further as more is found, and
does not read the text but for its start (``Rule.starts``). So a string whose rules'
gates all stay shut with the joined text's findings, and that starts with no rule's
``starts``, has every rule left out when dispatched alone: no rule finds anything in it
(test_rule_needs.py's oracle). Where the joined text opens a gate, the batch is cut in
two and each half scanned again, down to one string, whose findings are then its own.
A match across the joint between two strings only costs a cut.
"""

from __future__ import annotations

from ._engine import CHUNK
from ._rule import Rule, _Dispatch, dispatch_of

#: what joins the strings (any character would do: see the module's docstring)
JOINT = "\x00"
#: a batch of this many strings or fewer is tested string by string (one: each as alone)
_FEW = 1


def left_out(rules: list[Rule], texts: list[str]) -> list[str]:
    """The ``texts`` in which the dispatch of ``rules`` leaves every rule out, found in
    a few scans of them joined (a text wider than Latin-1, which the scans do not
    answer for, is not among them)."""
    known = dispatch_of(rules)
    out: list[str] = []
    batch: list[str] = []
    size = 0
    for text in texts:
        if not text.isascii() and max(text) > "\xff":
            continue  # never answered by the scans: dispatched alone
        if batch and size + len(text) + 1 > CHUNK:
            _left_out(known, batch, out)
            batch, size = [], 0
        batch.append(text)
        size += len(text) + 1
    if batch:
        _left_out(known, batch, out)
    return out


def _left_out(known: _Dispatch, texts: list[str], out: list[str]) -> None:
    joined = JOINT.join(texts)
    found = known.primer.engine.present(joined)
    if found is None:
        return  # a text wider than Latin-1 (or too long): each is dispatched alone
    matching = known.shapes.matching(joined)
    if matching is None:
        return
    # a gate reads its text only for the text's start: a string that starts as a rule
    # may start is tested alone
    starts = tuple(start for rule in known.rules for start in rule.starts)
    if not known.alive(joined, found, matching):
        out.extend(text for text in texts if not (starts and text.startswith(starts)))
        return
    if len(texts) <= _FEW:
        out.extend(text for text in texts if not known.alive(text, found, matching))
        return
    half = len(texts) // 2
    _left_out(known, texts[:half], out)
    _left_out(known, texts[half:], out)
