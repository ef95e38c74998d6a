"""The kinds of secret the corpus plants, and the helpers that make them.

Each kind is a function of a seeded generator that returns a :class:`Planted`: the
secret as a session would show it (``snippet``), the strings that must vanish
(``whole``), and the random parts none of whose 6-character pieces may remain.
"""

from __future__ import annotations

import base64
import json
import random
import string
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
HEX = "0123456789abcdef"
#: syllables for made-up passwords: no English word, so no piece of one is ordinary text
_ONSETS = "bdfgkmnprstvz"
_VOWELS = "aeiou"


@dataclass(frozen=True)
class Planted:
    """One secret as it is written (``snippet``), and what must vanish from it."""

    kind: str
    snippet: str
    whole: tuple[str, ...]
    random: tuple[str, ...]


def _pick(r: random.Random, chars: str, n: int) -> str:
    return "".join(r.choice(chars) for _ in range(n))


def _word(r: random.Random, syllables: int) -> str:
    return "".join(r.choice(_ONSETS) + r.choice(_VOWELS) for _ in range(syllables))


def _password(r: random.Random) -> str:
    """A human password: made-up words, capitals, digits and a dash (``Vuka-Tebo-7391``)."""
    return f"{_word(r, 2).title()}-{_word(r, 2).title()}{_pick(r, string.digits, 4)}"


