"""Redaction rules: what counts as a secret, and what replaces it.

Why a rule is a small object of its own: the default set mixes provider token formats
(taken from detect-secrets' plugins, so their patterns are maintained upstream), formats
detect-secrets reports only partly (a private key's header line, not its body), and
things that are private without being secrets (emails, home folders, the host name).
User rules (a regex or a callable) are turned into the same shape, so the scrubber has
one loop.

A rule finds spans in one string. Each span's text is the *value*; the same value gets
the same placeholder everywhere in the file (see ``_scrub``), whichever rule found it.
"""

from __future__ import annotations

import math
import re
import socket
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

#: a callable rule: the string in, the spans to replace out (``(start, end)`` or substrings)
Finder = Callable[[str], Iterable[tuple[int, int] | str]]

#: characters trimmed off a whole-pattern match (detect-secrets' Artifactory patterns eat them)
_EDGE = " \t\r\n=:'\"`,;"


def secret_placeholder(rule: str, n: int) -> str:
    return f"[REDACTED:{rule}:{n}]"


@dataclass(frozen=True)
class Rule:
    """One kind of secret: a name (shown in the report), and how to find its spans.

    ``pattern`` spans are the group ``group`` (a name or number; the first group that
    matched when ``group`` is None and the pattern has groups; else the whole match).
    ``valid`` filters candidate values (an entropy test, a JWT's structure).
    ``placeholder`` makes the n-th distinct value's replacement for this rule.
    """

    name: str
    pattern: re.Pattern[str] | None = None
    finder: Finder | None = None
    group: int | str | None = None
    valid: Callable[[str], bool] | None = None
    placeholder: Callable[[int, str], str] | None = None
    #: a cheap test that must pass before the pattern runs (a substring, lower-cased)
    hints: tuple[str, ...] = field(default=())
    #: take the first group only when it ends the match (``key = "<group>"``), else the
    #: whole match (``(ghp|gho)_...`` groups a prefix): detect-secrets' patterns mix both
    group_if_trailing: bool = False
    #: replace the values found only where they stand as whole words
    word_bounded: bool = False

    def spans(self, text: str) -> Iterator[tuple[int, int]]:
        """The spans of ``text`` this rule replaces, in any order."""
        if self.hints:
            low = text.lower()
            if not any(h in low for h in self.hints):
                return
        if self.pattern is not None:
            yield from self._pattern_spans(text)
        if self.finder is not None:
            for item in self.finder(text):
                if isinstance(item, str):
                    start = text.find(item)
                    while item and start >= 0:
                        yield start, start + len(item)
                        start = text.find(item, start + len(item))
                else:
                    start, end = item
                    if not (0 <= start < end <= len(text)):
                        raise ValueError(
                            f"redaction rule {self.name!r}: span {(start, end)!r} is outside "
                            f"a string of length {len(text)}; return (start, end) within it"
                        )
                    yield start, end

    def _pattern_spans(self, text: str) -> Iterator[tuple[int, int]]:
        assert self.pattern is not None
        for match in self.pattern.finditer(text):
            if self.group is not None:
                start, end = match.span(self.group)
            elif match.re.groups and not self.group_if_trailing:
                found = next((i for i in range(1, match.re.groups + 1) if match.group(i)), 0)
                start, end = match.span(found)
            elif match.re.groups and match.group(1) and match.end() - match.end(1) <= 2:
                start, end = match.span(1)
            else:
                start, end = match.span()
                while start < end and text[start] in _EDGE:
                    start += 1
                while end > start and text[end - 1] in _EDGE:
                    end -= 1
            if start < 0 or start >= end:
                continue
            if self.valid is not None and not self.valid(text[start:end]):
                continue
            yield start, end

    def make_placeholder(self, n: int, value: str) -> str:
        if self.placeholder is not None:
            return self.placeholder(n, value)
        return secret_placeholder(self.name, n)


# -- checks -----------------------------------------------------------------------------


def shannon_entropy(value: str) -> float:
    """Bits per character of ``value`` (0 for an empty string)."""
    if not value:
        return 0.0
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


#: the keyword rule's thresholds (README documents them)
MIN_KEYWORD_VALUE = 12
MIN_KEYWORD_ENTROPY = 3.0


