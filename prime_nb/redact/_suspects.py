"""Suspects: what still looks like a secret after the rules ran, for a person to review.

Why not replace them: a long random token beside a word like ``token`` is often a secret
and sometimes a digest, an id or a signature. Replacing on such a guess would change
text silently; leaving it unsaid would let a secret through unseen. So the scrubber
lists each one (where it is and why, never its value) and leaves the text as it is: a
user decides before sharing (see :class:`~prime_nb.redact.Redaction`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

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
        why = _reason(m)
        if why is not None:
            yield why


def _reason(m: re.Match[str]) -> str | None:
    token = m.group("token").strip("=.-_")
    if _PLACEHOLDER.search(token) or not strongly_random(token):
        return None
    return f"random token of {len(token)} characters after {m.group('word').lower()!r}"


#: how far past a match's start the text is read before the match is known (the word,
#: the gap of up to 24, 20 characters of token and one after), with room to spare
_MARGIN = 64
#: a character no secret word starts with, for a window whose text follows a letter
_LETTER = re.compile(r"(?i)[a-z]")


#: how many characters :func:`suspects_of_pieces` reads at a time
WINDOW = 1 << 16


def suspects_of_pieces(pieces: Iterable[str]) -> Iterator[str]:
    """What :func:`suspects` yields of the text ``"".join(pieces)``, read a window of
    about :data:`WINDOW` characters at a time (a long text's new text is never built
    whole).

    Why it finds the same: a match is taken from a window only when it starts over
    :data:`_MARGIN` characters before the window's end and ends before it (so its token
    ended there); otherwise the next window starts at it. The character before a window
    is stood for by one the pattern's look-behind reads alike that starts no word."""
    stream = iter(pieces)
    window = WINDOW
    held, lead, done, want = "", "", False, window
    while True:
        while not done and len(held) < want:
            piece = next(stream, None)
            if piece is None:
                done = True
            else:
                held += piece
        text = lead + held
        limit, resume, last = len(text) - _MARGIN, len(text), len(lead)
        for m in finditer(_BESIDE_WORD, text):
            if not done and (m.start() >= limit or m.end() >= len(text)):
                resume = m.start()
                break
            why = _reason(m)
            if why is not None:
                yield why
            last = m.end()
        if done:
            return
        cut = max(last, min(resume, limit)) - len(lead)
        if cut <= 0:  # a token longer than the window: a longer one
            want *= 2
            continue
        lead = "x" if _LETTER.match(held[cut - 1]) else " "
        held, want = held[cut:], window
