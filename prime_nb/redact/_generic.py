"""Generic detectors: secrets known by their shape, not by a provider's name.

Why apart from the lists: a list of provider prefixes is always one provider behind (an
attack found Notion, Doppler, PlanetScale, Supabase, Sentry, Heroku, Fly, Figma,
Buildkite, Netlify, Docker Hub, LangSmith, Langfuse, Tavily, Firecrawl, Cerebras and
Pinecone tokens missing, and a Sentry prefix mistyped). What they share is a shape: a
short lower-case (or upper-case) prefix, a separator, and a long random body. These
detectors find that shape, and other secrets that a shape gives away: a token as the
user of a URL (a Sentry DSN, a git remote), a password's crypt hash (``/etc/shadow``,
``htpasswd``), a password in ``key value`` config lines (``requirepass``, ``psk``),
a YAML block scalar under a password's key.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ._literals import finditer
from ._long_scan import also_expected
from ._values import ordinary, secret_key_class, shannon_entropy, stand_in, strongly_random

#: ``<prefix><sep><long random body>``: a prefix of words (``pscale_tkn``, ``dp.st.prd``,
#: ``HRKU``), then a body of 30+ token characters
PREFIXED_TOKEN = re.compile(
    r"(?<![\w.+=~-])(?P<prefix>[A-Za-z][A-Za-z0-9]{0,11}(?:[_.\-][A-Za-z0-9]{1,12}){0,3})"
    r"[_.\-](?P<body>[A-Za-z0-9_\-]{30,})(?![\w+/=~-])"
)
#: prefixes of random-looking things that are no secret: digests, commits, ids of
#: messages, requests, calls, runs and files
_NOT_TOKEN_PREFIX = re.compile(
    r"(?i)^(?:sha\d*|md5|blake\d\w*|xxh\d*|crc\d*|hash|digest|integrity|commit|rev|git|g|"
    r"build|version|v\d*|release|tag|id|uuid|guid|run|job|trace|span|req|request|msg|"
    r"message|chatcmpl|call|toolu|tool|resp|response|thread|asst|batch|file|ftjob|step|"
    r"evt|event|cus|sub|pi|ch|in|acct|session|sess|org|user|team|project|proj|cache|"
    r"data|img|image|blob|obj|chunk|part|node|n|entry)$"
)
#: the id of an item of OpenAI's Responses API (a reasoning item ``rs_``, a function call
#: ``fc_``, a web search ``ws_``): pi writes them in a reasoning item's JSON and in a tool
#: call's id (``call_...|fc_...``). Firecrawl's keys are ``fc-`` and 32 digits
_RESPONSES_ITEM_ID = re.compile(r"^(?:rs|fc|ws)_[0-9a-f]{48,50}$")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
#: ``pre-fix-word-word``: a body of words joined by dashes (a slug, a branch name)
_SLUG = re.compile(r"^(?:[a-z]+|\d+)(?:[_\-](?:[a-z]+|\d+))*$")


def _random_body(core: str) -> bool:
    """Random enough to be a token's body: digits or both cases, high entropy, no words
    (a token may lack digits: ``fo1_hXhdwPLZ...``)."""
    mixed = any(c.isdigit() for c in core) or (core.lower() != core and core.upper() != core)
    return mixed and shannon_entropy(core) >= 3.2 and not ordinary(core) and not stand_in(core)


def prefixed_token_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in finditer(PREFIXED_TOKEN, text):
        prefix, body = m.group("prefix"), m.group("body")
        first = re.split(r"[_.\-]", prefix)[0]
        if _NOT_TOKEN_PREFIX.match(first) or _SLUG.match(body) or _RESPONSES_ITEM_ID.match(m[0]):
            continue
        if _UUID.match(body.lower()) and not prefix.lower().startswith(("sk", "pk", "rk")):
            continue  # an id with a UUID: a key only when its prefix says so
        # the prefix's later parts may be the body's start (``tkn_lunegbeEiDRn_Ww...``)
        core = re.sub(r"[_.\-]", "", prefix[len(first) :] + body)
        if len(core) < 28 or not _random_body(core):
            continue
        yield m.span()


#: a URL whose user is a long token, with no password (``https://<key>@o1.ingest...``)
URL_USER_TOKEN = re.compile(r"(?<=://)(?P<v>[A-Za-z0-9_\-.~%]{20,})@(?=[A-Za-z0-9])")


def url_user_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in URL_USER_TOKEN.finditer(text):
        if strongly_random(m.group("v")):
            yield m.span("v")


#: a crypt(3) hash: ``$6$salt$hash``, ``$2b$12$...``, ``$apr1$...``, ``$argon2id$...``
CRYPT_HASH = re.compile(
    r"\$(?:1|2[abxy]?|5|6|y|gy|7|apr1|argon2(?:id|i|d)|scrypt|pbkdf2(?:-sha\d+)?)\$"
    r"[A-Za-z0-9./+=,$\-]{20,}"
)


def crypt_spans(text: str) -> Iterator[tuple[int, int]]:
    """A hash ends in its digest; a format described with placeholders
    (``$argon2id$v=19$m=65536,t=3,p=4$<salt>$<hash>``) ends in its parameters."""
    for m in finditer(CRYPT_HASH, text):
        last = m.group()[m.group().rfind("$") + 1 :]
        if len(last) >= 6 and "," not in last:
            yield m.start() + 1, m.end()


#: a config line ``name value`` (redis ``requirepass``, ``masterauth``, sshd-like files)
#: whose name names a password, or ``name value`` of any secret's name with a random value
SPACED_PAIR = re.compile(
    r"(?m)^[ \t]*(?:(?:export|set|declare|-x)[ \t]+)*(?P<key>[A-Za-z_][\w.\-]{1,60})[ \t]+"
    r"(?P<v>\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|[^\s\"'#;]{1,500})[ \t]*(?=\r?$|[ \t]+--?[a-z])"
)
#: a key whose bare name is a pre-shared key or a one-time-password seed
_EXTRA_SECRET_NAMES = re.compile(
    r"(?i)^(?:\w*[_.\-])?(?:psk|wpa_psk|t?otp_?(?:seed|secret)|(?:require|master)(?:pass|auth))$"
)


#: ``SPACED_PAIR`` after a line break rather than at a line's start: Python's search
#: skips to each break in C, where ``^`` is tried at every character
_SPACED_PAIR_AFTER_BREAK = re.compile("(?m)\n" + SPACED_PAIR.pattern.removeprefix("(?m)^"))
assert SPACED_PAIR.pattern.startswith("(?m)^")


def spaced_pair_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in _spaced_pairs(text):
        key, value = m.group("key"), m.group("v").strip("\"'")
        kind = "password" if _EXTRA_SECRET_NAMES.match(key) else secret_key_class(key)
        if kind is None or stand_in(value) or not value:
            continue
        quoted_name = m.group("v")[:1] in "\"'" and key[:1].islower()  # storePassword "..."
        if (
            kind == "password"
            and ("_" in key or key.islower() or quoted_name)
            and value.lower() not in _WORDS
        ):
            if len(value) >= 6 and not value.isdigit():
                yield _unquoted(m)
        elif strongly_random(value) and len(value) >= 16:
            yield _unquoted(m)


def _spaced_pairs(text: str) -> Iterator[re.Match[str]]:
    """``SPACED_PAIR.finditer(text)`` (each match within one line, from its start): the
    first line's match, then those after each line break."""
    first = SPACED_PAIR.match(text)
    if first is not None:
        yield first
    yield from _SPACED_PAIR_AFTER_BREAK.finditer(text)


