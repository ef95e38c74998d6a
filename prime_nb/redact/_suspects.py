"""Suspects: what still looks like a secret after the rules ran, for a person to review.

Why not replace them: a long random token beside a word like ``token`` is often a secret
and sometimes a digest, an id or a signature. Replacing on such a guess would change
text silently; leaving it unsaid would let a secret through unseen. So the scrubber
lists each one (where it is and why, never its value) and leaves the text as it is: a
user decides before sharing (see :class:`~prime_nb.redact.Redaction`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from ._encodings import LONG
from ._engine import run
from ._literals import SHAPE_MIN, SHORT, Presence, finditer
from ._prefilter import windows
from ._run_windows import run_matches
from ._values import strongly_random

#: the rule name a suspect is reported with
SUSPECT = "suspect"
#: a word that says a secret may follow
_SECRET_WORD = (
    r"(?i)(?<![a-z])(?P<word>key|token|secret|passw(?:or)?d|pass|pwd|auth|cred|bearer|cookie"
    r"|session|signature|sig|api)(?![a-z])"
)
#: such a word, then (within a few characters) a long token
_BESIDE_WORD = re.compile(
    _SECRET_WORD + r"[^\n]{0,24}?(?<![A-Za-z0-9+/_\-.=~])(?P<token>[A-Za-z0-9+/_\-.=~]{20,})"
)
_BESIDE_LEAD = re.compile(_SECRET_WORD)
#: every ``_BESIDE_WORD`` match's token in an ASCII text is such a run: a text without
#: one (found in C) is not searched around each of its words
_TOKEN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-.=~"
_TOKEN_RUN = run(_TOKEN_CHARS, 20)
#: each of those characters as ``c``, any other Latin-1 character as ``.``
_TOKEN_CLASS = bytes(0x63 if chr(b) in _TOKEN_CHARS else 0x2E for b in range(256))
#: how long a token is at least, and how far before it a match starts: the longest
#: word, then at most 24 characters
_BESIDE_REACH = (20, len("signature") + 24)
_PLACEHOLDER = re.compile(r"REDACTED|WITHHELD|redacted\.invalid")

#: a quoted string of token characters (and the separators tokens hold), then what
#: follows it: a call's next argument or its end, or a key's colon; a quote may be
#: escaped (JSON in a string) or doubled (CSV)
_QUOTED = re.compile(
    r"[\"'](?P<token>[A-Za-z0-9+/_\-.=~:]{20,400})\\{0,7}[\"']\"?(?P<after>[ \t]{0,8}[,):]?)"
)
#: what comes before a quoted token, by what it makes of it (read back from its start)
_BEFORE_CALL = re.compile(r"(?:\w\(|,)\s{0,8}(?:\w{1,40}\s{0,8}=\s{0,8})?\(?\s{0,8}[\\\"]{0,8}\Z")
_BEFORE_HOST = re.compile(
    r"[\"'](?:[a-z0-9-]{1,63}\.){1,8}[a-z]{2,24}\\{0,7}[\"']\"?\s{0,8}:\s{0,8}[\\\"]{0,8}\Z"
)
_BEFORE_KEY = re.compile(r"[{,]\s{0,8}[\\\"]{0,8}\Z")
#: a call's argument before a quoted token that a rule replaced
_BESIDE_PLACEHOLDER = re.compile(
    r"\(\s{0,8}[\\\"']{0,8}\[REDACTED:[\w-]{1,60}:\d{1,9}\][\\\"']{0,8}\s{0,8},"
)
#: how far back from a quoted token :data:`_BEFORE_HOST` and the others read
_BACK = 128

#: tokens known by their place or a prefix that no separator sets apart, each with what
#: it is (by the name of its group)
_KNOWN = re.compile(
    # a wallet's key in a list of accounts (Hardhat's ``accounts: ["0x..."]``)
    r"accounts\\{0,7}[\"']?\s{0,8}[:=]\s{0,8}\[\s{0,8}\\{0,7}[\"']"
    r"(?P<accounts>(?:0x)?[0-9a-fA-F]{64})\\{0,7}[\"']"
    r"|(?<![a-z0-9])(?P<nostr>nsec1[02-9ac-hj-np-z]{58})(?![a-z0-9])"
    r"|(?<![\w.])(?P<microsoft>M\.[A-Z]\d{1,3}_[A-Z]{2,5}\.[\w.!*$-]{40,})"
    r"|(?<![\w-])(?P<plaid>(?:access|public|link)-(?:production|development|sandbox)"
    r"-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"
    # what an askpass script prints is a password
    r"|askpass[^\n]{0,80}?(?:\n|\\n)(?:[^\n]{0,200}?(?:\n|\\n)){0,3}?"
    r"[+\- \t]{0,8}(?:echo|printf)[ \t]+"
    r"(?P<askpass>[^\s$][^\n]{5,})"
    # GitLab's variables: a secret's name and its value in two ``--form`` fields
    r"|--form\s{1,8}\\{0,7}[\"']?key=\w{0,40}(?i:pass|pwd|token|secret|key|cred|auth)\w{0,40}"
    r"\\{0,7}[\"']?\s{1,8}--form\s{1,8}\\{0,7}[\"']?value=(?P<form>[^\s\"'$\\][^\s\"'\\]{5,})"
)
_KNOWN_WHY = {
    "accounts": "64 hex digits (a private key) in a list of accounts",
    "nostr": "a Nostr secret key (nsec1...)",
    "microsoft": "a Microsoft account token (M.C..._BAY...)",
    "plaid": "a Plaid token (access-<environment>-<uuid>)",
    "askpass": "what an askpass script prints",
    "form": "a value beside a secret's name in --form fields",
}
#: a text holds one of these if :data:`_KNOWN` can match in it
_KNOWN_NEEDS: tuple[str, ...] = ("accounts", "nsec1", "M.", "askpass", "--form")
_KNOWN_NEEDS += ("-production-", "-development-", "-sandbox-")
#: a token's end that a rule's pattern left after its placeholder (a format that grew)
_LEFT_AFTER = re.compile(r"\[REDACTED:[\w-]{1,60}:\d{1,9}\](?P<token>[A-Za-z0-9+/_\-=]{6,})")
_LEFT_AFTER_WHY = "token characters left after a replacement (a longer token than its rule's)"
_LEFT_AFTER_NEEDS = ("[REDACTED:",)
#: where :data:`_QUOTED` and :data:`_KNOWN` can match, by one Hyperscan scan of a text
#: each: Python's search tries ``_KNOWN``'s lookbehind-led alternatives at every
#: character, and ``_QUOTED`` at every quote, where most texts hold neither (compiled now,
#: not within a long line's redaction)
_QUOTED_WINDOWS = windows(_QUOTED)
_KNOWN_WINDOWS = windows(_KNOWN)


def suspects(text: str) -> Iterator[str]:
    """Why each suspect in ``text`` is one (``"random token after 'token'"``); no value.

    Beside a secret's word, a long random token; without one, a token by its place (given
    by position to a call, under a host name, an object's key) when it mixes letters of
    both cases and digits, or by a shape no rule replaces on its own (``_KNOWN``)."""
    for _, _, why in suspect_spans(text):
        yield why


def suspect_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, why) of each suspect of :func:`suspects` in ``text``, in the same
    order: where its token is, so that a suspect read in a decoded view of a text can be
    told in the text (see ``_view_suspects``)."""
    if len(text) < 20:
        return
    presence = _expected(text)
    for m in _beside_word(text, presence):
        why = _reason(m)
        if why is not None:
            yield (*m.span("token"), why)
    if '"' in text or "'" in text:
        for m in _QUOTED_WINDOWS.finditer(text):
            why = _quoted_reason(m)
            if why is not None:
                yield (*m.span("token"), why)
    # a short text through the windows of the shapes' one scan (most hold none); a long
    # one through the literal windows: the shapes' eight literals looked for one by one
    # read a long text eight times over
    if len(text) <= SHORT:
        known = _KNOWN_WINDOWS.finditer(text)
    else:
        known = finditer(_KNOWN, text, presence)
    for m in known:
        yield (*m.span(str(m.lastgroup)), _known_reason(m))
    for m in finditer(_LEFT_AFTER, text, presence):
        yield (*m.span("token"), _LEFT_AFTER_WHY)


