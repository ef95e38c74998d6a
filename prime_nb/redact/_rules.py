"""Redaction rules: what counts as a secret, and what replaces it.

Why a rule is a small object of its own: the default set mixes provider token formats
(taken from detect-secrets' plugins, so their patterns are maintained upstream), formats
detect-secrets reports only partly (a private key's header line, not its body), and
secrets known only by their context (a key that names a secret, ``Bearer``, a flag, a
URL's password, ``mysql -p``), and things that are private without being secrets
(emails, home folders, the host name). User rules (a regex or a callable) are turned into
the same shape, so the scrubber has one loop.

A rule finds spans in one string. Each span's text is the *value*, with one placeholder
in the whole file whichever rule found it. A value is hunted through the whole file only
when its rule is *confident* in it (a provider's format, or a strongly random value): a
context rule's guess is replaced where it was made (see ``_scrub``).
"""

from __future__ import annotations

import base64
import re
import socket
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ._assignments import (
    ASSIGNMENT_SHAPE,
    COMMAND_PASSWORD,
    FLAG,
    _assignment_spans,
    _command_spans,
    _flag_spans,
)
from ._detect_secrets import SPACES, detect_secrets_rules, url_password_valid
from ._exposures import exposure_rules
from ._generic import (
    COMMAND_SECRET,
    CRYPT_HASH,
    PREFIXED_TOKEN,
    TRUNCATED,
    URL_USER_TOKEN,
    YAML_BLOCK,
    command_secret_spans,
    crypt_spans,
    extra_assignment_spans,
    prefixed_token_spans,
    spaced_pair_spans,
    truncated_spans,
    url_user_spans,
    yaml_block_spans,
)
from ._records import record_rules
from ._rule import Finder, Rule
from ._shapes import (
    AUTHORIZATION,
    CALL_PAIR,
    COMMAND_ARGUMENT,
    COMMAND_POSITIONAL,
    HTPASSWD,
    JWK_MEMBER,
    NETRC,
    ODBC_BRACED,
    PGPASS,
    XML_ELEMENT,
    XML_PAIR,
    command_spans,
    credential_file_spans,
    markup_spans,
)
from ._values import (
    credential_like,
    strongly_random,
)

# -- the default rules -----------------------------------------------------------------


#: a key block ends at its END line. The two optional parts are groups that always take
#: part (``((?: BLOCK)?)``, not ``( BLOCK)?``): a back-reference to a group that did not
#: take part never matches in Python, which once made every block run to the end of its
#: string. A block whose END line is missing (a torn output) runs over its header and
#: base64 lines only.
PRIVATE_KEY = re.compile(
    r"-----BEGIN ((?:[A-Za-z0-9]+ )*)(PRIVATE KEY|(?i:static key|secret key))"
    r"((?: BLOCK| V\d)?)-----"
    r"(?:[\s\S]*?-----END \1\2\3-----"
    r"|(?:(?:\s|\\[nr])+(?:[A-Za-z0-9+/=]{4,}|[A-Za-z-]+: [^\n\\]*))*)"
    r"|PuTTY-User-Key-File-\d+:[\s\S]*?Private-MAC: *[0-9a-fA-F]+"
)

