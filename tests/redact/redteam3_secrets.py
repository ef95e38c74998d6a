"""A fourth list of secret kinds, new places and more look-alikes, written as an attacker.

Why a fourth list: the rules were fixed against the third. These were written before
reading the rules again: letters swapped for another script's look-alikes (Cyrillic,
Greek), secrets split over string literals the way languages join them (Python's implicit
concatenation, f-strings, ``"".join``, template literals, shell's ``"ab""cd"``, C's
``"ab" "cd"``), the files a session lists (``~/.docker/config.json``, ``~/.aws/credentials``
with profiles, ``.env`` with ``export`` and comments, ``.pypirc``, Maven ``settings.xml``,
``gradle.properties``, ``wp-config.php``, Django and Rails keys, Terraform state, Ansible
inventories), CI logs, command lines and signed URLs. ``PLACES_RED3`` shows every kind in
new forms: bidi controls or soft hyphens inside a token, a shell line continuation,
double percent-encoding, base64 of base64, homoglyphs, an image block's name, nested
arrays of a custom entry, a compaction's file lists. ``LOOKALIKES_RED3`` are digests, ids,
references and example keys that must stay.
"""

# ruff: noqa: E501, RUF001  (homoglyphs, look-alikes and snippets are written as tools print them)
from __future__ import annotations

import base64
import json
import random
import string
import urllib.parse
from collections.abc import Callable
from typing import Any

from more_secrets import Kind, _pw, _tok, _uuid
from secret_kinds import ALNUM, B64, HEX, URLSAFE, Planted, _password, _pick

#: Latin letters and the Cyrillic or Greek letters drawn the same (Unicode's confusables)
HOMOGLYPHS = {
    "a": "а", "c": "с", "e": "е", "o": "о", "p": "р", "x": "х", "y": "у", "i": "і",
    "A": "Α", "B": "В", "C": "С", "E": "Ε", "H": "Н", "I": "Ι", "K": "Κ", "M": "М",
    "N": "Ν", "O": "О", "P": "Р", "T": "Т", "X": "Х", "Y": "Υ", "Z": "Ζ", "S": "Ѕ",
    "j": "ј", "s": "ѕ", "J": "Ј",
}  # fmt: skip


def homoglyphs(text: str) -> str:
    """``text`` with every letter that has a look-alike in another script swapped for it."""
    return "".join(HOMOGLYPHS.get(c, c) for c in text)