#: words a ``name value`` line of config holds where no secret is
_WORDS = frozenset({"yes", "no", "on", "off", "true", "false", "none", "required", "optional"})


def _unquoted(m: re.Match[str]) -> tuple[int, int]:
    start, end = m.span("v")
    if m.group("v")[:1] in "\"'":
        return start + 1, end - 1
    return start, end


#: ``name = value`` / ``name: value`` / ``name="value"`` whose name is a pre-shared key or
#: an OTP seed (names the word lists do not hold): found by the end of its name, the name
#: read back from there, the value matched forward. A pattern that began with the name's
#: ``[\w.-]*`` would try every word start of a long text and run on to its end each time
EXTRA_KEY_END = re.compile(r"(?i:psk|otp_?seed|totp_?secret|totp|otp_?secret)(?=[\"']?[ \t]*[:=])")
EXTRA_VALUE = re.compile(
    r"[\"']?[ \t]*[:=][ \t]*"
    r"(?P<v>\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|[^\s\"',;}]{6,500})"
)
#: the longest name read back from its end, and what a name is made of
_KEY_BACK = 200
_KEY_CHAR = re.compile(r"[\w.\-]")
_WORD_CHAR = re.compile(r"\w")


#: redis' ``requirepass``/``masterauth`` anywhere on a line (a config quoted in prose)
REDIS_PASSWORD = re.compile(
    r"(?<![\w-])(?:requirepass|masterauth)[ \t]+"
    r"(?P<v>\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|[^\s\"'#]+)"
)
#: ``apiKey = 'first half' +\n 'second half'``: a secret split over concatenated strings
CONCATENATED = re.compile(
    r"(?P<key>[A-Za-z_][\w.\-]{0,60})[\"']?[ \t]*(?::=|=|:)[ \t]*"
    r"(?P<q>[\"'`])(?P<a>[^\"'`\n]{1,500})"
    r"(?P=q)(?:[ \t]*\+[ \t]*\r?\n?[ \t]*(?P<r>[\"'`])(?P<b>[^\"'`\n]{1,500})(?P=r))+"
)