def _b64url(obj: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


def _one(kind: str, snippet: str, token: str, prefix: str = "") -> Planted:
    return Planted(kind, snippet, (token,), (token[len(prefix) :],))


# -- the kinds of secret ------------------------------------------------------------------


def _aws_key(r: random.Random) -> Planted:
    key = "AKIA" + _pick(r, UPPER_DIGITS, 16)
    return _one("aws-access-key", f"AWS_ACCESS_KEY_ID={key}", key, "AKIA")


def _aws_secret(r: random.Random) -> Planted:
    key = _pick(r, B64, 40)
    return _one("aws-secret-key", f"aws_secret_access_key = {key}", key)


def _github(r: random.Random) -> Planted:
    token = "ghp_" + _pick(r, ALNUM, 36)
    return _one("github-pat", f"the push used {token} from the keychain", token, "ghp_")


def _github_fine(r: random.Random) -> Planted:
    token = "github_pat_" + _pick(r, ALNUM, 22) + "_" + _pick(r, ALNUM, 59)
    return _one("github-fine-grained", f"GH_TOKEN {token}", token, "github_pat_")


def _gitlab(r: random.Random) -> Planted:
    token = "glpat-" + _pick(r, URLSAFE, 20)
    snippet = f"git clone https://oauth2:{token}@gitlab.com/team/app.git"
    return _one("gitlab-pat", snippet, token, "glpat-")


def _slack_bot(r: random.Random) -> Planted:
    secret = _pick(r, ALNUM, 24)
    token = f"xoxb-{_pick(r, string.digits, 12)}-{_pick(r, string.digits, 13)}-{secret}"
    # the team and bot ids are numbers: their pieces are any date's too
    return Planted("slack-bot-token", f"SLACK_BOT_TOKEN: {token}", (token,), (secret,))


def _slack_webhook(r: random.Random) -> Planted:
    tail = f"T{_pick(r, UPPER_DIGITS, 8)}/B{_pick(r, UPPER_DIGITS, 10)}/{_pick(r, ALNUM, 24)}"
    url = "https://hooks.slack.com/services/" + tail
    return Planted("slack-webhook", f"posting to {url} failed", (url,), (tail,))


def _stripe(r: random.Random) -> Planted:
    key = "sk_live_" + _pick(r, ALNUM, 24)
    return _one("stripe-live-key", f'stripe.api_key = "{key}"', key, "sk_live_")


def _openai(r: random.Random) -> Planted:
    key = "sk-proj-" + _pick(r, URLSAFE, 64)
    return _one("openai-key", f"export OPENAI_API_KEY={key}", key, "sk-proj-")


def _anthropic(r: random.Random) -> Planted:
    key = "sk-ant-api03-" + _pick(r, URLSAFE, 93) + "AA"
    return _one("anthropic-key", f"client = Anthropic(api_key='{key}')", key, "sk-ant-api03-")


def _google(r: random.Random) -> Planted:
    key = "AIza" + _pick(r, URLSAFE, 35)
    return _one("google-api-key", f"maps url ...&key={key}", key, "AIza")


def _huggingface(r: random.Random) -> Planted:
    token = "hf_" + _pick(r, ALNUM, 34)
    return _one("huggingface-token", f"huggingface-cli login --token {token}", token, "hf_")


def _sendgrid(r: random.Random) -> Planted:
    key = "SG." + _pick(r, URLSAFE, 22) + "." + _pick(r, URLSAFE, 43)
    return _one("sendgrid-key", f"mail relay key {key}", key, "SG.")


def _npm(r: random.Random) -> Planted:
    token = "npm_" + _pick(r, ALNUM, 36)
    return _one("npm-token", f"NPM_TOKEN={token}", token, "npm_")


def _twilio(r: random.Random) -> Planted:
    sid = "SK" + _pick(r, HEX, 32)
    return _one("twilio-key", f"twilio api key {sid}", sid, "SK")


def _jwt(r: random.Random) -> Planted:
    signature = _pick(r, URLSAFE, 43)
    claims = {"sub": _pick(r, ALNUM, 16), "role": "admin"}
    token = _b64url({"alg": "HS256", "typ": "JWT"}) + "." + _b64url(claims) + "." + signature
    # the header and the claims' base64 share pieces with any base64: the signature is
    # what is random
    return Planted("jwt", f"session cookie value: {token}", (token,), (signature,))


def _pem(kind: str, label: str, first: str) -> Callable[[random.Random], Planted]:
    def make(r: random.Random) -> Planted:
        body = [first + _pick(r, B64, 64 - len(first))] + [_pick(r, B64, 64) for _ in range(3)]
        block = f"-----BEGIN {label}-----\n" + "\n".join(body) + f"\n-----END {label}-----"
        snippet = f"$ cat deploy_key\n{block}\nThat is the deploy key; rotate it after."
        return Planted(kind, snippet, tuple(body), tuple(line[len(first) :] for line in body))

    return make


def _pgp(r: random.Random) -> Planted:
    body = [_pick(r, B64, 64) for _ in range(3)]
    block = (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
        + "\n".join(body)
        + "\n="
        + _pick(r, B64, 4)
        + "\n-----END PGP PRIVATE KEY BLOCK-----"
    )
    return Planted("pgp-private-key", f"exported:\n{block}\n(done)", tuple(body), tuple(body))


def _url_password(r: random.Random) -> Planted:
    password = _password(r)
    snippet = f"DATABASE_URL=postgres://app:{password}@db.internal:5432/app"
    return Planted("url-password", snippet, (password,), (password,))


def _env_dump(r: random.Random) -> Planted:
    short, key, cache = _word(r, 2) + _pick(r, string.digits, 2), _pick(r, ALNUM, 40), _password(r)
    snippet = (
        "APP_ENV=production\nDB_HOST=db.internal\nDB_USER=app\n"
        f"DB_PASSWORD={short}\nSECRET_KEY={key}\nREDIS_URL=redis://:{cache}@cache:6379/0\n"
    )
    return Planted("env-dump", snippet, (short, key, cache), (short, key, cache))


def _bearer(r: random.Random) -> Planted:
    token = _pick(r, ALNUM, 40)
    snippet = f"curl -H 'Authorization: Bearer {token}' https://api.internal.dev/v2/me"
    return Planted("bearer-header", snippet, (token,), (token,))


def _basic(r: random.Random) -> Planted:
    password = _password(r)
    blob = base64.b64encode(f"deploy:{password}".encode()).decode()
    # "deploy:" is the same in every one: its base64 is no sign of a leak
    return Planted("basic-auth", f"Authorization: Basic {blob}", (blob, password), (blob[10:],))


def _short_password(r: random.Random) -> Planted:
    password = _word(r, 3) + _pick(r, string.digits, 1)
    return Planted("short-password", f"DB_PASSWORD={password}", (password,), (password,))


def _digitless_password(r: random.Random) -> Planted:
    password = "".join(_word(r, 3) for _ in range(4))
    return Planted("digitless-password", f"PASSWORD={password}", (password,), (password,))


def _mysql(r: random.Random) -> Planted:
    password = _password(r)
    snippet = f"mysql -h db.internal -u app -p{password} app_production"
    return Planted("mysql-p", snippet, (password,), (password,))


def _wrapped(r: random.Random) -> Planted:
    token = "sk-proj-" + _pick(r, URLSAFE, 64)
    line = f"OPENAI_API_KEY={token}"
    wrapped = "\n".join(textwrap.wrap(line, 48, break_on_hyphens=False))
    halves = tuple(part for part in wrapped.split("\n"))
    pieces = (token[len("sk-proj-") :], *(h.split("=", 1)[-1] for h in halves[1:]))
    return Planted("wrapped-key", "$ cat .env\n" + wrapped, (token, *halves[1:]), pieces)


def _wrapped_bare(r: random.Random) -> Planted:
    token = "ghp_" + _pick(r, ALNUM, 36)
    cut = 18
    snippet = f"remote: Invalid username or token. Token was {token[:cut]}\n{token[cut:]}"
    return Planted("wrapped-github", snippet, (token, token[cut:]), (token[4:], token[cut:]))


def _base64_env(r: random.Random) -> Planted:
    password, key = _password(r), _pick(r, ALNUM, 32)
    env = f"DB_HOST=db.internal\nDB_PASSWORD={password}\nSTRIPE_KEY=sk_live_{key}\n"
    blob = base64.b64encode(env.encode()).decode()
    wrapped = "\n".join(textwrap.wrap(blob, 76))
    return Planted(
        "base64-env",
        f"$ base64 .env\n{wrapped}",
        (blob, *wrapped.split("\n"), password, key),
        # only the key's base64 is random: the lines around it encode the same in every
        # one, and the password's digits encode as any number's (an id's) do; the
        # password itself is looked for whole in the decoded text
        (blob[92:130],),
    )


def _json_secret(r: random.Random) -> Planted:
    secret = _pick(r, ALNUM, 32)
    snippet = json.dumps({"client_id": "web-app", "client_secret": secret, "scopes": ["read"]})
    return Planted("json-client-secret", snippet, (secret,), (secret,))


def _x_api_key(r: random.Random) -> Planted:
    key = _pick(r, HEX, 32)
    return Planted("x-api-key", f"X-Api-Key: {key}", (key,), (key,))


def _cookie(r: random.Random) -> Planted:
    session, csrf = _pick(r, ALNUM, 32), _pick(r, ALNUM, 32)
    snippet = f"Cookie: sessionid={session}; csrftoken={csrf}"
    return Planted("cookie-header", snippet, (session, csrf), (session, csrf))


def _query_token(r: random.Random) -> Planted:
    token = _pick(r, ALNUM, 32)
    snippet = f"GET https://api.example.io/v1/export?format=csv&access_token={token}"
    return Planted("url-query-token", snippet, (token,), (token,))


def _telegram(r: random.Random) -> Planted:
    token = _pick(r, string.digits, 9) + ":" + "AA" + _pick(r, URLSAFE, 33)
    return Planted("telegram-token", f"bot {token} started", (token,), (token[12:],))


def _ya29(r: random.Random) -> Planted:
    token = "ya29." + _pick(r, URLSAFE, 60)
    return _one("google-oauth-token", f"gcloud printed {token}", token, "ya29.")


def _pypi(r: random.Random) -> Planted:
    token = "pypi-AgEIcHlwaS5vcmc" + _pick(r, URLSAFE, 80)
    return _one(
        "pypi-token", f"twine upload -u __token__ -p {token} dist/*", token, "pypi-AgEIcHlwaS5vcmc"
    )


def _digitalocean(r: random.Random) -> Planted:
    token = "dop_v1_" + _pick(r, HEX, 64)
    return _one("digitalocean-token", f"doctl auth init -t {token}", token, "dop_v1_")


def _sshpass(r: random.Random) -> Planted:
    password = _password(r)
    snippet = f"sshpass -p '{password}' ssh deploy@10.0.0.5 uptime"
    return Planted("sshpass", snippet, (password,), (password,))


def _curl_user(r: random.Random) -> Planted:
    password = _password(r)
    snippet = f"curl -u admin:{password} https://ci.internal/api/json"
    return Planted("curl-user", snippet, (password,), (password,))


def _yaml_password(r: random.Random) -> Planted:
    password = _word(r, 3).title() + "!" + _pick(r, string.digits, 2)
    snippet = f'database:\n  user: app\n  password: "{password}"\n  pool: 5'
    return Planted("yaml-password", snippet, (password,), (password,))


def _flag_token(r: random.Random) -> Planted:
    token = _pick(r, ALNUM, 32)
    return Planted(
        "cli-flag-token", f"./deploy.sh --api-token {token} --env prod", (token,), (token,)
    )


def _azure(r: random.Random) -> Planted:
    key = _pick(r, B64, 86) + "=="
    snippet = (
        "DefaultEndpointsProtocol=https;AccountName=appstore;"
        f"AccountKey={key};EndpointSuffix=core.windows.net"
    )
    return Planted("azure-storage-key", snippet, (key,), (key[:-2],))


KINDS_FIRST: list[Callable[[random.Random], Planted]] = [
    _aws_key,
    _aws_secret,
    _github,
    _github_fine,
    _gitlab,
    _slack_bot,
    _slack_webhook,
    _stripe,
    _openai,
    _anthropic,
    _google,
    _huggingface,
    _sendgrid,
    _npm,
    _twilio,
    _jwt,
    _pem("rsa-private-key", "RSA PRIVATE KEY", "MIIEowIBAAKCAQEA"),
    _pem("ec-private-key", "EC PRIVATE KEY", "MHcCAQEEI"),
    _pem("openssh-private-key", "OPENSSH PRIVATE KEY", "b3BlbnNzaC1rZXktdjEAAAAA"),
    _pem("pkcs8-private-key", "PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEF"),
    _pem("encrypted-private-key", "ENCRYPTED PRIVATE KEY", "MIIFHDBOBgkqhkiG9w0BBQ0w"),
    _pgp,
    _url_password,
    _env_dump,
    _bearer,
    _basic,
    _short_password,
    _digitless_password,
    _mysql,
    _wrapped,
    _wrapped_bare,
    _base64_env,
    _json_secret,
    _x_api_key,
    _cookie,
    _query_token,
    _telegram,
    _ya29,
    _pypi,
    _digitalocean,
    _sshpass,
    _curl_user,
    _yaml_password,
    _flag_token,
    _azure,
]