def _split(kind: str, template: str, n: int = 40, chars: str = ALNUM) -> Kind:
    """A random key split into halves ``{a}`` and ``{b}`` by ``template``."""

    def make(r: random.Random) -> Planted:
        key = _pick(r, chars, n)
        a, b = key[: n // 2], key[n // 2 :]
        return Planted(kind, template.format(a=a, b=b), (a, b), (a, b))

    make.__name__ = kind
    return make


def _homoglyph_token(r: random.Random) -> Planted:
    token = homoglyphs("ghp_" + _pick(r, ALNUM, 36))
    return Planted("homoglyph-github-token", f"pushed with {token} ok", (token,), (token[4:],))


def _homoglyph_key_name(r: random.Random) -> Planted:
    password = _password(r)
    snippet = homoglyphs("DB_PASSWORD") + "=" + password
    return Planted("homoglyph-key-name", snippet, (password,), (password,))


def _greek_aws(r: random.Random) -> Planted:
    key = homoglyphs("AKIA") + _pick(r, string.ascii_uppercase + string.digits, 16)
    return Planted("greek-aws-key", f"key id {key} in use", (key,), (key[4:],))


def _homoglyph_password(r: random.Random) -> Planted:
    password = homoglyphs(_password(r))
    return Planted("homoglyph-password", f"password: {password}", (password,), (password,))


def _docker_identity(r: random.Random) -> Planted:
    token = _pick(r, URLSAFE, 64)
    body = {"auths": {"https://index.docker.io/v1/": {"identitytoken": token}}, "credsStore": ""}
    snippet = "$ cat ~/.docker/config.json\n" + json.dumps(body, indent=2)
    return Planted("docker-identitytoken", snippet, (token,), (token,))


def _aws_profiles(r: random.Random) -> Planted:
    secret = _pick(r, B64, 40)
    snippet = (
        "$ cat ~/.aws/credentials\n[default]\nregion=eu-west-1\n\n[profile prod]\n"
        f"aws_secret_access_key={secret}\nrole_arn = arn:aws:iam::123456789012:role/ci"
    )
    return Planted("aws-credentials-profile", snippet, (secret,), (secret,))


def _dotenv_export(r: random.Random) -> Planted:
    password, token = _password(r), _pick(r, ALNUM, 32)
    snippet = (
        "# production\nexport DB_PASS='" + password + "'  # rotated monthly\n"
        f'export SENDGRID="{token}" # mail'
    )
    return Planted("dotenv-export-comment", snippet, (password, token), (password, token))


def _pypirc(r: random.Random) -> Planted:
    password = _password(r)
    snippet = (
        "[distutils]\nindex-servers = internal\n\n[internal]\n"
        f"repository = https://pkgs.internal/simple\nusername = deploy\npassword = {password}"
    )
    return Planted("pypirc-password", snippet, (password,), (password,))


def _maven_encrypted(r: random.Random) -> Planted:
    body = _pick(r, B64, 43) + "="
    snippet = (
        "<servers>\n  <server>\n    <id>nexus</id>\n    <username>ci</username>\n"
        f"    <password>{{{body}}}</password>\n  </server>\n</servers>"
    )
    return Planted("maven-encrypted-password", snippet, (body,), (body[:-1],))


def _wp_salt(r: random.Random) -> Planted:
    salt = _pick(r, ALNUM + "|,;:!@#%^&*()-_+=[]<>~", 64)
    snippet = f"define( 'LOGGED_IN_SALT',   '{salt}' );"
    return Planted("wordpress-salt", snippet, (salt,), (salt,))


def _django_key(r: random.Random) -> Planted:
    key = "django-insecure-" + _pick(
        r, string.ascii_lowercase + string.digits + "!@#$%^&*(-_=+)", 50
    )
    snippet = (
        f"# SECURITY WARNING: keep the secret key used in production secret!\nSECRET_KEY = '{key}'"
    )
    return Planted("django-secret-key", snippet, (key,), (key[16:],))


def _rails_master(r: random.Random) -> Planted:
    key = _pick(r, HEX, 32)
    return Planted("rails-master-key", f"$ cat config/master.key\n{key}", (key,), (key,))


def _rails_base(r: random.Random) -> Planted:
    key = _pick(r, HEX, 128)
    snippet = f"$ bin/rails credentials:show\naws:\n  region: eu-west-1\nsecret_key_base: {key}"
    return Planted("rails-secret-key-base", snippet, (key,), (key,))


def _tfstate(r: random.Random) -> Planted:
    value = _pick(r, ALNUM, 24)
    state = {"outputs": {"db_conn": {"value": value, "type": "string", "sensitive": True}}}
    return Planted("terraform-state-sensitive", json.dumps(state), (value,), (value,))


def _tfvars(r: random.Random) -> Planted:
    password = _password(r)
    snippet = f'region        = "eu-west-1"\nrds_master_pw = "{password}"\ninstance_class = "db.t3"'
    return Planted("tfvars-password", snippet, (password,), (password,))


def _ansible_inventory(r: random.Random) -> Planted:
    password = _password(r)
    snippet = (
        f"[web]\nweb1 ansible_host=10.0.0.5 ansible_user=deploy ansible_become_pass={password}"
    )
    return Planted("ansible-become-pass", snippet, (password,), (password,))


def _actions_mask(r: random.Random) -> Planted:
    token = _pick(r, ALNUM, 36)
    snippet = (
        '2026-01-05T10:00:01.1234567Z ##[group]Run echo "::add-mask::'
        + token
        + '"\n2026-01-05T10:00:01.2Z ##[endgroup]'
    )
    return Planted("actions-add-mask", snippet, (token,), (token,))


def _git_extraheader(r: random.Random) -> Planted:
    token = _pick(r, ALNUM, 40)
    snippet = (
        f'git -c http.extraHeader="AUTHORIZATION: bearer {token}" clone https://git.internal/app'
    )
    return Planted("git-extraheader", snippet, (token,), (token,))


def _discord_webhook(r: random.Random) -> Planted:
    tail = _pick(r, URLSAFE, 68)
    url = f"https://discord.com/api/webhooks/{_pick(r, string.digits, 18)}/{tail}"
    return Planted("discord-webhook", f"notify via {url}", (tail,), (tail,))


def _azure_sas(r: random.Random) -> Planted:
    sig = _pick(r, B64, 43) + "="
    url = (
        "https://acct.blob.core.windows.net/backups/db.zip?sv=2022-11-02&ss=b&srt=o&sp=r"
        "&se=2026-02-01T00:00:00Z&spr=https&sig=" + urllib.parse.quote(sig, safe="")
    )
    return Planted("azure-sas-url", url, (urllib.parse.quote(sig, safe=""),), (sig[:40],))


def _aws_presigned(r: random.Random) -> Planted:
    sig = _pick(r, HEX, 64)
    url = (
        "https://bucket.s3.amazonaws.com/report.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256"
        f"&X-Amz-Date=20260105T100000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host"
        f"&X-Amz-Signature={sig}"
    )
    return Planted("aws-presigned-url", url, (sig,), (sig,))


def _refresh_token(r: random.Random) -> Planted:
    token = "1//0g" + _pick(r, URLSAFE, 98)
    return Planted("google-refresh-token", f"stored {token} on disk", (token,), (token[5:],))


def _proxy_basic(r: random.Random) -> Planted:
    blob = base64.b64encode(f"ci:{_password(r)}".encode()).decode()
    snippet = f"> Proxy-Authorization: Basic {blob}\n> User-Agent: curl/8.5.0"
    return Planted("proxy-basic-auth", snippet, (blob,), (blob[4:],))


def _curl_cookie(r: random.Random) -> Planted:
    value = _pick(r, ALNUM, 40)
    snippet = f"curl -b 'session={value}; theme=dark' https://app.internal/api/me"
    return Planted("curl-cookie-flag", snippet, (value,), (value,))


def _h2_log(r: random.Random) -> Planted:
    token = _pick(r, ALNUM, 40)
    snippet = (
        "[  0.012] send HEADERS frame <length=52, flags=0x25, stream_id=13>\n"
        f"          :method: GET\n          :path: /v1/me\n          x-session: {token}"
    )
    return Planted("http2-session-header", snippet, (token,), (token,))


def _git_credential(r: random.Random) -> Planted:
    token = _pick(r, ALNUM, 36)
    snippet = f"$ printf 'protocol=https\\nhost=git.internal\\n' | git credential fill\nprotocol=https\nhost=git.internal\nusername=ci\npassword={token}"
    return Planted("git-credential-fill", snippet, (token,), (token,))


def _json_escaped_key(r: random.Random) -> Planted:
    key = _pick(r, ALNUM, 32)
    snippet = '{"\\u0061pi_\\u006bey": "' + key + '"}'
    return Planted("json-escaped-key-name", snippet, (key,), (key,))


def _sops_plain(r: random.Random) -> Planted:
    password = _password(r)
    snippet = f"$ sops -d secrets.enc.yaml\ndb:\n    passphrase: {password}"
    return Planted("sops-decrypted", snippet, (password,), (password,))


def _mongodb_srv(r: random.Random) -> Planted:
    password = _password(r)
    url = f"mongodb+srv://app:{urllib.parse.quote(password + '@!')}@cluster0.ab1cd.mongodb.net/app"
    return Planted("mongodb-srv-encoded", url, (password,), (password,))


def _keychain_output(r: random.Random) -> Planted:
    password = _password(r)
    snippet = f"$ security find-generic-password -s deploy -w\n{password}"
    return Planted("keychain-print", snippet, (password,), (password,))


def _kv_colon(r: random.Random) -> Planted:
    token = _pick(r, ALNUM, 32)
    return Planted("header-private-key", f"x-internal-creds: {token}", (token,), (token,))


KINDS_RED3: list[Kind] = [
    _homoglyph_token,
    _homoglyph_key_name,
    _greek_aws,
    _homoglyph_password,
    _split("python-implicit-concat", 'API_KEY = (\n    "{a}"\n    "{b}"\n)'),
    _split("python-fstring-split", 'token = f"{{\'{a}\'}}" f"{b}"'),
    _split("python-join-list", 'SECRET = "".join(["{a}", "{b}"])'),
    _split("js-template-literal", "const key = `${{'{a}'}}{b}`;"),
    _split("shell-adjacent-quotes", 'export API_TOKEN="{a}""{b}"'),
    _split("c-adjacent-literals", 'static const char *api_key = "{a}" "{b}";'),
    _split("go-plus-concat", 'authToken := "{a}" +\n\t"{b}"'),
    _docker_identity,
    _aws_profiles,
    _dotenv_export,
    _pypirc,
    _maven_encrypted,
    _pw(
        "gradle-properties",
        "signing.keyId=24875D73\nmavenCentralPassword={pw}\norg.gradle.jvmargs=-Xmx2g",
    ),
    _wp_salt,
    _django_key,
    _rails_master,
    _rails_base,
    _tfstate,
    _tfvars,
    _ansible_inventory,
    _actions_mask,
    _git_extraheader,
    _pw("redis-cli-pass", "redis-cli -h cache --user app --pass {pw} ping"),
    _pw("mysql-p-quoted", "mysql -uroot -p'{pw}' -e 'show databases'"),
    _pw("psql-uri-query", 'psql "postgresql://app@db.internal/app?password={pw}&sslmode=require"'),
    _tok(
        "gcloud-access-token",
        "gcloud auth print-access-token\n{tok}",
        lambda r: "ya29.a0" + _pick(r, URLSAFE, 120),
        "ya29.a0",
    ),
    _refresh_token,
    _discord_webhook,
    _azure_sas,
    _aws_presigned,
    _proxy_basic,
    _curl_cookie,
    _h2_log,
    _git_credential,
    _json_escaped_key,
    _sops_plain,
    _mongodb_srv,
    _keychain_output,
    _kv_colon,
    _pw("az-login-password", "az login -u ops@corp.onmicrosoft.com --password {pw}"),
    _pw("ldap-bind-url", "ldapwhoami -H ldaps://ldap.internal -D uid=ci -y <(echo -n {pw})"),
    _tok("uuid-api-key-bare", "heroku config:set HEROKU_API={tok}", _uuid),
]


# -- new places ----------------------------------------------------------------------------

_BIDI = ("\u202e", "\u202c", "\u2066", "\u2069", "\u202d")


def bidi_split(text: str) -> str:
    """``text`` with a bidi control after every 4 characters of each token."""
    return "".join(text[i : i + 4] + _BIDI[i // 4 % len(_BIDI)] for i in range(0, len(text), 4))


def soft_hyphens(text: str) -> str:
    return "\u00ad".join(text[i : i + 5] for i in range(0, len(text), 5))


def shell_continued(text: str) -> str:
    """Each line of ``text`` broken in the middle by a shell line continuation."""
    return "\n".join(
        line[: len(line) // 2] + "\\\n" + line[len(line) // 2 :] for line in text.split("\n")
    )


def double_percent(text: str) -> str:
    return urllib.parse.quote(urllib.parse.quote(text, safe=""), safe="")


def base64_twice(text: str) -> str:
    once = base64.b64encode(text.encode()).decode()
    return base64.b64encode(once.encode()).decode()


#: each new place's encoding of a snippet in a tool result
ENCODINGS_RED3: dict[str, Callable[[str], str]] = {
    "bidi-split": bidi_split,
    "soft-hyphens": soft_hyphens,
    "double-percent": lambda t: "GET /cb?next=" + double_percent(t) + " 302",
    "base64-twice": lambda t: "blob: " + base64_twice(t),
    "homoglyphs": homoglyphs,
}


def _image_named(s: Any, t: str) -> int:
    block = {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo=", "name": t}
    return s.message("user", [{"type": "text", "text": "see image"}, block])  # type: ignore[no-any-return]


#: places of a session's structure: (session, snippet) -> line
STRUCTURE_RED3: dict[str, Callable[[Any, str], int]] = {
    "shell-continuation": lambda s, t: s.bash(shell_continued(t), "ok"),
    "image-name": _image_named,
    "custom-nested-arrays": lambda s, t: s.add(
        "custom", customType="ext-grid", data={"rows": [[1, ["a", [t]]], [[t]]]}
    ),
    "compaction-lists": lambda s, t: s.add(
        "compaction",
        summary="Compacted.",
        firstKeptEntryId=s.last,
        tokensBefore=1000,
        details={"readFiles": [t], "modifiedFiles": [[t]]},
    ),
}


# -- look-alikes ------------------------------------------------------------------------------

LOOKALIKES_RED3: list[str] = [
    "lodash@4.17.21: resolved https://registry.example/lodash/-/lodash-4.17.21.tgz#679591c564c3bffaae8454cf0b3df370c3d6911c",
    "integrity sha512-L6hU4OYXdN7SRJfq5F+E9n5PQIeOjCfDSUhgkQkaHz2yBtUz9Xgy6zQkg3VsaL4S0E2S0wHlWvOp7ZTJAWn8WQ==",
    '<script src="/app.js" integrity="sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC"></script>',
    "image: ghcr.io/org/api@sha256:4b3f1d8a0c6e2f9b7d5a3c1e8f0b2d4a6c8e0f1a3b5d7f9e1c3a5b7d9f1e3a5c",
    "commit 8c1a7f3e9b2d4f6a0c5e7b9d1f3a5c7e9b1d3f5a (HEAD -> main, origin/main)",
    "tenant_id: 7d9f1b3c-5e7a-4c9b-8d1f-3a5c7e9b1d3f",
    "password: ENC[AES256_GCM,data:Tr7o=,iv:1Hq9yB0x2fX8c4R8j1Q2PA==,tag:0bT2sFq9cJ8R2ZKQ3x1n1Q==,type:str]",
    "db_password: vault:secret/data/prod/db#password",
    "api_key: <REDACTED>",
    "token: xxxx-xxxx-xxxx-xxxx",
    "password: op://Engineering/Postgres/password",
    "client_secret: {{ .Values.oauth.clientSecret }}",
    "secret_key: \"{{ lookup('env', 'SECRET_KEY') }}\"",
    "DB_PASSWORD=${DB_PASSWORD:?must be set}",
    "token = ${var.github_token}",
    "password = data.aws_secretsmanager_secret_version.db.secret_string",
    "apiKey: !Ref ApiKeyParameter",
    "secretKeyRef:\n  name: app-secrets\n  key: stripe-key",
    "valueFrom: arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf",
    "auth_token: !vault |\n  $ANSIBLE_VAULT;1.1;AES256",
    "PASSWORD_RESET_TIMEOUT = 259200",
    "token_ttl: 24h",
    "key_size: 4096",
    "--key-file ~/.config/gcloud/application_default_credentials.json",
    "git rev-parse HEAD\n4f2a9c7e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a",
    "X-Request-Id: 5f3c9a1e-7b2d-4e6f-8a0c-2d4f6a8c0e1b",
    'etag: W/"1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d"',
    "pip download --require-hashes cryptography==42.0.5 --hash=sha256:6fe07eec95dfd477eb9530aef5bead34fec819b3aaf6c5bd6d20565da607bfe1",
    "Checksum: md5=9e107d9d372bb6826bd81d3542a419d6",
    "session_id=req_8f3a1c5e7b9d",
    "password=\u2022\u2022\u2022\u2022\u2022\u2022\u2022\u2022",
    "api_key: sk-...abcd (last 4 shown)",
    "SECRET_KEY = get_random_secret_key()",
    "password_hash = bcrypt.hashpw(password, bcrypt.gensalt())",
    "export VAULT_ADDR=https://vault.internal:8200",
    "keyring set deploy ci  # prompts for the password",
    "Authorization: Basic <base64 of user:password>",
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 deploy-key.pub",
    "x-amz-content-sha256: UNSIGNED-PAYLOAD",
    "Cookie: consent=yes; locale=de",
    "go.sum: golang.org/x/crypto v0.21.0 h1:X31++rzVUdKhX5sWmSOFZxx8UW/ldWx55cbf08iNAMA=",
    "yarn.lock checksum: 10c0/4c9d6f8e2b1a3c5e7f9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e",
]
