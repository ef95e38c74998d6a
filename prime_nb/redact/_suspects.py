"""Suspects: what still looks like a secret after the rules ran, for a person to review.

Why not replace them: a long random token beside a word like ``token`` is often a secret
and sometimes a digest, an id or a signature. Replacing on such a guess would change
text silently; leaving it unsaid would let a secret through unseen. So the scrubber
lists each one (where it is and why, never its value) and leaves the text as it is: a
user decides before sharing (see :class:`~prime_nb.redact.Redaction`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ._literals import finditer
from ._values import strongly_random

#: the rule name a suspect is reported with
SUSPECT = "suspect"
#: a word that says a secret may follow, then (within a few characters) a long token
_BESIDE_WORD = re.compile(
    r"(?i)(?<![a-z])(?P<word>key|token|secret|passw(?:or)?d|pass|pwd|auth|cred|bearer|cookie"
    r"|session|signature|sig|api)(?![a-z])[^\n]{0,24}?(?<![A-Za-z0-9+/_\-.=~])"
    r"(?P<token>[A-Za-z0-9+/_\-.=~]{20,})"
)
_PLACEHOLDER = re.compile(r"REDACTED|WITHHELD|redacted\.invalid")


def suspects(text: str) -> Iterator[str]:
    """Why each suspect in ``text`` is one (``"random token after 'token'"``); no value."""
    if len(text) < 20:
        return
    for m in finditer(_BESIDE_WORD, text):
        token = m.group("token").strip("=.-_")
        if _PLACEHOLDER.search(token) or not strongly_random(token):
            continue
        yield f"random token of {len(token)} characters after {m.group('word').lower()!r}"
