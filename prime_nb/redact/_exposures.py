"""Secrets that what surrounds them exposes, whatever their name or shape.

Why apart: an attack set placed secrets where no key names them: the line a command
prints after ``security find-generic-password -w`` or ``vault kv get -field=...``, a
password fed as a file with ``<(echo -n ...)``, a value GitHub Actions is told to mask
(``::add-mask::``), a Terraform output marked ``"sensitive": true``, a WordPress salt in a
``define``, a cookie given to ``curl -b``, a header named for a session, an
``export NAME="..."`` of a strongly random value, a Google refresh token (``1//0...``).
Each rule here reads that context; the value is replaced where it was found, and
everywhere only when it is strongly random.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ._generic import _NOT_TOKEN_PREFIX, _RESPONSES_ITEM_ID
from ._literals import finditer
from ._rule import Rule
from ._values import credential_like, shannon_entropy, stand_in, strongly_random

#: a command whose output is a secret, and the one line it printed
PRINTED_SECRET = re.compile(
    r"(?:security[ \t]+find-(?:generic|internet)-password\b[^\n]*[ \t]-w\b"
    r"|\bpass[ \t]+show[ \t]+\S+|\bop[ \t]+read[ \t]+\S+"
    r"|\bvault[ \t]+(?:kv[ \t]+)?(?:get|read)\b[^\n]*-field[= ]\S+"
    r"|print-(?:access|identity)-token|get-login-password|\bgh[ \t]+auth[ \t]+token"
    r"|heroku[ \t]+auth:token|get-access-token\b[^\n]*(?:-o|--output)[ \t]+tsv"
    r"|\|[ \t]*base64[ \t]+(?:-d|--decode)\b"
    r"|\bcat[ \t]+\S*(?:master\.key|\.secret|secret_key\w*)\b)"
    r"[^\n]*\r?\n[ \t]*(?P<v>\S{6,4096})(?=[ \t]*(?:\r?\n|$|<))"
)
#: a value fed to a command as a file: ``-y <(echo -n pw)``
PROCESS_SUBSTITUTION = re.compile(
    r"<\([ \t]*(?:echo|printf)(?:[ \t]+-[a-zA-Z]+)*(?:[ \t]+(['\"])%s\1)?[ \t]+"
    r"(?P<v>'[^'\n]+'|\"[^\"\n]+\"|[^\s)'\"]+)[ \t]*\)"
)
#: ``::add-mask::value`` in a CI log or script
ADD_MASK = re.compile(
    r"(?:::add-mask::|##vso\[task\.setvariable\b[^\]\n]*\bissecret=true\b[^\]\n]*\])"
    r"(?P<v>[^\s\"'\\]+)"
)
#: a JSON object's value marked sensitive (Terraform state and plans), either order
_JSON_STRING = r"\"(?P<{}>(?:[^\"\\\n]|\\.){{1,4096}})\""
_SENSITIVE = r"\"sensitive\"[ \t]*:[ \t]*true"
SENSITIVE_VALUE = re.compile(
    r"\"value\"[ \t]*:[ \t]*" + _JSON_STRING.format("v") + rf"(?=[^{{}}]{{0,400}}?{_SENSITIVE})"
    rf"|{_SENSITIVE}[^{{}}]{{0,400}}?\"value\"[ \t]*:[ \t]*" + _JSON_STRING.format("w")
)
#: PHP's ``define('AUTH_SALT', '...')``: keys and salts of any characters
DEFINED_SECRET = re.compile(
    r"(?m)define\([ \t]*(['\"])[A-Z0-9_]*(?:KEY|SALT|SECRET|PASSWORD|TOKEN|NONCE)[A-Z0-9_]*\1"
    r"[ \t]*,[ \t]*(?P<q>['\"])(?P<v>(?:(?!(?P=q))[^\n]){8,512})(?:(?P=q)|$)"
)
#: a Django key by its prefix; MySQL's ``-p'pw'`` whose quote a cut left open
DJANGO_KEY = re.compile(r"(?<![\w-])django-insecure-[^\s'\"\\]{16,}")
MYSQL_QUOTED = re.compile(
    r"\b(?:mysql|mariadb|mysqldump|mysqladmin)\b[^\n|;&]*?[ \t]-p(['\"])(?P<v>[^'\"\n]{3,})"
)
#: a Google OAuth refresh token
REFRESH_TOKEN = re.compile(r"(?<![\w/])1//0[A-Za-z0-9_\-]{30,}")
#: ``curl -b 'a=b; c=d'`` and ``--cookie``
COOKIE_FLAG = re.compile(r"(?:^|[ \t])(?:-b|--cookie)[ \t]+(['\"]?)(?P<c>[^'\"\n]+)\1")
_COOKIE_PAIR = re.compile(r"(?:^|;)[ \t]*[\w.\-]+=(?P<v>[^;\s]+)")
#: a header (or log field) named for a session, a CSRF token or credentials
SESSION_HEADER = re.compile(
    r"(?i)(?:session|sess|sid|csrf|xsrf|creds)[\w\-]*[ \t]*:[ \t]*"
    r"(?P<v>[A-Za-z0-9+/=_\-.%~]{16,})(?=[ \t]*(?:$|[\r\n<>\"';,\\)]))"
)
#: ``export NAME="value"`` or ``NAME=value`` on a line of its own (a comment may follow)
EXPORTED = re.compile(
    r"(?m)^[ \t]*(?:export[ \t]+)?(?P<n>[A-Z][A-Z0-9_]*)=(['\"]?)"
    r"(?P<v>[A-Za-z0-9+/=_\-.~]{16,})\2(?=[ \t]*(?:#[^\n]*)?\r?$)"
)
#: names whose value is an id or digest, random as it looks
_ID_NAME = re.compile(
    r"(?:^|_)(?:SHA|COMMIT|HASH|DIGEST|REV|REVISION|VERSION|ID|CHECKSUM|UUID|TAG)$"
)
#: ``HEROKU_API=...``: a name that ends in ``API`` holds its key
API_NAMED = re.compile(r"\b[A-Z][A-Z0-9]*_API[ \t]*[=:][ \t]*(['\"]?)(?P<v>[^\s'\"/]{16,})\1")


#: a short prefix and a body of 32 to 64 hex digits (``fc-``, ``dapi``-like tokens): hex
#: has 4 bits a character at most, so a random body can fall under the entropy that the
#: generic token of ``_generic`` asks of mixed letters and digits
HEX_TOKEN = re.compile(
    r"(?<![\w.+=~/#:-])(?P<prefix>[A-Za-z][A-Za-z0-9]{0,11})[_\-](?P<body>[0-9a-f]{32,64})(?![\w+/=~-])"
)


def hex_token_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in finditer(HEX_TOKEN, text):  # a long text: where its shape ends
        body = m.group("body")
        if _NOT_TOKEN_PREFIX.match(m.group("prefix")) or sum(c.isdigit() for c in body) < 4:
            continue
        if _RESPONSES_ITEM_ID.match(m[0]):
            continue
        if sum(c.isalpha() for c in body) >= 4 and shannon_entropy(body) >= 2.8:
            yield m.span()


def _value(m: re.Match[str], group: str = "v") -> tuple[int, int]:
    start, end = m.span(group)
    if end - start >= 2 and m.string[start] in "'\"" and m.string[end - 1] == m.string[start]:
        return start + 1, end - 1
    return start, end


def printed_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in PRINTED_SECRET.finditer(text):
        if not m.group("v").startswith("-----") and not stand_in(m.group("v")):
            yield m.span("v")


def substituted_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in PROCESS_SUBSTITUTION.finditer(text):
        start, end = _value(m)
        if not stand_in(text[start:end]):
            yield start, end


def masked_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in ADD_MASK.finditer(text):
        if not stand_in(m.group("v")):
            yield m.span("v")


def sensitive_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in SENSITIVE_VALUE.finditer(text):
        group = "v" if m.group("v") is not None else "w"
        if not stand_in(m.group(group)):
            yield m.span(group)


def defined_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in DEFINED_SECRET.finditer(text):
        value = m.group("v")
        if not stand_in(value) and not re.fullmatch(r"[a-z ]+", value):
            yield m.span("v")


def mysql_quoted_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in MYSQL_QUOTED.finditer(text):
        if not stand_in(m.group("v")):
            yield m.span("v")


def cookie_flag_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in COOKIE_FLAG.finditer(text):
        base = m.start("c")
        for pair in _COOKIE_PAIR.finditer(m.group("c")):
            if credential_like(pair.group("v")):
                yield base + pair.start("v"), base + pair.end("v")


def session_header_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in SESSION_HEADER.finditer(text):
        if credential_like(m.group("v")):
            yield m.span("v")


def exported_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in EXPORTED.finditer(text):
        if strongly_random(m.group("v")) and not _ID_NAME.search(m.group("n")):
            yield m.span("v")


def api_named_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in API_NAMED.finditer(text):
        if credential_like(m.group("v")):
            yield m.span("v")


def _guess(name: str, **how: Any) -> Rule:
    return Rule(name, confident=strongly_random, **how)


def exposure_rules() -> list[Rule]:
    """The rules of this module, each with the cheap tests that skip a text it cannot hit."""
    return [
        Rule("token", pattern=REFRESH_TOKEN, group=0, needs=("1//0",)),
        Rule("token", pattern=DJANGO_KEY, group=0, needs=("django-insecure-",)),
        _guess(
            "prefixed-token", finder=hex_token_spans, needs=("-", "_"), run=32, shape=(HEX_TOKEN,)
        ),
        _guess(
            "command-password",
            finder=mysql_quoted_spans,
            needs=("-p'", '-p"'),
            shape=(MYSQL_QUOTED,),
        ),
        _guess(
            "printed-secret",
            finder=printed_spans,
            shape=(PRINTED_SECRET,),
            needs=("\n",),
            hints=("password", "pass", "op ", "vault", "token", "base64", "cat "),
        ),
        _guess(
            "command-password",
            finder=substituted_spans,
            needs=("<(",),
            shape=(PROCESS_SUBSTITUTION,),
        ),
        _guess(
            "masked-secret",
            finder=masked_spans,
            needs=("::add-mask::", "issecret=true"),
            shape=(ADD_MASK,),
        ),
        _guess(
            "sensitive-value",
            finder=sensitive_spans,
            needs=('"sensitive"',),
            shape=(SENSITIVE_VALUE,),
        ),
        _guess("keyword-secret", finder=defined_spans, needs=("define(",), shape=(DEFINED_SECRET,)),
        _guess("cookie", finder=cookie_flag_spans, needs=("-b", "--cookie"), shape=(COOKIE_FLAG,)),
        _guess(
            "session-token",
            finder=session_header_spans,
            shape=(SESSION_HEADER,),
            needs=(":",),
            hints=("sess", "sid", "csrf", "xsrf", "creds"),
        ),
        _guess("random-export", finder=exported_spans, needs=("=",), shape=(EXPORTED,)),
        _guess("keyword-secret", finder=api_named_spans, needs=("_API",), shape=(API_NAMED,)),
    ]
