"""A session file with realistic secrets in every place a session holds text.

Why a generator: redaction was once judged by a handful of planted keys, and an attack
test then found hundreds that survived: secrets under JSON keys, in escaped JSON, in torn
lines, short or digitless passwords, keys wrapped over two lines, base64-encoded
``.env`` files. This module plants every *kind* of secret in every *place* (and in the
raw-line variants: torn, invalid, duplicate key), each placement with a secret of its own
drawn from a seeded generator, so that the file-wide pass cannot hide a place the rules
miss. It also plants ordinary sentences that look like secrets and are not.

:func:`build` writes the file and returns what was planted: ``whole`` strings that must
not appear anywhere after redaction, and ``random`` parts (a token without its public
prefix) none of whose 6-character pieces may appear.
"""

from __future__ import annotations

import base64
import json
import random
import string
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
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


@dataclass
class Corpus:
    """What :func:`build` wrote: the file, the secrets, the ordinary sentences' lines."""

    path: Path
    planted: list[tuple[str, str, Planted]] = field(default_factory=list)  # place, kind, ...
    #: ordinary sentence -> the 1-based line numbers that hold it
    ordinary: dict[str, list[int]] = field(default_factory=dict)


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
    return Planted("basic-auth", f"Authorization: Basic {blob}", (blob, password), (blob,))


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
        (blob[44:],),  # the first 33 bytes (``DB_HOST=...``) are the same every time
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
    return _one("pypi-token", f"twine upload -u __token__ -p {token} dist/*", token, "pypi-")


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


