"""A long text under a secret's key, read narrowed (``_narrow.LongText``): replaced
whole without its ``str`` being made.

Why: a value under a password's or token's key (``api_key``, ``password``) is replaced
whole by one placeholder, so the only things read of it are whether it holds no secret
after all (``structural_stand_in``: told from its two ends), the digest it is known by
(a long value is known by a digest of its text, hashed a piece at a time), and, in pass
1, the secrets inside it (a provider token is known file-wide too), which the narrowed
text gives as the text does (``_long_scrub.py``). Made whole, a text with an emoji in it
is four bytes a character, over four times its line. A text whose ends leave the answer
open, or no longer than a value known by itself (:data:`~._findings.WIDE_MAX`), is read
whole as before.
"""

from __future__ import annotations

import re
from typing import Protocol

from . import _findings
from ._find import SECRET_FIELD
from ._narrow import LongText, Narrowed
from ._rule import Rule
from ._scrub import Hit, Hits, _value_key
from ._values import ENDS_READ, structural_stand_in_by_ends


class LongTextReader(Protocol):
    """What of the long-text scrubber (``_long_scrub.LongTextScrubber``, which calls
    this module: named by its shape, not imported, so the two make no circle) is asked."""

    def _string(self, text: str, path: str, secret: bool, hits: Hits | None) -> str: ...

    def _learn_value(self, value: str, rule: Rule, confident: bool) -> str: ...

    def _kept(self, text: LongText) -> str: ...


#: where a text's core starts: its first character that is no white space (as
#: ``str.strip`` tells white space; no character narrowed, nor a stand-in, is one)
_CORE = re.compile(r"\S")


def replaced_whole(
    scrubber: LongTextReader, text: LongText, path: str, hits: Hits | None
) -> str | None:
    """What the scrubber makes of ``text`` under a secret's key; None where it must be
    read whole."""
    source = text.source
    if len(source) <= _findings.WIDE_MAX:
        return None
    told = _stand_in(source)
    if told is None:
        return None
    if told:  # no secret: read as any text
        return scrubber._string(text, path, False, hits)
    value = _value_key(source, 0, len(source))  # type: ignore[arg-type]
    placeholder = scrubber._learn_value(value, SECRET_FIELD, False)
    if hits is None:
        scrubber._string(text, path, False, None)  # the secrets inside are learned too
        return scrubber._kept(text)
    hits.append(Hit(path, SECRET_FIELD.name, placeholder))
    return placeholder


def _stand_in(source: Narrowed) -> bool | None:
    """``structural_stand_in`` of the text, from its ends; None where they do not tell."""
    narrow = source.narrow
    first = _CORE.search(narrow)
    if first is None:
        return None
    start = first.start()
    end = len(narrow)
    while end > start and narrow[end - 1].isspace():
        end -= 1
    if end - start <= ENDS_READ:
        return None
    return structural_stand_in_by_ends(source[start : start + ENDS_READ], source[end - 2 : end])
