"""A third list of secret kinds, new places and encodings, and more look-alikes.

Why a third list: the first two were the lists the rules were written against, and a
corpus the rules were written against proves little. These kinds were written as an
attacker would, before reading the rules: provider formats current in public rule sets
(Groq, Replicate, Linear, Notion, Doppler, PlanetScale, Databricks, Supabase, Shopify,
Atlassian, Sentry, Heroku, Fly, Docker Hub, LangSmith, Bedrock...), credentials in
source code, stack traces, credential files and headers, passwords with spaces or
non-ASCII letters, keys in JSON with ``\\n`` escapes or CRLF line ends. ``PLACES_MORE``
shows each kind in new forms: ANSI colour codes or zero-width characters between its
letters, full-width letters, HTML entities, ``\\u`` and ``\\x`` escapes, base32,
base64url, quoted-printable, gzip+base64, CSV, a markdown link, a diff's ``-`` line, a
tool result cut mid-secret. ``LOOKALIKES_MORE`` are config and command lines that hold
none (masked logs, references to secret stores, public keys and certificates).
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable

from more_secrets import Kind, _hex, _pw, _tok, _uuid
from secret_kinds import ALNUM, B64, HEX, URLSAFE, Planted, _password, _pick, _word

LOWER_DIGITS = string.ascii_lowercase + string.digits


def _alnum(n: int) -> Callable[[random.Random], str]:
    return lambda r: _pick(r, ALNUM, n)


def _prefixed(prefix: str, chars: str, n: int, suffix: str = "") -> Callable[[random.Random], str]:
    return lambda r: prefix + _pick(r, chars, n) + suffix


def _bare(kind: str, prefix: str, chars: str, n: int, template: str = "") -> Kind:
    """A provider token with ``prefix``, in a sentence that names no secret."""
    return _tok(kind, template or "the log showed {tok} twice", _prefixed(prefix, chars, n), prefix)


def _pem_json(r: random.Random) -> Planted:
    """A service account's key file: a PEM key inside JSON, its lines joined by ``\\n``."""
    body = ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + _pick(r, B64, 32)] + [
        _pick(r, B64, 64) for _ in range(3)
    ]
    pem = "-----BEGIN PRIVATE KEY-----\n" + "\n".join(body) + "\n-----END PRIVATE KEY-----\n"
    snippet = json.dumps({"type": "service_account", "project_id": "app-prod", "private_key": pem})
    return Planted("service-account-json", snippet, tuple(body), (body[0][32:], *body[1:]))


def _pem_crlf(r: random.Random) -> Planted:
    body = [_pick(r, B64, 64) for _ in range(3)]
    block = (
        "-----BEGIN RSA PRIVATE KEY-----\r\nProc-Type: 4,ENCRYPTED\r\n"
        f"DEK-Info: AES-128-CBC,{_pick(r, HEX, 32).upper()}\r\n\r\n"
        + "\r\n".join(body)
        + "\r\n-----END RSA PRIVATE KEY-----\r\n"
    )
    return Planted("pem-crlf-encrypted", f"key.pem:\r\n{block}", tuple(body), tuple(body))


def _ppk(r: random.Random) -> Planted:
    private = _pick(r, B64, 64)
    snippet = (
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy@ci\n"
        "Public-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIOq0Kx5vYc3Xo0mN2Y1cD\nrS0xHqB7jL2w\n"
        f"Private-Lines: 1\n{private}\nPrivate-MAC: {_pick(r, HEX, 64)}"
    )
    return Planted("putty-ppk", snippet, (private,), (private,))


def _kubeconfig_key(r: random.Random) -> Planted:
    body = "MIIEowIBAAKCAQEA" + _pick(r, B64, 112)
    pem = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----\n"
    blob = base64.b64encode(pem.encode()).decode()
    snippet = f"users:\n- name: admin\n  user:\n    client-key-data: {blob}"
    return Planted("kubeconfig-client-key", snippet, (blob, body), (body[16:],))


def _k8s_secret(r: random.Random) -> Planted:
    url = f"postgres://app:{_password(r)}@db:5432/app"
    password = url.split(":")[2].split("@")[0]
    blob = base64.b64encode(url.encode()).decode()
    snippet = f"apiVersion: v1\nkind: Secret\ndata:\n  DATABASE_URL: {blob}"
    return Planted("k8s-secret-data", snippet, (blob, password), (password,))


def _userinfo_token(r: random.Random) -> Planted:
    token = _pick(r, HEX, 40)
    snippet = f"git remote set-url origin https://{token}@git.internal/team/app.git"
    return Planted("url-userinfo-token", snippet, (token,), (token,))


