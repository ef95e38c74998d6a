"""What a value and a key look like: a secret, a stand-in for one, or something ordinary.

Why apart from the rules: every rule that reads context (a key's name, a flag, a command
line, a credential file) asks the same two questions, whether the name says "secret" and
whether the value could be one, and the scrubber asks them of JSON keys too. A key names a
secret by a word in it (``key``, ``pat``, ``token``, ``secret``, ``pass``, ``pw``,
``pwd``, ``cred``, ``auth``), unless its last word says it is about the secret (its
length, its file, its name); a value is plainly not a secret when it is a number where a
count is meant, a path, a reference or a template.
"""

from __future__ import annotations

import collections
import functools
import json
import math
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any


def shannon_entropy(value: str) -> float:
    """Bits per character of ``value`` (0 for an empty string)."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


# -- what a value looks like --------------------------------------------------------------

#: a value that stands for a secret without being one: an environment reference, a
#: template, a mask, a placeholder (ours included)
_STAND_IN = re.compile(
    r"(?i)^(?:\$(?:\{[^}]*\}|\([^)]*\)|[A-Za-z_]\w*)(?=$|[/:.\\])|\$\{|%[A-Za-z_]+%$|<.*>$|\{\{.*\}\}$|\[redacted|\[withheld|.*redacted.*$"
    # (a placeholder's words before its last are read possessively: the last has no
    # separator in them, so they end at the text's last separator either way, and a lazy
    # repeat keeps a backtracking record per word, many times a long text of words)
    r"|[*x•#.\-_]{3,}$|(?:your|my|the|some|enter|insert|replace)[-_ ](?:\w+[-_ ])*+"
    r"(?:pass(?:word|wd)?|token|key|secret|value|here|credentials?|pw|pwd)s?$"
    r"|process\.env\b|os\.(?:environ|getenv)\b|env\(|getenv\b"
    # where a tool reads the password from (``apksigner --ks-pass env:KS_PASS``, openssl's
    # ``-passin file:...``): a name, not the password (``pass:...`` is the password)
    r"|(?:env|file|fd):[\w./~-]+$"
    # a secret store's reference (``vault:secret/data/db#password``), a shell expansion's
    # message (``${DB_PASSWORD:?must be set}`` read from its colon), a dotted reference
    # of code or Terraform (``data.aws_secretsmanager_secret_version.db.secret_string``)
    r"|(?:vault|sops|ssm|awssm|gcpsm|azkv|keyvault|secretsmanager):[\w/]|(?-i:\?[a-z]+$"
    r"|[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*){2,}$)|put your unique phrase here$)"
)
#: words that follow "password:" in prose, or that stand for no value in config
_NOT_A_VALUE = frozenset(
    {
        "none",
        "null",
        "nil",
        "true",
        "false",
        "yes",
        "no",
        "on",
        "off",
        "empty",
        "unset",
        "required",
        "optional",
        "hidden",
        "set",
        "string",
        "str",
        "int",
        "bool",
        "undefined",
        "default",
        "auto",
        "is",
        "was",
        "are",
        "be",
        "the",
        "a",
        "an",
        "and",
        "or",
        "not",
        "of",
        "for",
        "to",
        "in",
        "it",
        "its",
        "this",
        "that",
        "with",
        "from",
        "here",
        "there",
        "must",
        "should",
        "will",
        "can",
        "field",
        "fields",
        "value",
        "values",
        "prompt",
        "stdin",
        "file",
        "env",
        "secret",
        "secrets",
        "password",
        "passwords",
        "token",
        "tokens",
        "key",
        "keys",
        "changed",
        "reset",
        "expired",
        "missing",
        "invalid",
        "incorrect",
        "wrong",
        "protected",
        "needed",
        "only",
    }
)
#: no word longer: a longer text is none of them (and ``lower`` of a long text that is
#: not ASCII takes twelve bytes a character while it works)
_LONGEST_WORD = max(map(len, _NOT_A_VALUE))
#: code that reads a secret from somewhere, not the secret: ``password = self.password``
_CODE_HEAD = re.compile(
    r"^(?:self|cls|this|args|opts|options|kwargs|config|conf|cfg|settings|env|params|"
    r"request|req|ctx|os|sys|process|secrets|vault|getpass)\b[.\[(]"
)
#: the pieces of a name, a version, a model or an image tag: words and small numbers
_ORDINARY_PART = re.compile(
    r"^(?:[A-Z]*[a-z]*|(?:[A-Z]?[a-z]+){1,5}|[A-Z]+[a-z]+(?:[A-Z][a-z]+){0,3}"  # word, camelCase
    r"|\d{1,8}|[A-Za-z]{1,12}\d{1,3}|\d{1,3}[A-Za-z]{1,3}|v\d+[a-z]?\d*)$"
)
_SPLIT = re.compile(r"[-_./:@+~=,]+")


def is_path(value: str) -> bool:
    """A path of plain names (``/srv/app/2024-11-02``); base64 may start with "/" too."""
    if re.match(r"^[A-Za-z]:\\", value):
        return True
    return value.startswith(("/", "~", "./", "../")) and ordinary(value)


def stand_in(value: str) -> bool:
    """A value that names no secret: an env reference, a mask, a template, a common word."""
    core = value.strip("\"'` ")
    if len(core) < 4 or (len(core) <= _LONGEST_WORD and core.lower() in _NOT_A_VALUE):
        return True
    if is_path(core):
        return True  # ``pwd: /srv/app``; a home folder has its own rule
    if re.match(r"^[a-z][a-z0-9+.-]*://", core):
        return True  # a URL: its password, if any, is the URL rule's
    return bool(_STAND_IN.match(core) or _CODE_HEAD.match(core))


def ordinary(value: str) -> bool:
    """Built only of words and small numbers: a model name, an image tag, a version.

    ``gpt-4o-2024-08-06``, ``python3.11-slim``, ``v1.2.3``, ``release_notes`` are; a
    token (``Zx9vB3nM7qL2wE5r``) has a long part that mixes letters and digits.
    """
    return all(_ORDINARY_PART.match(p) for p in _parts(value.strip("\"'`")))


def _parts(text: str) -> Iterator[str]:
    """The non-empty parts of ``text`` between separators, one at a time (a long text's
    list of parts would be more than the text)."""
    at = 0
    for sep in _SPLIT.finditer(text):
        if sep.start() > at:
            yield text[at : sep.start()]
        at = sep.end()
    if at < len(text):
        yield text[at:]


def credential_like(value: str) -> bool:
    """A value that could be a key or token: 8+ characters, no stand-in, not ordinary."""
    core = value.strip("\"'`")
    return len(core) >= 8 and not stand_in(core) and not ordinary(core)


def strongly_random(value: str) -> bool:
    """A value safe to replace everywhere in a file: long, mixed, high entropy, not ordinary.

    Only such values (and those of provider formats) are replaced file-wide; a weaker
    finding (``DB_PASSWORD=hunter2``) is replaced where it was found, so that a common
    word taken for a password does not vanish from every message.
    """
    core = value.strip("\"'`=")
    return (
        len(core) >= 12
        and any(c.isdigit() for c in core)
        and any(c.isalpha() for c in core)
        and shannon_entropy(core) >= 3.2
        and not ordinary(core)
        and not stand_in(core)
    )


# -- keys that name a secret --------------------------------------------------------------

#: a key whose value is a human-chosen secret: any value counts
_PASSWORD_KEYS = re.compile(
    r"(?:password|passwd|passphrase|passcode|pwd|secret|secretkey|secretaccesskey|contrasena|"
    r"contraseña|privatekey|pass|pw)$|password|passwd|privatekey|secret"
)
#: a key whose value is a machine-made credential
_TOKEN_KEYS = re.compile(
    r"(?:token|apikey|accesskey|clientkey|signingkey|sessionkey|authkey|masterkey|"
    r"encryptionkey|licensekey|servicekey|accountkey|auth|authorization|credential|"
    r"credentials|cookie|setcookie|secrets|passwords|apikeys|sessionid|bearer)$"
    r"|apikey|accesstoken|refreshtoken|authtoken|idtoken"
)
#: tokens that are no secret: paging, cancelling, a tokenizer's special tokens
_NOT_SECRET_KEYS = re.compile(
    r"(?:page|next|continuation|cancellation|cancel|pad|eos|bos|stop|unk|sep|cls|mask|max|"
    r"num|count|total|input|output|cache|reasoning|start|end)token$|(?:author|oauthurl)$"
    # where a secret is, or what it is like, not the secret: --password-stdin, TOKEN_FILE
    r"|(?:pass|passwd|password|pw|pwd|secrets?|tokens?|keys?|auth|cookies?|credentials?)"
    r"(?:stdin|file|path|dir|"
    r"name|names|id|ids|len|length|policy|prompt|hash|reset|strength|required|field|type|"
    r"url|uri|endpoint|expiry|expires|expiresat|expiresin|ttl|count|limit|budget|prefix|"
    r"header|env|var|cmd|command|helper|store|manager|mode|format|version|scope|scopes)$"
)
#: what a key's name is read without: ``_``, ``.``, ``-`` and every character
#: ``str.isspace`` tells (what ``\s`` matches), each deleted by ``str.translate``
#: (``re.sub`` keeps a string for every piece between matches until it joins them, about
#: ten times a long key's size: a text pasted as a key)
_SEPARATORS_GONE = dict.fromkeys(
    map(
        ord,
        "_.-\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004"
        "\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000",
    )
)


#: the words of a key's name: ``DB_PASSWORD``, ``refreshToken``, ``X-Api-Key``
_NAME_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
#: words that make any key a password's (any value) or a key's (a value that could be one)
_PASSWORD_WORDS = frozenset(
    {"password", "passwd", "passphrase", "passcode", "pass", "pw", "pwd", "secret", "storepass",
     "keypass", "contrasena"}
)  # fmt: skip
_KEY_WORDS = frozenset(
    {"key", "keys", "token", "tokens", "pat", "cred", "creds", "credential", "credentials",
     "auth", "apikey", "cookie"}
)  # fmt: skip
#: a name's last word that says the value is about the secret, not the secret
_QUALIFIERS = frozenset(
    {"stdin", "file", "files", "path", "paths", "dir", "name", "names", "id", "ids", "len",
     "length", "policy", "prompt", "hash", "hasher", "hashers", "reset", "strength",
     "required", "field", "fields", "type", "types", "url", "uri", "endpoint", "expiry",
     "expires", "expiration", "ttl", "count", "limit", "budget", "prefix", "header", "env",
     "var", "cmd", "command", "helper", "store", "manager", "mode", "format", "version",
     "scope", "scopes", "timeout", "min", "max", "size", "bits", "days", "seconds",
     "minutes", "hours", "method", "provider", "ref", "reference", "location", "algorithm",
     "alg", "enabled", "disabled", "label", "hint", "regex", "pattern", "rotation",
     "interval", "source", "kind", "schema", "template", "strategy", "backend", "digits",
     "chars", "complexity", "history", "attempts", "retries", "lifetime", "usage", "error",
     "errors", "rate", "index", "server", "service", "host", "port", "user", "username",
     "encryption", "scanning", "at", "on", "date", "time", "timestamp", "created",
     "updated", "used", "sent"}
)  # fmt: skip


#: one of which every name :func:`secret_key_class` gives a class holds, once lower-cased
#: and without separators: each word of the two word lists and of the two key patterns
#: holds one (a word of the name is a run of the name without separators)
_SECRET_PART = re.compile("pass|pw|secret|contrase|key|token|pat|cred|auth|cookie|sessionid|bearer")


def secret_key_class(name: str) -> str | None:
    """``"password"``, ``"token"``, ``"key"`` or None: whether a key names a secret, and
    which kind.

    Case and separators do not matter (``X-Api-Key``, ``client_secret``, ``DB_PASSWORD``,
    ``refreshToken``). A password-like key makes any value a secret; a token-like key only
    a value that could be one (see :func:`credential_like`), unless the key is a JSON key.
    Any other name with a secret's word in it (``LARAVEL_APP_KEY``, ``AZURE_DEVOPS_PAT``,
    ``VAULT_SECRET_ID``, a bare ``key``) is a ``"key"``: its value is a secret when it
    could be one, a JSON key's too. A name whose last word qualifies the secret
    (``PASSWORD_MIN_LENGTH``, ``secretRef``, ``auth_method``) names none.
    """
    if len(name) > _CACHED_LONGEST:
        return _key_class(name)
    return _cached_key_class(name)


#: a longer name is not kept by the cache: keys of 4 KB, or a text pasted as a key,
#: would keep a line's worth of them alive after their line
_CACHED_LONGEST = 256


# a session's keys repeat in every entry; a line of thousands of distinct keys must not be
# held again as the cache (1,024 names of at most 256 characters)
@functools.lru_cache(maxsize=1024)
def _cached_key_class(name: str) -> str | None:
    return _key_class(name)


def _key_class(name: str) -> str | None:
    bare = name.strip("\"'`[]\\")
    if len(bare) > _READ_WHOLE and _longer_bare(bare, 80):
        # what follows gives such a name no class but a secret's id by its last words:
        # its lower case without separators (twice the name while made) is not made
        return "key" if _name_words(bare, every=False) == ["secret", "id"] else None
    norm = bare.lower().translate(_SEPARATORS_GONE)
    if _SECRET_PART.search(norm) is None:
        return None  # no secret's word: most keys, said without reading their words
    words = _name_words(bare, every=len(norm) <= 80)
    if len(words) > 1 and words[-1] in _QUALIFIERS and words[-2:] != ["secret", "id"]:
        return None
    if words[-2:] == ["secret", "id"]:
        # a Vault AppRole's secret id (a UUID) is a credential; an AWS secret's id
        # (``--secret-id prod/db``) is a name
        return "key"
    if not norm or len(norm) > 80 or _NOT_SECRET_KEYS.search(norm):
        return None
    kind = _list_class(name, norm)
    if kind is not None:
        return kind
    if any(w in _PASSWORD_WORDS for w in words):
        return "password"
    if any(w in _KEY_WORDS for w in words):
        return "key"
    return None


#: a name longer than this is told to be over 80 characters (separators aside) first
_READ_WHOLE = 1024


def _longer_bare(bare: str, most: int) -> bool:
    """Whether ``bare`` lower-cased and without separators is over ``most`` characters,
    read a stretch at a time (a character's lower case is as long wherever it stands)."""
    size = 0
    for at in range(0, len(bare), _READ_WHOLE):
        size += len(bare[at : at + _READ_WHOLE].lower().translate(_SEPARATORS_GONE))
        if size > most:
            return True
    return False


def _name_words(bare: str, every: bool) -> list[str]:
    """The words of a key's name, lower-cased; only its last two unless ``every``: a
    name too long to be a secret's is read for its last words alone, and a list of every
    word of a long key (a text pasted as a key) would be many times the key."""
    if every:
        return [w.lower() for w in _NAME_WORDS.findall(bare)]
    last: collections.deque[str] = collections.deque(maxlen=2)
    last.extend(m.group().lower() for m in _NAME_WORDS.finditer(bare))
    return list(last)


def _list_class(name: str, norm: str) -> str | None:
    """The class of a name the lists know (``apikey``, ``passwd``, ``refreshtoken``)."""
    if _PASSWORD_KEYS.search(norm):
        if norm.endswith(("pass", "pw")) and not re.search(
            r"(?:^|[_.\-\s])(?:pass|pw)$", name.lower()
        ):
            return None  # "bypass", "compass": only a separate word "pass" counts
        return "password"
    if _TOKEN_KEYS.search(norm):
        return "token"
    return None


def secret_under(key: str, value: object) -> bool:
    """Whether ``value``, found under the JSON key ``key``, is a secret by its key: any
    value of a password's or token's key, a value that could be one of any other key with
    a secret's word in it (``{"key": "ArrowDown"}`` holds none)."""
    kind = secret_key_class(key)
    if kind is None:
        return False
    if kind != "key":
        return True
    return isinstance(value, str) and credential_like(value)


def structural_stand_in(value: str) -> bool:
    """A value under a secret's key that holds none: empty, a mask, a reference, a path."""
    core = value.strip()
    if not core or (len(core) <= _LONGEST_NO_VALUE and core.lower() in _NO_VALUE):
        return True
    if core.startswith(("[REDACTED", "[WITHHELD", "<")) or set(core) <= _MASK:
        return True
    if core.startswith("$") and stand_in(core):  # an environment reference, not "$ecret!"
        return True
    if is_path(core):
        return True
    space = core.find(" ", 0, _LONGEST_SCHEME + 1)  # a long text's rest is not copied
    if space >= 0 and core[:space].lower() in _AUTH_SCHEMES:
        rest = core[space + 1 :]
        if rest and " " not in rest.strip():
            return structural_stand_in(rest)  # ``Bearer <redacted>``, ``Basic $CREDS``
    return core.startswith(("{{", "%")) and core.endswith(("}}", "%"))


#: how many characters of a long text's head :func:`structural_stand_in_by_ends` reads
ENDS_READ = 16
#: what a mask is made of, for :func:`structural_stand_in`
_MASK = frozenset("*x•#.-")


def structural_stand_in_by_ends(head: str, tail: str) -> bool | None:
    """:func:`structural_stand_in` of a text whose core (the text without its outer
    white space) is longer than :data:`ENDS_READ`, told from the core's first
    :data:`ENDS_READ` characters and its last two; None where the answer needs the whole
    text (a head of mask characters only, or one that starts as a reference, a path or an
    ``Authorization`` scheme). Why: a long text under a secret's key need not be held
    whole (four bytes a character with an emoji in it) to be told no stand-in."""
    if head.startswith(("[REDACTED", "[WITHHELD", "<")):
        return True
    if set(head) <= _MASK or head.startswith(("$", "/", "~", "./", "../")):
        return None
    if re.match(r"^[A-Za-z]:\\", head):
        return True  # a Windows path (``is_path``)
    space = head.find(" ", 0, _LONGEST_SCHEME + 1)
    if space >= 0 and head[:space].lower() in _AUTH_SCHEMES:
        return None
    return head.startswith(("{{", "%")) and tail.endswith(("}}", "%"))


#: an ``Authorization`` header's scheme, before its credential
_AUTH_SCHEMES = frozenset({"bearer", "basic", "token", "digest", "apikey"})
_LONGEST_SCHEME = max(map(len, _AUTH_SCHEMES))
#: what a value under a secret's key says when it holds none
_NO_VALUE = frozenset({"none", "null", "nil", "true", "false", "undefined"})
_LONGEST_NO_VALUE = max(map(len, _NO_VALUE))


#: the members that name a pair's ``value`` (``{"name": "Authorization", "value": ...}``)
PAIR_NAMES = ("name", "key", "header", "Name", "Key")


def names_a_secret(obj: Mapping[str, Any]) -> bool:
    """Whether a member of ``obj`` that names a pair's value names a secret: only then
    does :func:`named_pair` read the value itself."""
    return any(
        isinstance(name := obj.get(key), str) and secret_key_class(name) is not None
        for key in PAIR_NAMES
    )


def named_pair(obj: dict[str, Any]) -> bool:
    """``{"name": "Authorization", "value": ...}``: a header or variable as a pair."""
    if "value" not in obj:
        return False
    for key in PAIR_NAMES:
        name = obj.get(key)
        kind = secret_key_class(name) if isinstance(name, str) else None
        if kind is not None:
            value = obj.get("value")  # a streamed shell knows the key, not yet the value
            if not isinstance(value, str):
                return True
            if "cookie" in str(name).lower() and "=" in value:
                return cookie_holds_secret(value)
            # a ``key`` class name (``x-cache-key``, ``x-ratelimit-remaining-tokens``)
            # holds a secret only when its value could be one, as under a JSON key
            return kind != "key" or credential_like(value)
    return False


def cookie_holds_secret(value: str) -> bool:
    """A ``Cookie`` or ``Set-Cookie`` header: a secret when one of its cookies' values
    could be a credential (``sid=...``), not for ``theme=dark; Path=/``."""
    for pair in value.split(";"):
        _, _, cookie = pair.partition("=")
        if credential_like(cookie.strip()) and not is_path(cookie.strip()):
            return True
    return False


def escaped_forms(value: str) -> set[str]:
    """``value`` as it appears inside a JSON string (both ways of writing non-ASCII)."""
    forms = {json.dumps(value, ensure_ascii=False)[1:-1], json.dumps(value)[1:-1]}
    forms.discard(value)
    return forms