def looks_random(value: str) -> bool:
    """A credential-like value: long, mixed letters and digits, high entropy, not a word.

    Git hashes and UUIDs pass this test too; the keyword rule only applies it to values
    right after a word like "token", so a commit hash in ``git log`` is left alone.
    """
    core = value.strip("=")
    return (
        len(core) >= MIN_KEYWORD_VALUE
        and any(c.isdigit() for c in core)
        and any(c.isalpha() for c in core)
        and shannon_entropy(core) >= MIN_KEYWORD_ENTROPY
    )


# -- the default rules -----------------------------------------------------------------

# Provider formats from detect-secrets (its RegexBasedDetector plugins carry the patterns);
# left out: PrivateKeyDetector (finds only the header line; our rule takes the block),
# IPPublicDetector (addresses are not in scope), keyword/entropy plugins (ours below
# give spans, not values).
_DETECT_SECRETS_PLUGINS: dict[str, tuple[str, str]] = {
    "aws-key": ("aws", "AWSKeyDetector"),
    "artifactory-token": ("artifactory", "ArtifactoryDetector"),
    "azure-storage-key": ("azure_storage_key", "AzureStorageKeyDetector"),
    "url-password": ("basic_auth", "BasicAuthDetector"),
    "cloudant-credentials": ("cloudant", "CloudantDetector"),
    "discord-token": ("discord", "DiscordBotTokenDetector"),
    "github-token": ("github_token", "GitHubTokenDetector"),
    "gitlab-token": ("gitlab_token", "GitLabTokenDetector"),
    "ibm-cloud-key": ("ibm_cloud_iam", "IbmCloudIamDetector"),
    "ibm-cos-hmac": ("ibm_cos_hmac", "IbmCosHmacDetector"),
    "jwt": ("jwt", "JwtTokenDetector"),
    "mailchimp-key": ("mailchimp", "MailchimpDetector"),
    "npm-token": ("npm", "NpmDetector"),
    "openai-key": ("openai", "OpenAIDetector"),
    "pypi-token": ("pypi_token", "PypiTokenDetector"),
    "sendgrid-key": ("sendgrid", "SendGridDetector"),
    "slack-token": ("slack", "SlackDetector"),
    "softlayer-key": ("softlayer", "SoftlayerDetector"),
    "square-secret": ("square_oauth", "SquareOAuthDetector"),
    "stripe-key": ("stripe", "StripeDetector"),
    "telegram-token": ("telegram_token", "TelegramBotTokenDetector"),
    "twilio-key": ("twilio", "TwilioKeyDetector"),
}


def detect_secrets_rules() -> list[Rule]:
    """One rule per detect-secrets plugin above (a pattern of the plugin = one rule)."""
    import importlib

    try:
        importlib.import_module("detect_secrets")
    except ImportError as exc:
        raise ImportError(
            "prime_nb.redact needs detect-secrets for its default rules: "
            "pip install detect-secrets (or reinstall prime-nb)"
        ) from exc
    rules: list[Rule] = []
    for name, (module, cls_name) in _DETECT_SECRETS_PLUGINS.items():
        plugin = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), cls_name)
        if name == "jwt":
            # the plugin's pattern stops lazily after the payload; take the signature too,
            # and keep the plugin's check that header and payload decode as JSON
            rules.append(Rule(name, pattern=JWT, group=0, valid=plugin.is_formally_valid))
            continue
        rules.extend(
            Rule(name, pattern=pattern, group_if_trailing=True) for pattern in plugin.denylist
        )
    return rules


JWT = re.compile(r"(?<![\w-])eyJ[A-Za-z0-9_=-]+\.[A-Za-z0-9_=-]+(?:\.[A-Za-z0-9_+/=-]+)?")


PRIVATE_KEY = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----"
    r"[\s\S]*?(?:-----END \1PRIVATE KEY\2-----|$)"
    r"|PuTTY-User-Key-File-\d+:[\s\S]*?Private-MAC: *[0-9a-fA-F]+"
)

