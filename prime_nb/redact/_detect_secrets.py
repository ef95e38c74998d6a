"""The provider formats detect-secrets maintains, as redaction rules.

Why apart from the other rules: these patterns are detect-secrets' own (its
RegexBasedDetector plugins), read from the installed package, with only what prime_nb adds
to run them cheaply (the words, blanks and runs a match cannot lack); the rules written
here are in ``_rules``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ._rule import Rule
from ._values import stand_in, strongly_random

#: provider formats from detect-secrets' RegexBasedDetector plugins (module, class), with
#: the words their patterns cannot match without (lower-cased: a string without any of
#: them skips the pattern). Left out: PrivateKeyDetector (finds only the header line; our
#: rule takes the block), IPPublicDetector (addresses are not in scope), keyword/entropy
#: plugins (ours below give spans, not values)
_DETECT_SECRETS_PLUGINS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "aws-key": ("aws", "AWSKeyDetector", ("a3t", "abia", "acca", "akia", "asia", "aws")),
    "artifactory-token": ("artifactory", "ArtifactoryDetector", ("akc", "ap")),
    "azure-storage-key": ("azure_storage_key", "AzureStorageKeyDetector", ("accountkey",)),
    "url-password": ("basic_auth", "BasicAuthDetector", ("://",)),
    "cloudant-credentials": ("cloudant", "CloudantDetector", ("cl",)),
    "discord-token": ("discord", "DiscordBotTokenDetector", (".",)),
    "github-token": ("github_token", "GitHubTokenDetector", ("gh",)),
    "gitlab-token": ("gitlab_token", "GitLabTokenDetector", ("gl", "gr1348941")),
    "ibm-cloud-key": ("ibm_cloud_iam", "IbmCloudIamDetector", ("key", "pwd", "pass", "token")),
    "ibm-cos-hmac": ("ibm_cos_hmac", "IbmCosHmacDetector", ("secret",)),
    "jwt": ("jwt", "JwtTokenDetector", ()),
    "mailchimp-key": ("mailchimp", "MailchimpDetector", ("-us",)),
    "npm-token": ("npm", "NpmDetector", ("_authtoken",)),
    "openai-key": ("openai", "OpenAIDetector", ("t3blbkfj",)),
    "pypi-token": ("pypi_token", "PypiTokenDetector", ("pypi-",)),
    "sendgrid-key": ("sendgrid", "SendGridDetector", ("sg.",)),
    "slack-token": ("slack", "SlackDetector", ("xox", "hooks.slack")),
    "softlayer-key": (
        "softlayer",
        "SoftlayerDetector",
        ("key", "pwd", "pass", "token", "softlayer"),
    ),
    "square-secret": ("square_oauth", "SquareOAuthDetector", ("sq0csp",)),
    "stripe-key": ("stripe", "StripeDetector", ("k_live_",)),
    "telegram-token": ("telegram_token", "TelegramBotTokenDetector", (":",)),
    "twilio-key": ("twilio", "TwilioKeyDetector", ("ac", "sk")),
}


#: what ``\s`` matches in a str pattern (str.isspace), for the rules that need a blank
SPACES = tuple(chr(c) for c in (*range(9, 14), *range(28, 33), 0x85, 0xA0, 0x1680))
SPACES += tuple(chr(c) for c in (*range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000))
#: the operator after a ``name = value`` key of detect-secrets' keyword patterns
#: (``(?: *)(?:=|:|:=|=>| +|::)``): a space, ``=`` or ``:``
_DS_ASSIGN = (" ", "=", ":")
#: what each pattern of a plugin needs (by the pattern's index; none: its hints only),
#: read off the pattern, so skipping a text never loses a match
_DETECT_SECRETS_NEEDS: dict[str, tuple[tuple[str, ...], ...]] = {
    # ``(?:\s|=|:|"|^)AKC...``: the text's start is the rule's ``starts``
    "artifactory-token": ((*SPACES, "=", ":", '"'), (*SPACES, "=", ":", '"')),
    "cloudant-credentials": (_DS_ASSIGN, _DS_ASSIGN, ("@",), ("@",)),
    "ibm-cloud-key": (_DS_ASSIGN,),
    "ibm-cos-hmac": (_DS_ASSIGN,),
    "softlayer-key": (_DS_ASSIGN, ("://",)),
}


_DETECT_SECRETS_STARTS = {"artifactory-token": ("AKC", "AP")}
#: the shortest value of the keyword patterns (a cloudant password of 24 letters; IBM's
#: key of 44, a SoftLayer key of 64, ...): prose rarely holds such a run
_DETECT_SECRETS_RUN = {
    "cloudant-credentials": 24,
    "ibm-cloud-key": 44,
    "ibm-cos-hmac": 48,
    "softlayer-key": 64,
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
    for name, (module, cls_name, hints) in _DETECT_SECRETS_PLUGINS.items():
        plugin = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), cls_name)
        if name == "jwt":
            # the plugin's pattern stops lazily after the payload; take the signature too,
            # and keep the plugin's check that header and payload decode as JSON
            rules.append(
                Rule(
                    name,
                    pattern=JWT,
                    group=0,
                    valid=plugin.is_formally_valid,
                    needs=("eyJ",),
                    hints=(".",),  # between its header and payload
                )
            )
            continue
        # a URL's password may be a word ("admin"): replaced where found, and everywhere
        # only when random; Artifactory's short prefixes ("AP") also start plain words
        confident: bool | Callable[[str], bool] = (
            strongly_random if name in ("url-password", "artifactory-token") else True
        )
        valid = url_password_valid if name == "url-password" else None
        needs = _DETECT_SECRETS_NEEDS.get(name, ())
        rules.extend(
            Rule(
                name,
                pattern=p,
                group_if_trailing=True,
                confident=confident,
                valid=valid,
                hints=hints,
                needs=needs[i] if i < len(needs) else (),
                starts=_DETECT_SECRETS_STARTS.get(name, ()),
                run=_DETECT_SECRETS_RUN.get(name, 0),
            )
            for i, p in enumerate(plugin.denylist)
        )
    return rules


JWT = re.compile(r"(?<![\w-])eyJ[A-Za-z0-9_=-]+\.[A-Za-z0-9_=-]+(?:\.[A-Za-z0-9_+/=-]+)?")


def url_password_valid(value: str) -> bool:
    return not stand_in(value) or value.lower() in ("root", "admin", "pass", "test")
