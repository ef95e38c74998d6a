"""Secrets named by what stands before them: a key or a flag whose name says secret,
and a password given to a database or remote tool on its command line.

Why a module of its own: these finders read the text around a value, not the value's
format, so each weighs the key's name (:func:`~._values.secret_key_class`) and whether
the value is plainly not a secret (a stand-in, a number, a sentence going on); the key
pattern's lookahead is costly, so where a match can start is found from its words first.
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Iterator, Sequence

import numpy as np

from ._engine import FOLD, literals
from ._literals import HINT_PIECE, finditer, fold
from ._values import credential_like, secret_key_class, stand_in

#: ``KEY = value``, ``"key": "value"``, ``\"key\":\"value\"``, ``key: value`` (any quoting
#: and escaping depth of the key, one operator, a quoted, numeric or bare value)
ASSIGNMENT = re.compile(
    r"(?P<kq>\\*[\"'`])?(?<![A-Za-z0-9_])"
    # only a key with a secret's word in it (see secret_key_class) is worth the match
    r"(?P<key>(?=[A-Za-z0-9_.\-]{0,80}?(?i:pass|pw|secret|token|key|auth|cookie|cred|pat"
    r"|contrase|sessionid|bearer))[A-Za-z_][A-Za-z0-9_.\-]{0,80})(?(kq)(?P=kq))"
    r"[ \t]*(?P<op>:=|=>|=(?!=)|:(?![:/]))[ \t]*"
    r"(?:(?P<vq>\\*[\"'`])(?P<qv>(?:(?!(?P=vq)).){1,2000}?)(?P=vq)"
    r"|(?P<num>-?\d[\d.eE+\-]*)(?=[\s,}\]\\]|$)"
    r"|(?P<uv>[^\s\"'`,;|<>(){}\[\]\\]{1,2000}))"
)
#: what every ``ASSIGNMENT`` match holds: its key's secret word (all its letters are key
#: characters, and the key is followed by a quote, a blank or the operator, none of them
#: a letter, so the word ends within the key), the rest of the key, the key's closing
#: quote, blanks and the operator's first character
ASSIGNMENT_SHAPE = re.compile(
    r"(?i:pass|pw|secret|token|key|auth|cookie|cred|pat|contrase|sessionid|bearer)"
    r"[A-Za-z0-9_.\-]*(?:\\*[\"'`])?[ \t]*[:=]"
)
#: ``--password hunter2``, ``-token xyz``: a flag that names a secret, then its value
FLAG = re.compile(
    r"(?<![\w-])--?(?P<key>[A-Za-z][A-Za-z0-9_\-]{1,60})[ \t]+"
    r"(?:\"(?P<dq>[^\"\n]{1,500})\"|'(?P<sq>[^'\n]{1,500})'|(?P<uv>[^\s\"'`-][^\s\"'`]*))"
)
#: passwords given to database and remote tools on their command line
COMMAND_PASSWORD = re.compile(
    r"(?<![\w-])(?:mysql|mysqldump|mysqladmin|mysqlsh|mariadb(?:-dump)?)\b[^\n|;&]*?"
    r"[ \t](?:-p|--password=)(?P<v1>[^\s\"'`]+|\"[^\"\n]+\"|'[^'\n]+')"
    r"|(?<![\w-])sshpass\b[^\n|;&]*?[ \t]-p[ \t]*(?P<v2>[^\s\"'`]+|\"[^\"\n]+\"|'[^'\n]+')"
    r"|(?<![\w-])redis-cli\b[^\n|;&]*?[ \t]-a[ \t]+(?P<v3>[^\s\"'`]+|\"[^\"\n]+\"|'[^'\n]+')"
    r"|(?<![\w-])(?:curl|wget|http)\b[^\n|;&]*?[ \t](?:-u|--user)[ \t]*[\"']?[^:\s\"']+:"
    r"(?P<v4>[^\s\"'`]+)"
)


def _strip_quotes(text: str, start: int, end: int) -> tuple[int, int]:
    if end - start >= 2 and text[start] == text[end - 1] and text[start] in "\"'":
        return start + 1, end - 1
    return start, end


#: more words after a value: the line is a sentence
_PROSE = re.compile(r" [a-z]+(?: |$|\r?\n)")


#: the words of ``ASSIGNMENT``'s key lookahead, and how far into the key one may start
_KEY_WORDS = tuple(
    (word, FOLD)
    for word in (
        *("pass", "pw", "secret", "token", "key", "auth", "cookie", "cred", "pat"),
        *("contrase", "sessionid", "bearer"),
    )
)
_KEY_LEAD = 80


#: what may start a key (after no word character), and a key's characters
_KEY_START = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z_]")
_KEY_CHARS = re.compile(r"[A-Za-z0-9_.\-]*")
#: what follows a secret word that an ``ASSIGNMENT`` key holds: the rest of the key, its
#: closing quote, blanks and the operator (a word of non-ASCII letters that fold to its
#: own, ``\u212aey``, is in no key: its characters are no key's)
_KEY_TAIL = re.compile(r"[A-Za-z0-9_.\-]*(?:\\*[\"'`])?[ \t]*[:=]")


def _assignment_starts(text: str) -> Sequence[int] | None:
    """Where an ``ASSIGNMENT`` match can start, sorted, or None (anywhere). Its key
    starts where a key may start, at most ``_KEY_LEAD`` key characters before a secret
    word (the lookahead), and its quote right before the key, after any run of
    backslashes: a regex search tries each position with a lookahead of 80 characters
    and a dozen words, which costs more than finding the words."""
    budget = len(text) // 8 + 1
    handled, hits = literals(_KEY_WORDS).positions(text, budget)
    if not handled and len(text) <= HINT_PIECE:
        hits = _folded_hits(text, budget)  # wider than Latin-1: the scan cannot say
    elif not handled:
        return None
    if hits is None:
        return None
    starts = array("q")  # 8 bytes a start, not a set's int and slot (a start a record)
    done = -1  # the last hit's key starts were all found up to here
    for hit in hits:
        if _KEY_TAIL.match(text, hit) is None:
            continue  # no operator after the key this word is in (``path``, ``keys()``)
        for m in _KEY_START.finditer(text, max(done + 1, hit - _KEY_LEAD), hit + 1):
            key = m.start()
            run = _KEY_CHARS.match(text, key, hit)
            if run is None or run.end() != hit:
                continue  # a character between the key's start and the word ends a key
            starts.append(key)
            at = key - 1
            if at >= 0 and text[at] in "\"'`":
                starts.append(at)
                while at > 0 and text[at - 1] == "\\":
                    at -= 1
                    starts.append(at)
        done = hit
    return _sorted_once(starts)


def _sorted_once(starts: array[int]) -> Sequence[int]:
    """``starts`` sorted, each once; a compact array where they are many."""
    if len(starts) < _MANY:
        return sorted(set(starts))
    return array("q", np.unique(np.frombuffer(starts, dtype=np.int64)).tobytes())


#: from this many starts they are sorted by NumPy (its call costs more than a few)
_MANY = 64


def _folded_hits(text: str, budget: int) -> list[int] | None:
    """Where a secret word of a key starts in ``text`` (as the scan finds them, in
    ``fold(text)``), sorted; None past ``budget``: for a short text wider than Latin-1,
    whose search would otherwise try the key's lookahead at every position."""
    folded = fold(text)
    hits: list[int] = []
    for word, _ in _KEY_WORDS:
        at = folded.find(word)
        while at >= 0:
            hits.append(at)
            if len(hits) > budget:
                return None
            at = folded.find(word, at + 1)
    return sorted(hits)


