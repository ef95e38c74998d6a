"""Secrets in records: a value whose name is a column, a cell or a field beside it.

Why: an attack pasted what databases, browsers and deploy tools print, and the rules,
which look for a name and its value side by side (``password=...``), found none of it:
an ``INSERT`` whose column list names a ``token`` and whose values list holds it, a
``psql`` table whose header names one, a browser's ``cookies.txt`` (seven fields apart
by tabs, the value last), YAML's ``name: X`` / ``value: Y`` pairs (Kubernetes ``env``,
a cookie jar dumped by Ruby), a PIN written as a number, a wallet's twelve-word phrase,
a key written as a list of 32 or 64 bytes, password hashes of Django, PostgreSQL's SCRAM
and MySQL. Each shape is generic: the name is judged as every key is
(:func:`~._values.secret_key_class`), the value as every value is.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

from ._literals import finditer
from ._long_scan import also_expected
from ._rule import Rule
from ._values import (
    cookie_holds_secret,
    credential_like,
    secret_key_class,
    stand_in,
    strongly_random,
)

#: ``INSERT INTO t (a, b) VALUES (1, 'x')``: the column list and the first values list
SQL_INSERT = re.compile(
    r"(?i)\binsert\s+into\s+[\w.\"`\[\]]+\s*\((?P<cols>[^()\n]{1,2000})\)\s*values\s*"
    r"\((?P<vals>(?:'(?:[^'\n]|'')*'|[^()'\n])+)\)"
)
_SQL_VALUE = re.compile(r"\s*('(?:[^'\n]|'')*'|[^,]*)\s*(?:,|$)")

#: a text table's header row (``psql``, ``mysql``): names apart by ``|``
TABLE_HEADER = re.compile(
    r"(?m)^[ \t]*\|?(?P<head>[^|\n]*(?:\|[^|\n]*){1,30})\|?[ \t]*\r?\n[ \t]*[+\-|]{3,}[+\-| ]*\r?\n"
)
_MYSQL_RULE = re.compile(r"^\+[-+]+\+$")

#: a ``cookies.txt`` line: domain, flag, path, secure, expiry, name, value
COOKIE_JAR = re.compile(
    r"(?m)^[ \t]*#?(?:HttpOnly_)?\.?[\w.-]+\t(?:TRUE|FALSE)\t\S*\t(?:TRUE|FALSE)\t\d+\t"
    r"[^\t\n]+\t(?P<v>[^\t\r\n]{8,})"
)
#: YAML's ``name: X`` then ``value: Y`` (a list item, a Ruby object)
NAME_VALUE = re.compile(
    r"(?m)^(?P<i>[ \t]*)(?:-[ \t]+)?name:[ \t]*[\"']?(?P<k>[\w.\-]{1,80})[\"']?[ \t]*\r?\n"
    r"(?:(?P=i)[ \t]*[\w-]+:[^\n]*\r?\n){0,2}?(?P=i)[ \t]*value:[ \t]*"
    r"(?P<v>\"[^\"\n]+\"|'[^'\n]+'|[^\s#][^\n#]*?)[ \t]*$"
)
#: the same pair written as JSON inside text (a HAR file's headers and cookies)
JSON_NAME_VALUE = re.compile(
    r"\"name\"\s*:\s*\"(?P<k>[^\"\n]{1,80})\"\s*,\s*\"value\"\s*:\s*(?P<v>\"[^\"\n]{1,2000}\")"
)
#: a PIN, CVV or passcode written as a number: ``"pin": 4821``, ``card_cvv=123``
PIN_NUMBER = re.compile(
    r"(?i)[\"']?(?P<k>[\w.\-]{0,40}(?:pin|pincode|cvv|cvc|cvv2|passcode))[\"']?[ \t]*[:=][ \t]*"
    r"(?P<v>\d{4,12})(?![\d.])"
)
#: a wallet's recovery phrase: 12 to 24 lower-case words after a name that says so
MNEMONIC = re.compile(
    r"(?i)(?:mnemonic|seed[ _-]?phrase|recovery[ _-]?phrase|seed[ _-]?words)[\"']?"
    r"[ \t]*[:=][ \t]*[\"']?"
    r"(?P<v>(?-i:[a-z]{3,10})(?:[ \t]+(?-i:[a-z]{3,10})){11,23})"
)
#: a key as a list of its 32 or 64 bytes (Solana's ``id.json``, a seed in code)
BYTE_KEY = re.compile(
    r"\[\s*(?P<v>(?:\d{1,3}\s*,\s*){31}\d{1,3}|(?:\d{1,3}\s*,\s*){63}\d{1,3})\s*\]"
)
#: Django's ``algorithm$iterations$salt$hash``, PostgreSQL's SCRAM verifier, MySQL's
#: ``*`` and 40 hex digits (``mysql_native_password``)
HASH_FORMATS = re.compile(
    r"(?<![\w$])(?P<v>(?:pbkdf2_sha(?:1|256|512)|bcrypt_sha256|argon2|scrypt|sha1|md5)\$"
    r"[A-Za-z0-9./+=$\-]{20,}"
    r"|SCRAM-SHA-(?:1|256)\$\d+:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+"
    r"|\*[0-9A-F]{40})(?![0-9A-Za-z+/=])"
)


def _unquoted(text: str, start: int, end: int) -> tuple[int, int]:
    if end - start >= 2 and text[start] == text[end - 1] and text[start] in "\"'":
        return start + 1, end - 1
    return start, end


#: a row's id: a UUID in a cell is the row's, not a credential (a token column of a
#: table of sessions holds them); a random token beside it is judged as any value
_ROW_UUID = re.compile(r"(?i)^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
#: the words after which a name's secret word is the whole name (``db_password``,
#: ``api-key``); ``secret_santa`` names a game and ``token_used`` a flag
_SECRET_LAST_WORDS = frozenset(
    {"password", "passwd", "passphrase", "passcode", "pass", "pw", "pwd", "secret",
     "secrets", "key", "keys", "token", "tokens", "pat", "cred", "creds", "credential",
     "credentials", "auth", "apikey", "cookie", "hash", "digest", "pin", "storepass",
     "keypass", "contrasena", "authorization", "sessionid", "bearer"}
)  # fmt: skip
_NAME_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def _secret_value(name: str, value: str) -> bool:
    """Whether ``value`` under the column or field ``name`` is a secret, as a key's value
    is judged, but for what a table of research data holds: a UUID (a row's id) and, when
    the name's last word is no secret's (``secret_santa``), any value that could not be a
    credential (a short word, a date)."""
    kind = secret_key_class(name)
    value = value.strip("\"'")
    if not value or value.upper() == "NULL" or stand_in(value) or _ROW_UUID.match(value):
        return False
    words = [w.lower() for w in _NAME_WORDS.findall(name)]
    if kind == "password" and words and words[-1] not in _SECRET_LAST_WORDS:
        kind = "key"
    if kind == "password":
        return not value.isdigit()
    if kind is not None:
        return credential_like(value) and not value.isdigit()
    return False


def sql_insert_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in SQL_INSERT.finditer(text):
        names = [n.strip(' "`[]') for n in m.group("cols").split(",")]
        at = m.start("vals")
        values: list[tuple[int, int]] = []
        for v in _SQL_VALUE.finditer(m.group("vals")):
            if v.end() == v.start():
                break
            values.append((at + v.start(1), at + v.end(1)))
        for name, (start, end) in zip(names, values, strict=False):
            if _secret_value(name, text[start:end]):
                yield _unquoted(text, start, end)


def table_spans(text: str) -> Iterator[tuple[int, int]]:
    """The cells under a header that names a secret, down to the table's end."""
    for m in TABLE_HEADER.finditer(text):
        head = m.group("head")
        bounds = [0, *(i + 1 for i, c in enumerate(head) if c == "|"), len(head) + 1]
        names = [head[a : b - 1].strip() for a, b in itertools.pairwise(bounds)]
        secret = [k for k, name in enumerate(names) if secret_key_class(name)]
        if not secret:
            continue
        at = m.end()
        while at < len(text):
            end = text.find("\n", at)
            end = len(text) if end < 0 else end
            line = text[at:end].rstrip("\r")
            if "|" not in line or _MYSQL_RULE.match(line.strip()):
                if line.strip() and not _MYSQL_RULE.match(line.strip()):
                    break
                if not line.strip():
                    break
                at = end + 1
                continue
            inner = line.strip()
            offset = at + line.find(inner)
            if inner.startswith("|"):
                inner, offset = inner[1:], offset + 1
            cells = inner.split("|")
            pos = offset
            for k, cell in enumerate(cells):
                value = cell.strip()
                if k in secret and _secret_value(names[k], value):
                    start = pos + cell.find(value)
                    yield start, start + len(value)
                pos += len(cell) + 1
            at = end + 1


def cookie_jar_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in COOKIE_JAR.finditer(text):
        if credential_like(m.group("v")):
            yield m.span("v")


def name_value_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in (*NAME_VALUE.finditer(text), *JSON_NAME_VALUE.finditer(text)):
        name, value = m.group("k"), m.group("v")
        if "cookie" in name.lower() and "=" in value:
            secret = cookie_holds_secret(value.strip("\"'"))
        else:
            secret = _secret_value(name, value) or (
                not _NAMES_A_DIGEST.search(name) and _random_token(value.strip("\"'"))
            )
        if secret:
            yield _unquoted(text, *m.span("v"))


#: a name whose last word says its value is an id or a digest (``x-request-id``,
#: ``GIT_SHA``, ``etag``): random by nature, and no secret
_NAMES_A_DIGEST = re.compile(
    r"(?i)(?:^|[_.\-])(?:id|ids|sha|sha1|sha256|commit|digest|hash|checksum|etag|rev|"
    r"revision|ray|traceparent|tracestate)$|^(?:if-none-match|if-match)$"
)


#: text, not one token: a space, a header's parameters (``;``), a user agent's ``(``
_NOT_ONE_TOKEN = re.compile(r"[\s;()]")


def _random_token(value: str) -> bool:
    """A value under a name that says nothing (``STRIPE_SIGNING``) is a secret only when
    it is one strongly random token, not a header's text or a request's UUID."""
    core = value.strip("\"'\\ \t\r")
    return not _NOT_ONE_TOKEN.search(core) and not _ROW_UUID.match(core) and strongly_random(value)


#: :data:`PIN_NUMBER` from its word on: searched from each place the word is, never from
#: each character (the name's 40 characters before the word, tried at every place of a
#: long text, made it quadratic), the name then read back from the word
_PIN_FROM_WORD = re.compile(
    r"(?i)(?P<w>pincode|pin|cvv2|cvv|cvc|passcode)[\"']?[ \t]*[:=][ \t]*(?P<v>\d{4,12})(?![\d.])"
)
also_expected(_PIN_FROM_WORD)  # read in each long text's one scan
#: the rest of a PIN's name before its word
_NAME_BEFORE = re.compile(r"[\w.\-]{0,40}\Z")


def pin_spans(text: str) -> Iterator[tuple[int, int]]:
    """:data:`PIN_NUMBER`'s values whose name ends in a PIN's word and is no chip's pin
    (what ``PIN_NUMBER.finditer`` finds, each match's name read back from its word, no
    further than the last match's end)."""
    floor = 0
    for m in finditer(_PIN_FROM_WORD, text):
        name = _NAME_BEFORE.search(text, max(floor, m.start() - 40), m.start())
        name_at = m.start() if name is None else name.start()
        start = name_at - (name_at > floor and text[name_at - 1] in "\"'")
        floor = m.end()
        key = text[name_at : m.end("w")]
        words = re.findall(r"[a-z0-9]+", key.lower())
        if not words or words[-1] not in ("pin", "pincode", "cvv", "cvc", "cvv2", "passcode"):
            continue
        before = text[max(0, start - _HARDWARE_REACH) : start]
        if not _HARDWARE.search(key) and not _HARDWARE_BEFORE.search(before):
            yield m.span("v")


#: a pin of a chip or a board (``GPIO pin: 1234``, ``fpga_pin=4821``): a number, no PIN
_HARDWARE_WORDS = r"gpio|led|pwm|adc|dac|bcm|board|header|fpga|mcu|i2c|spi|uart|analog|digital"
_HARDWARE = re.compile(rf"(?i)(?:^|[_.\-])(?:{_HARDWARE_WORDS})(?:[_.\-]|pin)")
_HARDWARE_BEFORE = re.compile(rf"(?i)\b(?:{_HARDWARE_WORDS})[ \t]*$")
_HARDWARE_REACH = 24


def mnemonic_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in finditer(MNEMONIC, text):
        if len(m.group("v").split()) in (12, 15, 18, 21, 24):
            yield m.span("v")


#: a word shortly before a list of bytes that says the bytes are a key (Solana keeps its
#: keypair as such a list in ``id.json``)
_KEY_WORD = re.compile(r"(?i)key|secret|seed|private|wallet|signer|mnemonic|solana|id\.json")
#: how far before a list of bytes that word is looked for (a command and its output)
_KEY_WORD_REACH = 120


def byte_key_spans(text: str) -> Iterator[tuple[int, int]]:
    """A list of 32 or 64 varied bytes that is a line of its own (a key file printed) or
    follows a word that says it is a key. A row of pixels, a histogram's bins or
    ``list(range(32))`` inside a tool's output are data, not a guess to replace."""
    for m in BYTE_KEY.finditer(text):
        numbers = [int(n) for n in re.findall(r"\d+", m.group("v"))]
        steps = {b - a for a, b in itertools.pairwise(numbers)}
        if max(numbers) >= 256 or len(set(numbers)) < len(numbers) // 2 or len(steps) == 1:
            continue
        line_start = text.rfind("\n", 0, m.start()) + 1
        line_end = text.find("\n", m.end())
        before = text[line_start : m.start()]
        after = text[m.end() : len(text) if line_end < 0 else line_end]
        alone = not before.strip(" \t\r\"'") and not after.strip(" \t\r,;\"'")
        if alone or _KEY_WORD.search(text, max(0, m.start() - _KEY_WORD_REACH), m.start()):
            yield m.span("v")


def hash_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in HASH_FORMATS.finditer(text):
        yield m.span("v")


def record_rules() -> list[Rule]:
    """The rules of this module: guesses from a record's shape, replaced where found (and
    everywhere when strongly random); a hash format is sure of itself."""
    sure = strongly_random
    return [
        Rule("password-hash", finder=hash_spans, shape=(HASH_FORMATS,), needs=("$", "*")),
        Rule(
            "keyword-secret",
            finder=sql_insert_spans,
            shape=(SQL_INSERT,),
            hints=("insert",),
            needs=("(",),
            confident=sure,
        ),
        Rule(
            "keyword-secret",
            finder=table_spans,
            shape=(TABLE_HEADER,),
            needs=("|",),
            confident=sure,
        ),
        Rule("cookie", finder=cookie_jar_spans, shape=(COOKIE_JAR,), needs=("\t",), confident=sure),
        Rule(
            "keyword-secret",
            finder=name_value_spans,
            shape=(NAME_VALUE, JSON_NAME_VALUE),
            needs=("name:", '"name"'),
            confident=sure,
        ),
        Rule(
            "keyword-secret",
            finder=pin_spans,
            shape=(PIN_NUMBER,),
            hints=("pin", "cvv", "cvc", "passcode"),
            confident=sure,
        ),
        Rule(
            "keyword-secret",
            finder=mnemonic_spans,
            shape=(MNEMONIC,),
            hints=("mnemonic", "phrase", "seed"),
            confident=sure,
        ),
        Rule("private-key", finder=byte_key_spans, shape=(BYTE_KEY,), needs=(",",)),
    ]