#: where strings are joined: a quote, ``+``, a quote (the pattern above runs only near one)
JOINED = re.compile(r"[\"'`][ \t]*\+[ \t]*\r?\n?[ \t]*[\"'`]")
also_expected(EXTRA_KEY_END, REDIS_PASSWORD, JOINED)  # read in each long text's one scan
#: how far before a join its match can start (a name, an operator, a first part)
_JOIN_BACK = 700


def _concatenations(text: str) -> Iterator[re.Match[str]]:
    """``CONCATENATED``'s matches, looked for only around each join: run over a whole long
    text (base64 holds many ``+``), it tries every word start there and reads ahead."""
    done = 0
    for join in finditer(JOINED, text):
        if join.start() < done:
            continue
        lo = max(done, join.start() - _JOIN_BACK)
        near = CONCATENATED.search(text, lo, join.end() + 502)
        m = CONCATENATED.match(text, near.start()) if near is not None else None
        if m is not None:
            done = m.end()
            yield m


def extra_assignment_spans(text: str) -> Iterator[tuple[int, int]]:
    if "+" in text:
        for m in _concatenations(text):
            if secret_key_class(m.group("key")) is not None:
                for part in re.finditer(r"[\"'`]([^\"'`\n]+)[\"'`]", m.group(), re.S):
                    if not stand_in(part.group(1)):
                        yield m.start() + part.start(1), m.start() + part.end(1)
    for m in finditer(REDIS_PASSWORD, text):
        if not stand_in(m.group("v").strip("\"'")):
            yield _unquoted(m)
    done = 0  # what a match took: a name inside a value is not read again
    for end in finditer(EXTRA_KEY_END, text):
        if end.start() < done:
            continue
        start = end.start()
        while start > max(done, end.start() - _KEY_BACK) and _KEY_CHAR.match(text, start - 1):
            start -= 1
        while start < end.start() and not _WORD_CHAR.match(text, start):
            start += 1  # a name begins at a word boundary: ``.psk`` is ``psk``
        assigned = EXTRA_VALUE.match(text, end.end())
        if assigned is None:
            continue
        done = assigned.end()
        if not _EXTRA_SECRET_NAMES.match(text[start : end.end()]):
            continue
        value = assigned.group("v").strip("\"'")
        if len(value) >= 6 and not stand_in(value) and not value.isdigit():
            yield _unquoted(assigned)


#: ``password: |`` (or ``>``): a YAML block scalar, the value on the indented lines after
YAML_BLOCK = re.compile(
    r"(?m)^(?P<indent>[ \t]*)(?:- )?(?P<key>[\w.\-]{1,60}):[ \t]*[|>][+-]?[ \t]*\r?\n"
    r"(?=(?P<v>(?:(?P=indent)[ \t]+[^\n]*(?:\n|$))+))"
)