#: token formats detect-secrets (1.5) lacks or matches only in part
TOKEN_PREFIXES = re.compile(
    r"(?<![\w-])(?:"
    r"sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_\-]{20,}"  # Anthropic
    r"|sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{20,}"  # OpenAI project/service keys
    r"|sk-[A-Za-z0-9]{40,}"  # OpenAI legacy, and look-alikes (DeepSeek, ...)
    r"|github_pat_[A-Za-z0-9_]{22,}"  # GitHub fine-grained
    r"|hf_[A-Za-z0-9]{30,}"  # Hugging Face
    r"|AIza[0-9A-Za-z_\-]{35}"  # Google API key
    r"|ya29\.[0-9A-Za-z_\-]{20,}"  # Google OAuth access token
    r"|(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}"  # Stripe, incl. test keys
    r"|npm_[A-Za-z0-9]{36}"  # npm automation / publish
    r"|xox[abposr]-[A-Za-z0-9-]{10,}"  # Slack, all shapes
    r"|gsk_[A-Za-z0-9]{40,}"  # Groq
    r"|pplx-[A-Za-z0-9]{40,}"  # Perplexity
    r"|r8_[A-Za-z0-9]{30,}"  # Replicate
    r"|dop_v1_[a-f0-9]{64}"  # DigitalOcean
    r"|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"  # Shopify
    r")(?![\w-])"
)

BEARER = re.compile(r"(?i)\b(?:bearer|token|basic)\s+([A-Za-z0-9\-._~+/]{12,}=*)")

_KEYWORDS = (
    r"api[_-]?key|apikey|secret|token|passw(?:or)?d|passwd|pwd|auth|credential|"
    r"access[_-]?key|private[_-]?key|client[_-]?key|signing[_-]?key|session[_-]?key"
)
#: ``NAME_TOKEN=value``, ``"api_key": "value"``, ``--token value``, ``secret: value``
KEYWORD_VALUE = re.compile(
    r"(?i)(?:" + _KEYWORDS + r")[A-Za-z0-9_.\-]{0,40}"
    r"[\"']?\s*(?::=|=>|=|:|\s)\s*[\"']?"
    r"([A-Za-z0-9+/_\-.~]{12,}=*)"
)

_BEARER_HINTS = ("bearer", "token", "basic")
_KEYWORD_HINTS = ("key", "secret", "token", "pass", "pwd", "auth", "credential")
_HOME_HINTS = ("/home/", "/users/", "\\users\\")

URL_TOKEN = re.compile(
    r"(?i)[?&#](?:access_token|refresh_token|id_token|token|api_?key|key|sig|signature|"
    r"secret|password|passwd|auth|client_secret|code|x-amz-signature|x-amz-credential)"
    r"=([^&\s#\"'<>]{8,})"
)

EMAIL = re.compile(
    r"(?<![\w.+-])[A-Za-z0-9][A-Za-z0-9._%+\-]*@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}"
)
#: emails that are no one's: ssh remotes, our own placeholders, documentation domains
_NOT_PERSONAL = re.compile(
    r"(?i)^(?:git@|.*@redacted\.invalid$|.*@(?:[\w-]+\.)*(?:example\.(?:com|org|net)|localhost)$)"
)

HOME = re.compile(
    r"(?<![\w.~-])(/home/|/Users/|[A-Za-z]:\\{1,2}Users\\{1,2})"
    r"(?!(?:Shared|Public|Default|All Users)\b)([A-Za-z0-9._\-][^/\\\s'\"`:;,|)\]}]*)"
)


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
    return Rule("hostname", pattern=pattern, placeholder=_host_placeholder, word_bounded=True)


def default_rules(hostnames: Sequence[str] | None = None) -> list[Rule]:
    """The default rule set, most specific first (an earlier rule wins an overlap).

    ``hostnames`` replaces the host names to hide (default: this machine's name, see
    :func:`this_host_names`); pass ``[]`` to hide none.
    """
    rules = [
        Rule("private-key", pattern=PRIVATE_KEY, group=0, hints=("private", "putty")),
        *detect_secrets_rules(),
        Rule("token", pattern=TOKEN_PREFIXES, group=0),
        Rule("bearer-token", pattern=BEARER, valid=looks_random, hints=_BEARER_HINTS),
        Rule("url-token", pattern=URL_TOKEN, hints=("=",)),
        Rule("keyword-secret", pattern=KEYWORD_VALUE, valid=looks_random, hints=_KEYWORD_HINTS),
        Rule(
            "email", pattern=EMAIL, valid=_valid_email, placeholder=_email_placeholder, hints=("@",)
        ),
        Rule("home-path", finder=_home_spans, placeholder=_home_placeholder, hints=_HOME_HINTS),
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