def _assignment_search(text: str, pos: int, starts: Sequence[int] | None) -> re.Match[str] | None:
    """``ASSIGNMENT.search(text, pos)``, tried only at ``starts``."""
    if starts is None:
        return ASSIGNMENT.search(text, pos)
    for index in range(bisect.bisect_left(starts, pos), len(starts)):
        m = ASSIGNMENT.match(text, starts[index])
        if m is not None:
            return m
    return None


def _assignment_spans(text: str) -> Iterator[tuple[int, int]]:
    """Values given to keys that name a secret (see :func:`secret_key_class`)."""
    pos = 0
    starts = _assignment_starts(text)
    while (m := _assignment_search(text, pos, starts)) is not None:
        # a value may itself start the next assignment ("Error: DB_PASSWORD=x",
        # ``"note": "token: x"``): the next search starts at the value, not after it
        pos = m.end("op")
        kind = secret_key_class(m.group("key"))
        if kind is None:
            continue
        group = next(g for g in ("qv", "num", "uv") if m.group(g) is not None)
        value = m.group(group)
        if group == "uv" and m.end() < len(text) and text[m.end()] in "([":
            continue  # a call or an index: code that fetches the secret
        json_key = m.group("kq") is not None and m.group("vq") is not None
        if group == "num":
            if kind == "key" or (m.group("kq") is None and kind != "password"):
                continue
        elif stand_in(value) or (
            (kind == "key" or (kind == "token" and not json_key)) and not credential_like(value)
        ):
            continue
        elif (
            group == "uv"
            and m.group("op") == ":"
            and value.isalpha()
            and value.islower()
            and _PROSE.match(text, m.end())
        ):
            continue  # "passwd: entry for user www-data updated": a sentence goes on
        yield m.span(group)


def _flag_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in finditer(FLAG, text):
        kind = secret_key_class(m.group("key"))
        group = next(g for g in ("dq", "sq", "uv") if m.group(g) is not None)
        value = m.group(group)
        if kind is None or stand_in(value):
            continue
        if kind in ("token", "key") and not credential_like(value):
            continue
        yield m.span(group)


def _command_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in finditer(COMMAND_PASSWORD, text):
        group = next(g for g in ("v1", "v2", "v3", "v4") if m.group(g) is not None)
        start, end = _strip_quotes(text, *m.span(group))
        if not stand_in(text[start:end]) or text[start:end].lower() in ("root", "admin"):
            yield start, end