KINDS: list[Callable[[random.Random], Planted]] = [
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


# -- the places a session holds text ------------------------------------------------------


class _Session:
    """Entries in a chain, each with an id that no hex secret can share a piece with."""

    def __init__(self, spec: bool = False) -> None:
        self.spec = spec  # the specification's dialect: timestamps in Unix ms
        self.lines: list[str] = []
        self.n = 0
        self.last: str | None = None
        self.call = "toolu_01"

    def new_id(self) -> str:
        self.n += 1
        return f"n{self.n:05d}zq"

    def add(self, entry_type: str, **fields: Any) -> int:
        entry = {
            "type": entry_type,
            "id": self.new_id(),
            "parentId": self.last,
            "timestamp": 1767607200000 + self.n * 1000
            if self.spec
            else f"2026-01-05T10:{self.n // 60 % 60:02d}:{self.n % 60:02d}.000Z",
            **fields,
        }
        self.last = entry["id"]
        self.lines.append(json.dumps(entry, ensure_ascii=False))
        return len(self.lines)

    def message(self, role: str, content: Any, **extra: Any) -> int:
        message: dict[str, Any] = {"role": role, "content": content, "timestamp": 1767607200000}
        if role == "assistant":
            message.update(provider="anthropic", model="claude-sonnet-4-5", stopReason="stop")
        message.update(extra)
        return self.add("message", message=message)

    def call_with(self, arguments: dict[str, Any]) -> int:
        self.call = f"toolu_{self.n:06d}"
        block = {"type": "toolCall", "id": self.call, "name": "write", "arguments": arguments}
        return self.message("assistant", [{"type": "text", "text": "Writing it."}, block])

    def result(self, text: str, **extra: Any) -> int:
        fields = {"toolCallId": self.call, "toolName": "bash", "isError": False, **extra}
        return self.message("toolResult", [{"type": "text", "text": text}], **fields)

    def bash(self, command: str, output: str) -> int:
        message = {
            "role": "bashExecution",
            "command": command,
            "output": output,
            "exitCode": 0,
            "cancelled": False,
            "truncated": False,
            "timestamp": 1767607200000,
        }
        return self.add("message", message=message)


Place = Callable[[_Session, str], int]

PLACES: dict[str, Place] = {
    "user-text": lambda s, t: s.message("user", t),
    "user-block": lambda s, t: s.message("user", [{"type": "text", "text": t}]),
    "assistant-text": lambda s, t: s.message(
        "assistant", [{"type": "text", "text": f"I found this:\n{t}"}]
    ),
    "thinking": lambda s, t: s.message(
        "assistant",
        [
            {"type": "thinking", "thinking": f"The file holds {t}", "thinkingSignature": "c2ln"},
            {"type": "text", "text": "Done."},
        ],
    ),
    "tool-arguments": lambda s, t: s.call_with({"path": ".env", "content": t}),
    "tool-arguments-nested": lambda s, t: s.call_with(
        {"request": {"headers": [{"note": t}], "retries": 2}, "dryRun": False}
    ),
    "tool-arguments-key": lambda s, t: s.call_with({"env": {t: "1"}, "cwd": "."}),
    "tool-result": lambda s, t: s.result(t),
    "tool-result-error": lambda s, t: s.result(f"Error: {t}", isError=True),
    "tool-result-details": lambda s, t: s.result("ok", details={"stdout": t, "exitCode": 0}),
    "bash-command": lambda s, t: s.bash(t, "ok"),
    "bash-output": lambda s, t: s.bash("cat config.txt", t),
    "custom-data": lambda s, t: s.add(
        "custom", customType="ext-state", data={"history": [{"input": t, "n": 1}]}
    ),
    "custom-data-key": lambda s, t: s.add(
        "custom", customType="ext-cache", data={"cache": {t: {"hits": 3}}}
    ),
    "custom-message": lambda s, t: s.add(
        "custom_message", customType="hook", content=t, display=True
    ),
    "custom-message-blocks": lambda s, t: s.add(
        "custom_message",
        customType="hook",
        content=[{"type": "text", "text": t}],
        display=False,
        details={"source": "pre-commit"},
    ),
    "custom-message-details": lambda s, t: s.add(
        "custom_message", customType="hook", content="hook ran", display=True, details={"log": t}
    ),
    "custom-role-message": lambda s, t: s.message("custom", t, customType="reminder", display=True),
    "compaction-summary": lambda s, t: s.add(
        "compaction",
        summary=f"## Goal\nDeploy the app.\n## Notes\n{t}",
        firstKeptEntryId=s.last,
        tokensBefore=50000,
    ),
    "compaction-details": lambda s, t: s.add(
        "compaction",
        summary="Deployed.",
        firstKeptEntryId=s.last,
        tokensBefore=50000,
        details={"readFiles": [".env"], "modifiedFiles": [], "notes": t},
    ),
    "branch-summary": lambda s, t: s.add("branch_summary", fromId=s.last, summary=t),
    "label": lambda s, t: s.add("label", targetId=s.last, label=t),
    "session-name": lambda s, t: s.add("session_info", name=t),
    "git-state": lambda s, t: s.add("git_state", git={"branch": "main", "remote": t}),
    "agent-status": lambda s, t: s.add(
        "agent_status", status={"summary": t, "basedOnMessageCount": 3}
    ),
    "model-change": lambda s, t: s.add("model_change", provider="custom", modelId=t),
    "assistant-error": lambda s, t: s.message(
        "assistant", [], stopReason="error", errorMessage=f"401 Unauthorized: {t}"
    ),
    "json-escaped": lambda s, t: s.result(json.dumps({"level": "info", "msg": t})),
    "json-escaped-twice": lambda s, t: s.result(
        json.dumps({"status": 200, "body": json.dumps({"log": [t]})})
    ),
    "log-line-json": lambda s, t: s.bash(
        "tail -n1 app.log",
        "2026-01-05T10:00:00Z INFO request " + json.dumps({"cfg": {"note": t}}),
    ),
}
#: raw lines that are not plain entries: a repeated key, a broken line, a torn last line
RAW_PLACES = ("duplicate-key", "invalid-line", "torn-line")
#: header fields hold a list of every kind (one header per file)
HEADER_PLACE = "header"

#: sentences that look like secrets and are not: none may change
ORDINARY = [
    "Each token gpt-4o-2024-08-06 emits is billed at the output rate.",
    "The basic python3.11-slim image is enough for the tests.",
    "pwd: /srv/app/releases/2024-11-02",
    "$ pwd\n/srv/www/site",
    "Using claude-3-5-sonnet-20241022 with max_tokens: 8192.",
    "Model: claude-sonnet-4-5-20250929, thinking: high",
    "docker pull example.org/tools/uv:0.4.18-python3.12-bookworm-slim",
    "image: postgres:16.4-alpine3.20",
    "FROM node:20.17.0-bookworm-slim AS build",
    "commit 3f9a1c2e8b7d4f6a0e5c9b1d2a7e8f3c4b5a6d7e\nAuthor: Dev <dev@example.com>",
    "HEAD is now at 9fceb02 Fix token refresh race",
    "Merge: 1a2b3c4 5d6e7f8",
    "digest sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "Entry n00012zq is the parent of n00013zq.",
    "session 123e4567-e89b-12d3-a456-426614174000 loaded",
    "Generated UUID 9b2f0c1e-6a4d-4e2b-8f3c-1d5e7a9b0c2d for the new tenant.",
    "request_id: req_011CUjk3Nf6uq2VmxyzAbCdE returned 200",
    "tool call toolu_01A09q90qw90lq917835lq9 returned",
    "pip install torch==2.4.1+cu121 transformers==4.44.2",
    "node v20.17.0, npm 10.8.2",
    "Python 3.11.9 (main, Aug  7 2024, 17:17:28) [GCC 12.2.0]",
    "export PATH=/usr/local/go/bin:$PATH",
    "export NODE_OPTIONS=--max-old-space-size=8192",
    "The password field is required and must be at least 12 characters.",
    "Reset your password from the account settings page.",
    "Set the token_budget to 200000 in the config.",
    "The auth middleware now checks the session before the handler runs.",
    "Use `gh auth login` to sign in; the token is stored by the CLI.",
    "password: ${DB_PASSWORD}",
    "API_KEY=<your-api-key>",
    "Authorization: Bearer $TOKEN",
    "max_tokens: 4096, temperature: 0.2",
    "input_tokens=15230 output_tokens=812 cache_read_tokens=14000",
    "Wrote dist/prime_nb-0.9.2-py3-none-any.whl",
    "kubectl rollout restart deployment/api-server -n prod",
    "git checkout -b fix/token-expiry-handling",
    "The secret to fast tests is running them in parallel.",
    "SELECT id, name FROM users WHERE password_reset_at IS NULL;",
    "curl -s https://api.github.com/repos/owner/repo/commits?per_page=5",
    "pytest -k 'test_token and not slow' -q",
    "AKIA is the prefix AWS uses for access key ids.",
    "base64 of hello world is aGVsbG8gd29ybGQ=",
    "mysql -u root -p mydb prompts for the password",
    "Bearer tokens expire after 3600 seconds.",
    "token_type: bearer, expires_in: 3600",
    "SECRET_KEY must be set in production (see settings.py).",
    "version: 2.14.0-rc.1+build.5843",
    "ruff 0.6.9, mypy 1.11.2 (compiled: yes)",
    "Read /srv/data/2024/q3/report.parquet in 3 chunks",
    "the access_token field is missing from the response",
]
#: where each ordinary sentence is written
ORDINARY_PLACES = ("assistant-text", "tool-result", "bash-output", "tool-arguments")


def plant(seed: int = 33) -> list[tuple[str, Planted]]:
    """(place, planted) for every kind in every place, each with a secret of its own."""
    r = random.Random(seed)
    places = [*PLACES, *RAW_PLACES, HEADER_PLACE]
    return [(place, make(r)) for place in places for make in KINDS]


def build(path: Path, seed: int = 33) -> Corpus:
    """Write the corpus session to ``path``; return what it holds."""
    corpus = Corpus(path)
    session = _Session()
    header_notes: list[str] = []
    torn: str | None = None
    planted = plant(seed)
    ordinary = iter([(sentence, place) for sentence in ORDINARY for place in ORDINARY_PLACES])
    for i, (place, item) in enumerate(planted):
        corpus.planted.append((place, item.kind, item))
        if place in PLACES:
            PLACES[place](session, item.snippet)
        elif place == HEADER_PLACE:
            header_notes.append(item.snippet)
        elif place == "duplicate-key":
            entry = {
                "type": "message",
                "id": session.new_id(),
                "parentId": session.last,
                "timestamp": "2026-01-05T11:00:00.000Z",
            }
            session.last = entry["id"]
            head = json.dumps(entry)[:-1]
            content = json.dumps(item.snippet)
            session.lines.append(
                head + ', "message": {"role": "user", "content": '
                f'{content}, "content": "nothing to see", "timestamp": 0}}}}'
            )
        elif place == "invalid-line":
            session.lines.append(
                '{"type": "message", "id": "broken", "message": {"content": '
                + json.dumps(item.snippet)
                + ", <cut here"
            )
        elif place == "torn-line" and torn is None:
            torn = item.snippet  # the last line of the file, written below
        elif place == "torn-line":
            # only one line can be the torn tail; the others are torn mid-file
            line = json.dumps(
                {
                    "type": "message",
                    "message": {"role": "user", "content": item.snippet + " and then"},
                }
            )
            session.lines.append(line[: line.index(" and then") + 4])
        if i % 4 == 0:
            sentence_place = next(ordinary, None)
            if sentence_place is not None:
                sentence, where = sentence_place
                PLACES[where](session, sentence)
                corpus.ordinary.setdefault(sentence, []).append(len(session.lines))
    for sentence, where in ordinary:
        PLACES[where](session, sentence)
        corpus.ordinary.setdefault(sentence, []).append(len(session.lines))
    head = {
        "type": "session",
        "version": 3,
        "id": "0b7c3a52-6a8e-4c1e-9d0f-2f6b1c9e8a71",
        "timestamp": "2026-01-05T10:00:00.000Z",
        "cwd": "/srv/app",
        "git": {"branch": "main", "notes": header_notes},
    }
    lines = [json.dumps(head, ensure_ascii=False), *session.lines]
    corpus.ordinary = {s: [n + 1 for n in ns] for s, ns in corpus.ordinary.items()}
    body = "\n".join(lines) + "\n"
    if torn is not None:
        tail = json.dumps({"type": "message", "id": "torn", "message": {"content": torn + " ok"}})
        body += tail[: tail.index(" ok")]
    path.write_text(body, encoding="utf-8")
    return corpus


def pieces(text: str, n: int = 6) -> Iterable[str]:
    """Every ``n``-character piece of ``text``, but those of digits only (a piece of a
    timestamp is as likely as one of a secret)."""
    for i in range(len(text) - n + 1):
        piece = text[i : i + n]
        if not piece.isdigit():
            yield piece


#: the places only the specification's dialect has (top-level tool calls and results,
#: ``hookMessage``-era custom entries, its own type names)
SPEC_PLACES: dict[str, Callable[[_Session, str], int]] = {
    "spec-tool-call": lambda s, t: s.add(
        "toolCall",
        toolCallId=f"call_{s.n}",
        name="bash",
        arguments={"command": t, "env": {t: "1"}},
    ),
    "spec-tool-result": lambda s, t: s.add(
        "toolResult",
        toolCallId=f"call_{s.n - 1}",
        toolName="bash",
        content=[{"type": "text", "text": t}],
        isError=False,
    ),
    "spec-custom": lambda s, t: s.add(
        "custom", customType="hook", content=t, display=True, details={"raw": t}
    ),
    "spec-branch-summary": lambda s, t: s.add("branchSummary", fromId=s.last, summary=t),
    "spec-model-change": lambda s, t: s.add("modelChange", provider="custom", modelId=t),
}


def build_spec(path: Path, seed: int = 34) -> Corpus:
    """The corpus in the specification's dialect: every kind in its own places, and in
    the header's fields."""
    corpus = Corpus(path)
    session = _Session(spec=True)
    r = random.Random(seed)
    notes = []
    for place in [*SPEC_PLACES, HEADER_PLACE]:
        for make in KINDS:
            item = make(r)
            corpus.planted.append((place, item.kind, item))
            if place == HEADER_PLACE:
                notes.append(item.snippet)
            else:
                SPEC_PLACES[place](session, item.snippet)
    head = {
        "type": "header",
        "version": 3,
        "id": "5d1e7a3c-0b9f-4e62-8a14-c7f3b2d6e905",
        "workingDir": "/srv/app",
        "timestamp": 1767607200000,
        "notes": notes,
    }
    lines = [json.dumps(head, ensure_ascii=False), *session.lines]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return corpus