#: token formats detect-secrets (1.5) lacks or matches only in part; the prefixes follow
#: the providers' documented formats (gitleaks' rule list is a public index of them)
TOKEN_PREFIXES = re.compile(
    r"(?<![\w-])(?:"
    r"sk-ant-(?:api|admin|oat)\d\d-[A-Za-z0-9_\-]{20,}"  # Anthropic
    r"|sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{20,}"  # OpenAI project/service keys
    r"|sk-or-v1-[a-f0-9]{40,}"  # OpenRouter
    r"|sk-[A-Za-z0-9]{32,}"  # OpenAI legacy, and look-alikes (DeepSeek, ...)
    r"|github_pat_[A-Za-z0-9_]{22,}"  # GitHub fine-grained
    r"|gh[pousr]_[A-Za-z0-9]{30,}"  # GitHub, any length the format grows to
    r"|hf_[A-Za-z0-9]{30,}"  # Hugging Face
    r"|AIza[0-9A-Za-z_\-]{35}"  # Google API key
    r"|GOCSPX-[0-9A-Za-z_\-]{20,}"  # Google OAuth client secret
    r"|ya29\.[0-9A-Za-z_\-]{20,}"  # Google OAuth access token
    r"|(?:sk|rk|pk|whsec)_(?:live|test)_[0-9A-Za-z]{16,}|whsec_[0-9A-Za-z]{24,}"  # Stripe
    r"|npm_[A-Za-z0-9]{36}"  # npm automation / publish
    r"|xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{20,}"  # Slack, all shapes
    r"|gsk_[A-Za-z0-9]{40,}"  # Groq
    r"|xai-[A-Za-z0-9]{40,}"  # xAI
    r"|pplx-[A-Za-z0-9]{40,}"  # Perplexity
    r"|r8_[A-Za-z0-9]{30,}"  # Replicate
    r"|fw_[A-Za-z0-9]{20,}"  # Fireworks
    r"|dop_v1_[a-f0-9]{64}|doo_v1_[a-f0-9]{64}"  # DigitalOcean
    r"|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"  # Shopify
    r"|sq0atp-[0-9A-Za-z_\-]{22}|EAAA[0-9A-Za-z_\-]{60}"  # Square
    r"|lin_api_[A-Za-z0-9]{40}"  # Linear
    r"|(?:ntn|secret)_[A-Za-z0-9]{43}"  # Notion
    r"|ATATT3[A-Za-z0-9_\-=]{100,}"  # Atlassian
    r"|dapi[a-f0-9]{32}(?:-\d)?"  # Databricks
    r"|PMAK-[a-f0-9]{24}-[a-f0-9]{34}"  # Postman
    r"|pul-[a-f0-9]{40}"  # Pulumi
    r"|gl(?:c|sa)_[A-Za-z0-9_+/=]{32,}"  # Grafana
    r"|NRAK-[A-Z0-9]{27}"  # New Relic
    r"|sntry[su]?_[A-Za-z0-9_+/=]{40,}"  # Sentry
    r"|dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}"  # Doppler
    r"|key-[0-9a-f]{32}"  # Mailgun
    r"|AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"  # age
    r"|hvs\.[A-Za-z0-9_\-]{24,}"  # HashiCorp Vault
    r"|glpat-[A-Za-z0-9_\-]{20,}"  # GitLab (any length)
    r"|ops_eyJ[A-Za-z0-9+/=_\-]{50,}"  # 1Password service account
    r"|tskey-(?:auth|client|api|scim|webhook)-[A-Za-z0-9]+-[A-Za-z0-9]{20,}"  # Tailscale
    r"|api_org_[A-Za-z0-9]{30,}"  # Hugging Face organisation
    r"|sl\.[A-Za-z0-9_\-]{100,}"  # Dropbox
    r"|(?:FwoGZXIvYXdzE|IQoJb3JpZ2luX2Vj)[A-Za-z0-9+/=]{100,}"  # AWS session token
    r"|ABSK[A-Za-z0-9+/]{100,}={0,2}"  # Amazon Bedrock API key
    r"|dckr_(?:pat|oat)_[A-Za-z0-9_\-]{24,}"  # Docker Hub
    r")(?![\w-])"
    r"|https://(?:hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_/]{20,}"
    r"|(?:canary\.|ptb\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]{30,}"
    r"|[\w-]+\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/\-]{60,})"
)

#: what every format of TOKEN_PREFIXES holds: a separator, or its unseparated prefix
_TOKEN_PREFIX_NEEDS = (
    "-", "_", ".", "AIza", "EAAA", "ATATT3", "dapi", "FwoGZXIvYXdzE", "IQoJb3JpZ2luX2Vj",
    "ABSK",
)  # fmt: skip

#: token formats whose fixed part is not at their start: each with the word it holds
TOKEN_INFIXES: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"(?<![\w.-])s\.[A-Za-z0-9]{24}(?![\w-]|\.[A-Za-z0-9]{5})"),
        "s.",
    ),  # HashiCorp Vault
    (re.compile(r"(?<![\w-])[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-]{60,}"), "atlasv1"),
    (re.compile(r"(?<![\w-])AAAA[A-Za-z0-9_\-]{7}:APA91b[A-Za-z0-9_\-]{100,}"), "apa91b"),  # FCM
    (re.compile(r"(?<![\w~.-])[A-Za-z0-9_~.\-]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}"), "q~"),  # Azure
)