def _sentry_dsn(r: random.Random) -> Planted:
    key = _pick(r, HEX, 32)
    snippet = (
        'Traceback (most recent call last):\n  File "app.py", line 9, in <module>\n'
        f'    sentry_sdk.init("https://{key}@o4506.ingest.sentry.io/4506")\n'
        "RuntimeError: transport failed"
    )
    return Planted("sentry-dsn", snippet, (key,), (key,))


def _shadow(r: random.Random) -> Planted:
    digest = _pick(r, ALNUM + "./", 86)
    salt = _pick(r, ALNUM, 16)
    snippet = f"$ sudo cat /etc/shadow | grep deploy\ndeploy:$6${salt}${digest}:19700:0:99999:7:::"
    return Planted("shadow-hash", snippet, (digest,), (digest,))


def _spaced_password(r: random.Random) -> Planted:
    password = " ".join(_word(r, 3) for _ in range(4))
    return Planted("spaced-password", f'DB_PASSWORD="{password}"', (password,),
                   tuple(password.split(" ")))  # fmt: skip


def _unicode_password(r: random.Random) -> Planted:
    letters = "бвгдклмнпрстфзжшаеиоу"
    password = "".join(r.choice(letters) for _ in range(8)).title() + _pick(r, string.digits, 3)
    return Planted("unicode-password", f"PASSWORD={password}", (password,), (password,))


def _punct_password(r: random.Random) -> Planted:
    password = _word(r, 2) + ";#" + _word(r, 2) + "&'" + _pick(r, string.digits, 3)
    snippet = f'$ cat .env\nDB_PASS="{password}"'
    return Planted("punctuated-password", snippet, (password,), (password,))


def _block_scalar(r: random.Random) -> Planted:
    password = _password(r)
    snippet = f"db:\n  password: |\n    {password}\n  pool: 5"
    return Planted("yaml-block-password", snippet, (password,), (password,))


def _set_cookie(r: random.Random) -> Planted:
    value = _pick(r, URLSAFE, 43)
    snippet = f"< Set-Cookie: _app_sess={value}; Path=/; Secure; HttpOnly; SameSite=Lax"
    return Planted("set-cookie", snippet, (value,), (value,))


def _teams_webhook(r: random.Random) -> Planted:
    tail = f"IncomingWebhook/{_pick(r, HEX, 32)}/{_uuid(r)}"
    url = f"https://corp.webhook.office.com/webhookb2/{_uuid(r)}@{_uuid(r)}/{tail}"
    return Planted("teams-webhook", f"notify: {url}", (url,), (tail[16:48],))


def _gcs_signed(r: random.Random) -> Planted:
    sig = _pick(r, HEX, 256)
    url = (
        "https://storage.googleapis.com/bucket/report.csv?X-Goog-Algorithm=GOOG4-RSA-SHA256"
        f"&X-Goog-Expires=900&X-Goog-Signature={sig}"
    )
    return Planted("gcs-signed-url", url, (sig,), (sig,))


def _telegram_url(r: random.Random) -> Planted:
    token = _pick(r, string.digits, 10) + ":AA" + _pick(r, URLSAFE, 33)
    url = f"POST https://api.telegram.org/bot{token}/sendMessage 200"
    return Planted("telegram-url", url, (token,), (token[13:],))


def _totp(r: random.Random) -> Planted:
    seed = _pick(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 32)
    return Planted("totp-seed", f"TOTP_SEED={seed}", (seed,), (seed,))


def _psk(r: random.Random) -> Planted:
    password = _password(r)
    snippet = f'network={{\n    ssid="Office"\n    psk="{password}"\n}}'
    return Planted("wpa-psk", snippet, (password,), (password,))


def _go_struct(r: random.Random) -> Planted:
    password = _password(r)
    snippet = f'cfg := mysql.Config{{User: "app", Passwd: "{password}", Net: "tcp"}}'
    return Planted("go-source-passwd", snippet, (password,), (password,))


def _java_const(r: random.Random) -> Planted:
    key = _pick(r, ALNUM, 32)
    snippet = f'private static final String CLIENT_SECRET = "{key}";'
    return Planted("java-source-secret", snippet, (key,), (key,))


def _js_concat(r: random.Random) -> Planted:
    key = _pick(r, ALNUM, 40)
    snippet = f"const apiKey = '{key[:20]}' +\n  '{key[20:]}';"
    return Planted("js-split-key", snippet, (key[:20], key[20:]), (key,))