def _expected(text: str) -> Presence | None:
    """For a text of ``SHAPE_MIN`` or more, what the suspects' three patterns read it
    for, found in one scan for all of them (``Presence.expect``), not one each."""
    if len(text) < SHAPE_MIN:
        return None
    presence = Presence(text, None)
    presence.expect([_BESIDE_WORD, _KNOWN, _LEFT_AFTER], also=False)
    return presence


def _beside_word(text: str, presence: Presence | None = None) -> Iterator[re.Match[str]]:
    """``_BESIDE_WORD``'s matches: in a text up to a mebibyte, tried only where a word
    stands just before a run of its token (``_run_windows``); in a longer one, or one
    wider than Latin-1, near its words' literals."""
    if len(text) <= LONG:
        near = run_matches(_BESIDE_WORD, _BESIDE_LEAD, text, _TOKEN_CLASS, _BESIDE_REACH)
        if near is not None:
            return near
    return finditer(_BESIDE_WORD, text, presence) if may_be_beside(text) else iter(())


def may_be_beside(text: str) -> bool:
    """Whether ``_BESIDE_WORD`` may match in ``text``: it holds a run of its token (a
    text wider than ASCII always may: under ``(?i)`` the Kelvin sign and the long s
    match the token's letters)."""
    return not text.isascii() or _TOKEN_RUN.in_text(text)


def _reason(m: re.Match[str]) -> str | None:
    token = m.group("token").strip("=.-_")
    if _PLACEHOLDER.search(token) or not strongly_random(token):
        return None
    return f"random token of {len(token)} characters after {m.group('word').lower()!r}"