BEARER = re.compile(r"(?i)(?<![\w-])bearer\s+([A-Za-z0-9\-._~+/]{8,}=*)")
#: ``token <value>``, ``Authorization: Token <value>``: a value after the bare word
TOKEN_WORD = re.compile(r"(?i)(?<![\w-])(?:token|api[_-]?key)\s+([A-Za-z0-9\-._~+/]{12,}=*)")
#: a wallet's key of 256 bits in hex written after the words ``private key`` in prose (a
#: ``PRIVATE_KEY=`` assignment is the keyword rule's): a transaction's hash is the same
#: shape, so the words must come first, within a few words
PRIVATE_KEY_HEX = re.compile(
    r"(?i)(?<![\w-])priv(?:ate)?[ _-]?key\b[^\n]{0,24}?"
    r"(?<![0-9a-f])(?:0x)?([0-9a-f]{64})(?![0-9a-f])"
)
#: the key shares and recovery keys ``vault operator init`` prints, one a line
VAULT_KEY_SHARE = re.compile(
    r"(?<![\w-])(?:Unseal|Recovery) Key \d{1,3}:[ \t]*([A-Za-z0-9+/]{20,}={0,2})"
)
#: ``Authorization: Basic <base64 of user:password>``
BASIC = re.compile(r"(?i)(?<![\w-])basic\s+([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])")

_KEYWORD_HINTS = (
    "key", "secret", "token", "pass", "pwd", "auth", "cred", "cookie", "contrase", "pat",
)  # fmt: skip
_HOME_HINTS = ("/home/", "/users/", "\\users\\")
#: words without which no command line of ``_shapes`` matches
_COMMAND_HINTS = tuple(
    f"{word} "  # a command's name is followed by a blank
    for word in (
        "login", "keytool", "sqlcmd", "bcp", "osql", "mongo", "mongosh", "mongodump",
        "mongorestore", "ldapsearch", "ldapadd", "ldapmodify", "ldapdelete", "ldapwhoami",
        "ldappasswd", "openssl", "zip", "zipcloak", "unzip", "7z", "7za", "rar", "unrar", "gpg",
        "psql", "pg_dump", "createdb", "smbclient", "rpcclient", "smbmap", "smbget", "winexe",
        "rabbitmqctl", "user", "nmcli", "wpa_passphrase", "echo", "printf",
        "convertto-securestring", "by", "password", "sqlplus", "sqlldr", "expdp", "impdp",
        "rman", "dgmgrl", "connect", "htpasswd", "psexec", "psexec64", "paexec", "schtasks",
        "cmdkey", "apksigner", "jarsigner", "gh secret", "net use", "poetry",
    )
)  # fmt: skip

#: ``scheme://user:password@host`` with an empty user too (``redis://:password@cache``),
#: which detect-secrets' pattern needs
URL_PASSWORD = re.compile(r"(?<=://)[^:/?#\[\]@\s\"'`]*:([^/?#\[\]@\s\"'`]+)@")

URL_TOKEN = re.compile(
    r"(?i)[?&#~](?:access_token|refresh_token|id_token|token|api_?key|key|sig|signature|"
    r"secret|password|passwd|auth|client_secret|code|x-amz-signature|x-amz-credential|"
    r"x-goog-signature|x-goog-credential|hmac|q-signature)"
    r"=([^&\s#\"'<>\\]{8,})"
)

EMAIL = re.compile(
    r"(?<![\w.+-])(?<!://)[A-Za-z0-9][A-Za-z0-9._%+\-]*@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}"
)
#: emails that are no one's: ssh remotes, our own placeholders, documentation domains
_NOT_PERSONAL = re.compile(
    r"(?i)^(?:git@|.*@redacted\.invalid$|.*@(?:[\w-]+\.)*(?:example\.(?:com|org|net)|localhost)$)"
)

HOME = re.compile(
    r"(?<![\w.~-])(/home/|/Users/|[A-Za-z]:\\{1,2}Users\\{1,2})"
    r"(?!(?:Shared|Public|Default|All Users)\b)([A-Za-z0-9._\-][^/\\\s'\"`:;,|)\]}]*)"
)


def _basic_valid(value: str) -> bool:
    """A Basic credential: base64 of ``user:password`` in printable text."""
    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return False
    return ":" in raw and raw.isprintable() and len(raw) >= 3


def _email_placeholder(n: int, value: str) -> str:
    return f"email-{n}@redacted.invalid"


def _home_placeholder(n: int, value: str) -> str:
    match = HOME.match(value)
    prefix = match.group(1) if match else "/home/"
    return f"{prefix}user-{n}"


def _host_placeholder(n: int, value: str) -> str:
    return f"host-{n}"


def _valid_email(value: str) -> bool:
    return _NOT_PERSONAL.match(value) is None


def _home_spans(text: str) -> Iterator[tuple[int, int]]:
    """The home folder part: ``/home/alice`` of ``/home/alice/src``."""
    for match in HOME.finditer(text):
        yield match.start(), match.end(2)


