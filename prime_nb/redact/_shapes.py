"""Secrets known by the shape around them: command lines, credential files, connection
strings, markup and key material.

Why shapes and not more names: a password given to ``docker login -p``, written in a
``.netrc`` or ``.pgpass`` line, an Oracle ``user/pw@host`` or an ODBC ``Pwd={...}``
carries no name that says "secret", and no engine's provider list finds it. Each shape
here is generic: one table of tools and the flag that takes a password, one pattern per
credential-file format, markup whose element or attribute names a secret (any name
:func:`~._values.secret_key_class` knows). Every finder yields the value's span only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ._literals import finditer
from ._values import credential_like, secret_key_class, stand_in

#: a value on a command line: quoted, or up to the next blank or shell operator
_VALUE = r"(?P<v>\"[^\"\n]+\"|'[^'\n]+'|[^\s\"'`|;&]+)"
#: the rest of one command (no pipe, list or new line in between)
_SAME_COMMAND = r"[^\n|;&]*?"

_REGISTRY_LOGIN = (
    r"(?:docker|podman|buildah|skopeo|nerdctl|oras|crane|helm(?:\s+registry)?)\s+login"
)
#: tools that take a password as an argument: the tool (and sub-command), the flag, and
#: what joins the flag to its value (a blank, "=", or nothing: ``7z -pSECRET``)
PASSWORD_ARGUMENTS: tuple[tuple[str, str, str], ...] = (
    (_REGISTRY_LOGIN, "-p|--password", r"[ \t]+|="),
    (r"keytool", r"-(?:store|key|srcstore|deststore|srckey|destkey|new)pass", r"[ \t]+"),
    (r"sqlcmd|bcp|osql", "-P", r"[ \t]*"),
    (r"mongosh|mongo|mongodump|mongorestore|mongoexport|mongoimport", "-p|--password", r"[ \t]+|="),
    (r"ldap(?:search|add|modify|delete|whoami|passwd|compare|modrdn|exop)", "-w", r"[ \t]+"),
    (r"openssl", "-k", r"[ \t]+"),
    (r"openssl", "-(?:pass|passin|passout)", r"[ \t]+pass:"),
    (r"zip|zipcloak|unzip", "-P|--password", r"[ \t]+"),
    (r"7z|7za|7zr|unrar|rar", "-p", ""),
    (r"az\s+login", "-p|--password", r"[ \t]+|="),
    (r"gpg|gpg2", "--passphrase", r"[ \t]+|="),
    (r"psql|pg_dump|createdb", "--password", "="),
    (r"psexec|psexec64|paexec", "-p", r"[ \t]+"),
    (r"schtasks", "/rp|/p", r"[ \t]+"),
    (r"cmdkey", "/pass", ":"),
    (r"apksigner|jarsigner", "--ks-pass|--key-pass", r"[ \t]+pass:"),
    (r"jarsigner", "-storepass|-keypass", r"[ \t]+"),
    (r"gh\s+secret\s+set", "--body|-b", r"[ \t]+|="),
)  # fmt: skip
COMMAND_ARGUMENT = re.compile(
    "|".join(
        rf"(?<![\w./-])(?:{tool})(?:\.exe)?\b{_SAME_COMMAND}[ \t](?:{flag})(?:{join})"
        + _VALUE.replace("?P<v>", f"?P<v{i}>")
        for i, (tool, flag, join) in enumerate(PASSWORD_ARGUMENTS)
    )
)

#: commands whose password is a plain argument, not a flag's
COMMAND_POSITIONAL = re.compile(
    r"(?<![\w-])(?:smbclient|rpcclient|smbmap|smbget|winexe)\b[^\n|;&]*?(?:-U|--user(?:name)?=?)"
    r"[ \t]*['\"]?[^%\s'\"]+%(?P<a>[^\s'\"]+)"
    r"|(?<![\w-])rabbitmqctl\s+(?:add_user|change_password)\s+\S+\s+"
    + _VALUE.replace("v>", "b>")
    + r"|(?<![\w-])net\s+user\s+[^\s/]+\s+(?P<c>[^\s/*][^\s]*)"
    r"|(?<![\w-])net\s+use\s+(?:[A-Za-z]:\s+|\*\s+)?\\\\\S+\s+(?P<k>[^\s/*][^\s]*)"
    r"|(?<![\w-])poetry\s+config\s+http-basic\.\S+\s+\S+\s+"
    + _VALUE.replace("v>", "l>")
    + r"|(?<![\w-])nmcli\b[^\n|;&]*?\spassword\s+"
    + _VALUE.replace("v>", "d>")
    + r"|(?<![\w-])wpa_passphrase\s+\S+\s+"
    + _VALUE.replace("v>", "e>")
    + r"|(?<![\w-])(?:echo|printf)\s+(?:-[ne]\s+)?"
    + _VALUE.replace("v>", "f>")
    + r"\s*\|[^\n]*?(?:--password-stdin|\bsudo\s+-S|--stdin\b|\bchpasswd\b|\bkinit\b)"
    r"|(?i:\bconvertto-securestring)\s+(?:-String\s+)?"
    + _VALUE.replace("v>", "g>")
    + r"|(?i:\bidentified\s+by)\s+(?:password\s+)?"
    + _VALUE.replace("v>", "h>")
    + r"|(?i:\bpassword)\s+(?P<i>'[^'\n]+'|\"[^\"\n]+\")"
    r"|(?<![\w-])(?:sqlplus|sqlldr|expdp|impdp|rman|dgmgrl|(?i:connect))\s+(?:-\w+\s+)*['\"]?"
    r"[A-Za-z][\w$#]*/(?P<j>[^\s/@\"']+)@"
)

#: htpasswd's password is its last argument when ``-b`` is given
HTPASSWD = re.compile(r"(?<![\w-])htpasswd((?:[ \t]+[^\s|;&]+)+)")

#: ``.netrc``: ``machine HOST login USER password PASS`` (on one line or many)
NETRC = re.compile(r"\b(?:machine|login|account|default)\s+\S+\s+password\s+(?P<v>\S+)")
#: ``.pgpass``: ``host:port:database:user:password``
PGPASS = re.compile(
    r"(?m)^[ \t]*[^\s:#]+:(?:\d+|\*):[^\s:]+:[^\s:]+:(?P<v>[^\s\"'`]+)[\"'`\])]?\r?$"
)
#: ODBC and ADO.NET: ``Pwd={...}`` (braces let the password hold ";")
ODBC_BRACED = re.compile(r"(?i)\b(?:pwd|password)\s*=\s*\{(?P<v>(?:[^}]|\}\})+)\}")

#: ``<password>...</password>``: an element whose name names a secret
XML_ELEMENT = re.compile(
    r"<(?P<tag>[A-Za-z_][\w.:-]{0,60})(?:\s[^<>]*)?>(?P<v>[^<>\n]{1,500})</(?P=tag)\s*>"
)
#: ``<add key="ApiKey" value="..."/>``: a name-value pair in attributes
XML_PAIR = re.compile(
    r"\b(?:key|name)\s*=\s*\"(?P<k>[^\"]{1,80})\"\s+value\s*=\s*\"(?P<v>[^\"]{1,2000})\""
)
#: ``define('DB_PASSWORD', '...')``, ``setdefault("API_KEY", "...")``: a call's name, value
CALL_PAIR = re.compile(
    r"\(\s*(?P<kq>['\"])(?P<k>[A-Za-z_][\w.-]{0,80})(?P=kq)\s*,\s*"
    r"(?P<vq>['\"])(?P<v>[^'\"\n]{1,500})(?P=vq)"
)
#: ``Authorization: <any scheme> <credential>`` (``SSWS``, ``Token``, ``Digest``, ...)
AUTHORIZATION = re.compile(
    r"(?i)\b(?:proxy-)?authorization\s*[:=]\s*['\"]?[A-Za-z][\w-]*\s+"
    r"(?P<v>[A-Za-z0-9\-._~+/]{8,}=*)"
)
#: a JSON Web Key's private members (``d``, ``p``, ``q``, ``dp``, ``dq``, ``qi``; ``k``)
JWK_PRIVATE_MEMBERS = frozenset({"d", "p", "q", "dp", "dq", "qi", "k"})
JWK_MEMBER = re.compile(r"\"(?:d|p|q|dp|dq|qi|k)\"\s*:\s*\"(?P<v>[A-Za-z0-9_\-]{16,})\"")


def _unquoted(match: re.Match[str], group: str) -> tuple[int, int]:
    start, end = match.span(group)
    text = match.string
    if end - start >= 2 and text[start] == text[end - 1] and text[start] in "\"'":
        return start + 1, end - 1
    return start, end


def _first_group(match: re.Match[str]) -> str:
    return next(name for name, value in match.groupdict().items() if value is not None)


def command_spans(text: str) -> Iterator[tuple[int, int]]:
    """Passwords given to tools on their command line (see ``PASSWORD_ARGUMENTS``)."""
    for pattern in (COMMAND_ARGUMENT, COMMAND_POSITIONAL):
        for m in finditer(pattern, text):
            start, end = _unquoted(m, _first_group(m))
            if end > start and not stand_in(text[start:end]):
                yield start, end
    for m in finditer(HTPASSWD, text):
        words = list(re.finditer(r"\S+", m.group(1)))
        flags = "".join(w.group()[1:] for w in words if w.group().startswith("-"))
        plain = [w for w in words if not w.group().startswith("-")]
        if "b" in flags and len(plain) >= 2:
            last = plain[-1]
            yield m.start(1) + last.start(), m.start(1) + last.end()


def credential_file_spans(text: str) -> Iterator[tuple[int, int]]:
    """Passwords in ``.netrc`` and ``.pgpass`` lines and ODBC connection strings."""
    for pattern in (NETRC, PGPASS, ODBC_BRACED):
        for m in finditer(pattern, text):
            if not stand_in(m.group("v")):
                yield m.span("v")


def _named_value(name: str, value: str) -> bool:
    kind = secret_key_class(name)
    if kind is None or stand_in(value):
        return False
    return kind == "password" or credential_like(value)


def markup_spans(text: str) -> Iterator[tuple[int, int]]:
    """Values that markup or a call names a secret: XML elements and attribute pairs,
    ``define('DB_PASSWORD', ...)``, any ``Authorization`` scheme, a JWK's private parts."""
    for m in finditer(XML_ELEMENT, text):
        if _named_value(m.group("tag").rsplit(":", 1)[-1], m.group("v").strip()):
            yield m.span("v")
    for pattern in (XML_PAIR, CALL_PAIR):
        for m in finditer(pattern, text):
            if _named_value(m.group("k"), m.group("v")) and credential_like(m.group("v")):
                yield m.span("v")
    for m in finditer(AUTHORIZATION, text):
        if credential_like(m.group("v")):
            yield m.span("v")
    if '"kty"' in text:
        yield from (m.span("v") for m in finditer(JWK_MEMBER, text))


#: DER private keys: PKCS#1 and PKCS#8 (version 0), SEC1 EC (version 1), encrypted PKCS#8
_DER_VERSION = re.compile(
    rb"\A\x30(?:[\x00-\x7f]|\x81[\s\S]|\x82[\s\S]{2})\x02\x01(?:\x00|\x01\x04)"
)
_PBES2 = b"\x2a\x86\x48\x86\xf7\x0d\x01\x05\x0d"


def key_material(raw: bytes) -> bool:
    """Whether decoded base64 is a private key without its ``-----BEGIN`` line (DER, or
    an OpenSSH key's body)."""
    if raw.startswith(b"openssh-key-v1\x00"):
        return True
    return bool(_DER_VERSION.match(raw)) or (raw[:1] == b"\x30" and _PBES2 in raw[:32])