KINDS_RED: list[Kind] = [
    _bare("groq-key", "gsk_", ALNUM, 52),
    _bare("replicate-token", "r8_", ALNUM, 37),
    _bare("linear-key", "lin_api_", ALNUM, 40),
    _tok(
        "notion-token",
        "notion said {tok} is invalid",
        lambda r: "ntn_" + _pick(r, string.digits, 11) + _pick(r, ALNUM, 35),
        "ntn_",
    ),
    _tok(
        "doppler-service-token",
        "DOPPLER said {tok} expired",
        lambda r: "dp.st.prd." + _pick(r, ALNUM, 40),
        "dp.st.prd.",
    ),
    _bare("planetscale-token", "pscale_tkn_", URLSAFE, 43),
    _bare("planetscale-password", "pscale_pw_", URLSAFE, 43),
    _bare("databricks-token", "dapi", HEX, 32),
    _bare("supabase-token", "sbp_", HEX, 40),
    _bare("supabase-secret", "sb_secret_", URLSAFE, 31),
    _bare("shopify-token", "shpat_", HEX, 32),
    _tok(
        "atlassian-token",
        "jira rejected {tok}",
        lambda r: "ATATT3xFfGF0" + _pick(r, URLSAFE, 170) + "=" + _pick(r, HEX, 8).upper(),
        "ATATT3xFfGF0",
    ),
    _bare("anthropic-admin-key", "sk-ant-admin01-", URLSAFE, 93, "admin: {tok}"),
    _bare("openai-svcacct-key", "sk-svcacct-", URLSAFE, 74),
    _bare("gitlab-runner-token", "glrt-", URLSAFE, 20),
    _bare("gitlab-deploy-token", "gldt-", URLSAFE, 20),
    _bare("sentry-user-token", "sntryu_", HEX, 64),
    _bare("heroku-token", "HRKU-AA", URLSAFE, 58),
    _bare("fly-token", "fo1_", URLSAFE, 43),
    _bare("figma-token", "figd_", URLSAFE, 40),
    _bare("buildkite-token", "bkua_", HEX, 40),
    _bare("bedrock-key", "ABSKQmVkcm9ja0FQSUtleS", B64, 110),
    _tok(
        "resend-key",
        "resend answered 403 for {tok}",
        lambda r: "re_" + _pick(r, ALNUM, 8) + "_" + _pick(r, ALNUM, 24),
        "re_",
    ),
    _bare("netlify-token", "nfp_", ALNUM, 36),
    _bare("dockerhub-pat", "dckr_pat_", URLSAFE, 27),
    _tok(
        "langsmith-key",
        "tracing with {tok}",
        lambda r: f"lsv2_pt_{_pick(r, HEX, 32)}_{_pick(r, HEX, 10)}",
        "lsv2_pt_",
    ),
    _tok("langfuse-key", "langfuse {tok}", lambda r: "sk-lf-" + _uuid(r), "sk-lf-"),
    _bare("tavily-key", "tvly-dev-", ALNUM, 32),
    _bare("firecrawl-key", "fc-", HEX, 32),
    _bare("cerebras-key", "csk-", LOWER_DIGITS, 48),
    _bare("pinecone-key", "pcsk_", ALNUM, 70),
    _pem_json,
    _pem_crlf,
    _ppk,
    _kubeconfig_key,
    _k8s_secret,
    _userinfo_token,
    _sentry_dsn,
    _shadow,
    _tok(
        "npmrc-uuid",
        "//npm.internal/:_authToken={tok}",
        _uuid,
    ),
    _tok(
        "aws-configure-set",
        "aws configure set aws_secret_access_key {tok} --profile prod",
        lambda r: _pick(r, B64, 40),
    ),
    _tok("curl-header-key", "curl -H 'DD-API-KEY: {tok}' https://api.dd.internal", _hex(32)),
    _tok("private-token-header", 'curl --header "PRIVATE-TOKEN: {tok}" gl.internal', _alnum(20)),
    _pw("env-prefix", "PGPASSWORD={pw} psql -h db.internal -U app -c 'select 1'"),
    _pw("wget-password", "wget --user=ci --password={pw} https://files.internal/a.tgz"),
    _pw("requirepass", "requirepass {pw}"),
    _pw("ssh-keygen-N", "ssh-keygen -t ed25519 -N '{pw}' -f deploy_key"),
    _pw("snmp-community", "snmpwalk -v2c -c {pw} 10.0.0.1 system"),
    _pw("helm-set", "helm upgrade app ./chart --set auth.rootPassword={pw}"),
    _pw("python-connect", 'conn = psycopg2.connect(host="db", user="app", password="{pw}")'),
    _pw("libpq-keywords", 'psql "host=db.internal user=app password={pw} dbname=app"'),
    _pw("powershell-env", '$env:DB_PASSWORD = "{pw}"'),
    _pw("jdbc-password", "jdbc:sqlserver://db.internal:1433;user=sa;password={pw};encrypt=true"),
    _spaced_password,
    _unicode_password,
    _punct_password,
    _block_scalar,
    _set_cookie,
    _teams_webhook,
    _gcs_signed,
    _telegram_url,
    _totp,
    _psk,
    _go_struct,
    _java_const,
    _js_concat,
]