def this_host_names() -> list[str]:
    """The machine's host name (and its short form), when it is distinctive enough.

    Names shorter than 3 characters and ``localhost`` are left out: replacing them
    would hit ordinary words.
    """
    names: list[str] = []
    full = socket.gethostname()
    for name in (full, full.split(".")[0]):
        if len(name) >= 3 and name.lower() != "localhost" and name not in names:
            names.append(name)
    return names


def host_rule(names: Sequence[str]) -> Rule | None:
    """Whole-word matches of the given host names (case-insensitive)."""
    words = sorted({n for n in names if n}, key=len, reverse=True)
    if not words:
        return None
    pattern = re.compile(
        r"(?i)(?<![\w.-])(?:" + "|".join(re.escape(w) for w in words) + r")(?![\w-])"
    )
    # no shape: the names are literals the first scan finds, and a shape would compile
    # the shapes' database anew for each list of names
    return Rule(
        "hostname",
        pattern=pattern,
        placeholder=_host_placeholder,
        word_bounded=True,
        shape=(),
    )


def _outside_substitution(
    finder: Callable[[str], Iterator[tuple[int, int]]], text: str
) -> Iterator[tuple[int, int]]:
    """``finder``'s spans but those inside ``$(...)`` on their line: ``htpasswd -nbB
    user "$(cat pw.txt)"`` runs a command that reads the password, and shows none."""
    for start, end in finder(text):
        # read back no further than a command's length: a long text may be one line, and
        # reading back to its start at every match would be quadratic (a ``$(`` further
        # back only keeps the span)
        reach = max(0, start - _SUBSTITUTION_REACH)
        opened = text.rfind("$(", text.rfind("\n", reach, start) + 1 or reach, start)
        if opened < 0 or text.find(")", opened, start) >= 0:
            yield start, end  # no copy of the line: a line may be a long text


#: how far before a password argument its ``$(`` is looked for
_SUBSTITUTION_REACH = 4096


# module functions, not closures: each redaction's rule list must equal the last one's
def _password_option_spans(text: str) -> Iterator[tuple[int, int]]:
    return _outside_substitution(_command_spans, text)


def _password_argument_spans(text: str) -> Iterator[tuple[int, int]]:
    return _outside_substitution(command_spans, text)


def _guess(name: str, **how: Any) -> Rule:
    """A rule that reads context, so can be wrong: what it finds is replaced where it was
    found, and everywhere in the file only when :func:`strongly_random`."""
    return Rule(name, confident=strongly_random, **how)