def yaml_block_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in YAML_BLOCK.finditer(text):
        if secret_key_class(m.group("key")) is None:
            continue
        start = m.start("v")
        for line in re.finditer(r"[^\n]+", m.group("v")):
            value = line.group().strip()
            if value and not stand_in(value):
                left = len(line.group()) - len(line.group().lstrip())
                yield start + line.start() + left, start + line.start() + left + len(value)


#: command lines whose tool takes a secret by a flag the main table lacks
COMMAND_SECRET = re.compile(
    r"(?<![\w-])ssh-keygen\b[^\n|;&]*?[ \t]-[NP][ \t]+(?P<a>'[^'\n]*'|\"[^\"\n]*\"|\S+)"
    r"|(?<![\w-])(?:aws|gcloud|npm|yarn|pnpm|git)\b[^\n|;&]*?\bconfig(?:ure)?[ \t]+set[ \t]+"
    r"(?P<name>[^\s=]+)[ \t]+(?P<c>'[^'\n]*'|\"[^\"\n]*\"|[^\s-]\S*)"
    r"|(?<![\w-])snmp(?:walk|get|set|bulkwalk|bulkget|getnext|table|trap)\b[^\n|;&]*?"
    r"[ \t]-c[ \t]*(?P<b>'[^'\n]*'|\"[^\"\n]*\"|\S+)"
)


def command_secret_spans(text: str) -> Iterator[tuple[int, int]]:
    for m in finditer(COMMAND_SECRET, text):
        group = next(g for g in "abc" if m.group(g) is not None)
        if group == "c" and secret_key_class(m.group("name").rsplit(":", 1)[-1]) is None:
            continue
        start, end = m.span(group)
        if m.group(group)[:1] in "\"'":
            start, end = start + 1, end - 1
        value = text[start:end]
        if value and not stand_in(value) and value.lower() not in ("public", "private"):
            yield start, end


#: what a tool writes where it cut its output: the text before it may end mid-secret
TRUNCATED = re.compile(
    r"(?P<v>[A-Za-z0-9+/_\-.=~!@#%^&*$;:]{6,})[\"']?[ \t]*\r?\n?[ \t]*"
    r"(?:\[[^\]\n]{0,40}truncated[^\]\n]{0,40}\]|\(truncated\)|<truncated>|\.\.\.$|…)"
)
#: a secret's word before a cut value on its line
_SECRET_WORD = re.compile(
    r"(?i)pass|pw|secret|token|key|auth|cred|bearer|cookie|psk|://[^\s:/@]*:|\bidentified\s+by"
    r"|\b(?:sqlplus|echo|login|connect)\b"
)


#: how far before a cut value its line is read for a secret's word: a long line of many
#: cut values must not be read back to its start for each
LINE_BACK = 256
#: what every match of :data:`_SECRET_WORD` holds, case folded (a line without one of
#: them is not searched)
_SECRET_WORD_PARTS = (
    *("pass", "pw", "secret", "token", "key", "auth", "cred", "bearer", "cookie", "psk"),
    *("://", "identified", "sqlplus", "echo", "login", "connect"),
)


def truncated_spans(text: str) -> Iterator[tuple[int, int]]:
    """A value cut by a truncation mark: replaced when random, or a secret's word is
    before it on its line, within :data:`LINE_BACK` characters (the rule that knows its
    whole shape cannot match half)."""
    for m in TRUNCATED.finditer(text):
        start, end = m.span("v")
        if "://" in m.group("v"):  # a URL: what follows its last ``:`` (a password)
            start += m.group("v").rfind(":") + 1
            while start < end and text[start] == "/":
                start += 1
        value = text[start:end]
        if len(value) < 6:
            continue
        back = max(0, m.start() - LINE_BACK)
        line = text[text.rfind("\n", back, m.start()) + 1 or back : start]
        reference = stand_in(value) and not value.startswith("$")  # "$ecret" is cut too
        if strongly_random(value) or (not reference and _secret_word_in(line)):
            yield start, end


def _secret_word_in(line: str) -> bool:
    folded = line.casefold()
    if not any(part in folded for part in _SECRET_WORD_PARTS):
        return False
    return _SECRET_WORD.search(line) is not None