# -- new places and encodings -----------------------------------------------------------

_ANSI = ("\x1b[31m", "\x1b[1;32m", "\x1b[0m", "\x1b[38;5;208m")


def ansi_split(text: str) -> str:
    """``text`` with a colour code after every 3 characters, as a coloured terminal shows."""
    return "".join(text[i : i + 3] + _ANSI[i // 3 % len(_ANSI)] for i in range(0, len(text), 3))


def zero_width_split(text: str) -> str:
    return "\u200b".join(text[i : i + 4] for i in range(0, len(text), 4))


def full_width(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def html_entities(text: str) -> str:
    return "".join(f"&#{ord(c)};" if c.isalnum() else c for c in text)


def unicode_escapes(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in text)


def hex_escapes(text: str) -> str:
    return "".join(f"\\x{b:02x}" for b in text.encode())


#: how each new place writes a snippet: (entry type, field, how the text is shown)
ENCODINGS: dict[str, Callable[[str], str]] = {
    "ansi-split": ansi_split,
    "zero-width-split": zero_width_split,
    "full-width": full_width,
    "html-entities": html_entities,
    "unicode-escapes": unicode_escapes,
    "hex-escapes": hex_escapes,
}


# -- look-alikes ------------------------------------------------------------------------

#: config, code and commands that name a secret's word, or look random, and hold no secret
LOOKALIKES_MORE: list[str] = [
    "password=*** user=app host=db.internal",
    'token: "********"',
    'api_key: "[REDACTED]"',
    "const apiKey = process.env.API_KEY;",
    "password = getpass.getpass()",
    'secret = os.environ["APP_SECRET"]',
    "api_key = settings.OPENAI_API_KEY",
    "Authorization: Bearer ${{ secrets.GITHUB_TOKEN }}",
    "env:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}",
    "--password-file /run/secrets/db_password",
    "PGPASSFILE=~/.pgpass",
    "export GIT_ASKPASS=/usr/lib/git-core/git-gui--askpass",
    'ssh-keygen -t ed25519 -C "deploy@ci" -f ~/.ssh/id_ed25519',
    "kubectl get secret db-credentials -o yaml",
    "aws secretsmanager get-secret-value --secret-id prod/db",
    "vault kv get -field=password secret/app",
    "gh secret set NPM_TOKEN < token.txt",
    "Set-Cookie: theme=dark; Path=/; SameSite=Lax",
    "Cookie: lang=en-US; tz=Europe%2FBerlin",
    "git remote add origin https://github.com/org/repo.git",
    "origin  git@github.com:org/repo.git (fetch)",
    "postgres://app@db.internal:5432/app",
    "redis://cache:6379/0",
    "key_path: ~/.ssh/id_rsa.pub",
    "ids = tokenizer.encode(text)",
    'if not token:\n    raise AuthError("missing token")',
    "auth_required = True",
    'PASSWORD_HASHERS = ["django.contrib.auth.hashers.Argon2PasswordHasher"]',
    "SESSION_COOKIE_SECURE = True",
    "gpg --list-secret-keys --keyid-format=long",
    "openssl genrsa -out private.pem 2048",
    "ssh -i ~/.ssh/deploy_key deploy@10.0.0.5",
    "imagePullSecrets:\n  - name: regcred",
    "token_endpoint_auth_method: client_secret_post",
    "grant_type=client_credentials&scope=read",
    'WWW-Authenticate: Bearer realm="api", error="invalid_token"',
    "PasswordAuthentication no",
    "AuthorizedKeysFile .ssh/authorized_keys",
    "passwd:         files systemd",
    "fingerprint: SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGq9nHqHxQk0k2b0fZ7Yw3cJm1sT8pXlR4vEo6aUi5Dn deploy@ci",
    '"integrity": "sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17Lhb'
    'ZVGedAJv8XZ1tvj5FvSg=="',
    "The API key is sent in the X-Api-Key header; rotate it every 90 days.",
    "keyId: signing-2026-01",
    "password_reset_url: https://app.example.org/reset",
    "secretName: tls-app",
    "tokenUrl: https://auth.example.org/token",
    "auth: { strategy: 'jwt', expiresIn: '1h' }",
    "credential_process = /usr/local/bin/aws-vault exec prod --json",
    "--token-file /var/run/secrets/kubernetes.io/serviceaccount/token",
]