def default_rules(hostnames: Sequence[str] | None = None) -> list[Rule]:
    """The default rule set, most specific first (an earlier rule wins an overlap).

    Provider formats, key blocks and JWTs are *confident*: a value they find is replaced
    everywhere in the file. The rules that read context (a key's name, a flag, a
    ``Bearer`` word, a URL's password) replace what they find where they find it, and
    everywhere only when the value is :func:`strongly_random`.

    ``hostnames`` replaces the host names to hide (default: this machine's name, see
    :func:`this_host_names`); pass ``[]`` to hide none.
    """
    commands = ("mysql", "mariadb", "sshpass", "redis-cli", "curl", "wget", "http")
    rules = [
        Rule(
            "private-key",
            pattern=PRIVATE_KEY,
            group=0,
            hints=("private", "putty", "static key", "secret key"),
        ),
        *detect_secrets_rules(),
        Rule("token", pattern=TOKEN_PREFIXES, group=0, needs=_TOKEN_PREFIX_NEEDS),
        *(Rule("token", pattern=p, group=0, hints=(h,)) for p, h in TOKEN_INFIXES),
        _guess(
            "prefixed-token",
            finder=prefixed_token_spans,
            shape=(PREFIXED_TOKEN,),
            needs=("-", "_", "."),
            run=30,
        ),
        _guess(
            "cut-secret",
            finder=truncated_spans,
            shape=(TRUNCATED,),
            hints=("truncated", "...", "…"),
        ),
        _guess("url-token", finder=url_user_spans, shape=(URL_USER_TOKEN,), hints=("://",)),
        Rule("password-hash", finder=crypt_spans, shape=(CRYPT_HASH,), needs=("$",)),
        _guess(
            "bearer-token",
            pattern=BEARER,
            valid=credential_like,
            hints=("bearer",),
            needs=SPACES,
        ),
        Rule(
            "basic-auth",
            pattern=BASIC,
            valid=_basic_valid,
            hints=("basic",),
            needs=SPACES,
        ),
        _guess(
            "bearer-token",
            pattern=TOKEN_WORD,
            valid=credential_like,
            hints=("token", "key"),
            needs=SPACES,
        ),
        Rule(
            "private-key-hex",
            pattern=PRIVATE_KEY_HEX,
            hints=("privkey", "private key", "private_key", "private-key", "privatekey"),
            run=64,
        ),
        Rule("vault-key-share", pattern=VAULT_KEY_SHARE, hints=("unseal key", "recovery key")),
        _guess("url-password", pattern=URL_PASSWORD, valid=url_password_valid, hints=("://",)),
        _guess("url-token", pattern=URL_TOKEN, hints=("=",), needs=("?", "&", "#")),
        _guess(
            "keyword-secret",
            finder=_assignment_spans,
            shape=(ASSIGNMENT_SHAPE,),
            hints=(*_KEYWORD_HINTS, "pw"),
            needs=(":", "="),
        ),
        _guess(
            "keyword-secret",
            finder=_flag_spans,
            shape=(FLAG,),
            hints=_KEYWORD_HINTS,
            needs=(" ", "\t"),
        ),
        _guess(
            "keyword-secret",
            finder=spaced_pair_spans,
            hints=(*_KEYWORD_HINTS, "pw", "psk", "otp", "masterauth"),
            needs=(" ", "\t"),
        ),
        _guess(
            "keyword-secret",
            finder=extra_assignment_spans,
            hints=("psk", "otp", "+", "requirepass", "masterauth"),
        ),
        _guess(
            "keyword-secret",
            finder=yaml_block_spans,
            shape=(YAML_BLOCK,),
            hints=(*_KEYWORD_HINTS, "pw"),
            needs=("|", ">"),
        ),
        _guess(
            "command-password",
            finder=command_secret_spans,
            shape=(COMMAND_SECRET,),
            hints=("ssh-keygen", "snmp", "set"),
        ),
        _guess(
            "command-password",
            finder=_password_option_spans,
            hints=commands,
            needs=(" -", "\t-"),
            shape=(COMMAND_PASSWORD,),
        ),
        # every shape of _shapes but smbclient's ``-U`` has a blank
        _guess(
            "command-password",
            finder=_password_argument_spans,
            shape=(COMMAND_ARGUMENT, COMMAND_POSITIONAL, HTPASSWD),
            hints=_COMMAND_HINTS,
            needs=(*SPACES, "smbclient", "rpcclient", "smbmap", "smbget", "winexe"),
        ),
        _guess(
            "credential-file",
            finder=credential_file_spans,
            shape=(NETRC, PGPASS, ODBC_BRACED),
            hints=("password", ":", "pwd"),
            needs=(*SPACES, ":", "{"),  # .netrc's blanks, .pgpass's colons, ODBC's {
        ),
        _guess(
            "keyword-secret",
            finder=markup_spans,
            shape=(XML_ELEMENT, XML_PAIR, CALL_PAIR, AUTHORIZATION, JWK_MEMBER),
            hints=("<", "(", "authorization", "kty"),
            needs=("</", "=", "(", ":", '"kty"'),
        ),
        *exposure_rules(),
        *record_rules(),
        Rule(
            "email", pattern=EMAIL, valid=_valid_email, placeholder=_email_placeholder, hints=("@",)
        ),
        Rule(
            "home-path",
            finder=_home_spans,
            shape=(HOME,),
            placeholder=_home_placeholder,
            hints=_HOME_HINTS,
        ),
    ]
    host = host_rule(this_host_names() if hostnames is None else hostnames)
    if host is not None:
        rules.append(host)
    return rules


def as_rule(item: Rule | str | re.Pattern[str] | Finder, index: int, prefix: str = "user") -> Rule:
    """A user rule: a Rule, a regex (string or compiled), or a callable finder.

    A regex with groups redacts its first group that matched, else the whole match.
    """
    if isinstance(item, Rule):
        return item
    if isinstance(item, str | re.Pattern):
        try:
            pattern = re.compile(item) if isinstance(item, str) else item
        except re.error as exc:
            raise ValueError(
                f"redaction rule {index}: {item!r} is not a valid regex ({exc})"
            ) from exc
        return Rule(f"{prefix}-{index}", pattern=pattern)
    if callable(item):
        name = getattr(item, "__name__", "") or ""
        return Rule(name if name and name != "<lambda>" else f"{prefix}-{index}", finder=item)
    raise TypeError(
        f"redaction rule {index}: {type(item).__name__} is not a rule; "
        "pass a Rule, a regex string, a compiled pattern or a callable"
    )