def _quoted_reason(m: re.Match[str]) -> str | None:
    """What a quoted token is by its place, if it is random enough to say."""
    token = m.group("token")
    if _PLACEHOLDER.search(token) or not strongly_random(token):
        return None
    before = m.string[max(0, m.start() - _BACK) : m.start()]
    if _BEFORE_HOST.search(before):
        return "random value under a host name"
    after = m.group("after").strip()
    mixed = any(c.isupper() for c in token) and any(c.islower() for c in token)
    if not mixed:  # a hex digest, a UUID, a word in capitals: what an id looks like...
        if (
            after in (",", ")")
            and _BEFORE_CALL.search(before)
            and _BESIDE_PLACEHOLDER.search(before)
        ):
            # ...unless it is given beside a secret replaced (Twilio's SID, then its token)
            return "random token given by position to a call, beside a replaced secret"
        return None
    if after in (",", ")") and _BEFORE_CALL.search(before):
        return "random token given by position to a call"
    if after == ":" and _BEFORE_KEY.search(before):
        return "random object key"
    return None


def _known_reason(m: re.Match[str]) -> str:
    return _KNOWN_WHY[str(m.lastgroup)]


#: how many characters :func:`suspects_of_pieces` reads at a time
WINDOW = 1 << 16

#: a text's pieces, or what gives them anew (a list is read again as it is)
Pieces = Iterable[str] | Callable[[], Iterable[str]]


def suspects_of_pieces(pieces: Pieces) -> Iterator[str]:
    """What :func:`suspects` yields of the text ``"".join(pieces)``, read a window of
    about :data:`WINDOW` characters at a time (a long text's new text is never built
    whole), once for each of its four patterns: ``pieces`` is read four times (a
    callable is called for each reading)."""
    # an iterator would be read once: the three patterns after the first would find nothing
    assert callable(pieces) or iter(pieces) is not pieces, "pass a list or a function"
    yield from _beside_words(pieces)
    yield from _windowed(pieces, _QUOTED, _quoted_reason, 512, ('"', "'"))
    yield from _windowed(pieces, _KNOWN, _known_reason, 1024, _KNOWN_NEEDS)
    yield from _windowed(pieces, _LEFT_AFTER, lambda _: _LEFT_AFTER_WHY, 128, _LEFT_AFTER_NEEDS)


#: how far past a match's start the text is read before the match is known (the word,
#: the gap of up to 24, 20 characters of token and one after), with room to spare
_MARGIN = 64
#: a character no secret word starts with, for a window whose text follows a letter
_LETTER = re.compile(r"(?i)[a-z]")


def _topped_up(stream: Iterator[str], held: str, want: int) -> tuple[str, bool]:
    """``held`` with the next pieces of ``stream`` added until it is ``want`` characters
    long, and whether the stream ended first."""
    while len(held) < want:
        piece = next(stream, None)
        if piece is None:
            return held, True
        held += piece
    return held, False


def _beside_words(pieces: Pieces) -> Iterator[str]:
    """The reasons of :data:`_BESIDE_WORD`'s matches, a window at a time.

    Why it finds the same: a match is taken from a window only when it starts over
    :data:`_MARGIN` characters before the window's end and ends before it (so its token
    ended there); otherwise the next window starts at it. The character before a window
    is stood for by one the pattern's look-behind reads alike that starts no word."""
    stream = iter(pieces() if callable(pieces) else pieces)
    window = WINDOW
    held, lead, done, want = "", "", False, window
    while True:
        if not done:
            held, done = _topped_up(stream, held, want)
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


def _windowed(
    pieces: Pieces,
    pattern: re.Pattern[str],
    reason: Callable[[re.Match[str]], str | None],
    margin: int,
    needs: tuple[str, ...],
) -> Iterator[str]:
    """The reasons of ``pattern``'s matches in the joined pieces, a window at a time.

    Why it finds the same: every match of ``pattern`` is decided within ``margin``
    characters of its start (its repeats before its token are bounded; a token that runs
    to the window's end makes the match end there). A match is taken from a window only
    when it starts over ``margin`` before the window's end and ends before it; otherwise
    the next window starts at it. The next window is scanned from where the last one
    stopped, with the :data:`_BACK` characters before it held as they are, for the
    look-behinds and for what ``reason`` reads before a match. Every match holds one of
    ``needs`` within a few characters of its start: a window without one is not
    scanned."""
    stream = iter(pieces() if callable(pieces) else pieces)
    window = max(WINDOW, 2 * margin)
    held, lead, done, want = "", "", False, window
    while True:
        if not done:
            held, done = _topped_up(stream, held, want)
        text = lead + held
        limit, resume, last = len(text) - margin, len(text), len(lead)
        held_one = any(literal in text for literal in needs)
        for m in pattern.finditer(text, len(lead)) if held_one else ():
            if not done and (m.start() >= limit or m.end() >= len(text)):
                resume = m.start()
                break
            why = reason(m)
            if why is not None:
                yield why
            last = m.end()
        if done:
            return
        cut = max(last, min(resume, limit))
        if cut <= len(lead):  # a match longer than the window: a longer one
            want *= 2
            continue
        text = text[max(0, cut - _BACK) :]
        lead, held, want = text[: min(_BACK, cut)], text[min(_BACK, cut) :], window
