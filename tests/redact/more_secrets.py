"""More kinds of secret, and config and command look-alikes, for the secret corpus.

Why a second list: an attack on the first corpus found 29 kinds of secret that leaked from
every plain-text place: passwords given to common tools on their command line, keys
whose names no list held, credential files, connection strings, bare provider tokens,
private keys without a ``-----BEGIN`` line, passwords that start with ``$``. Each kind
here is one of those shapes, with a secret of its own drawn from the seeded generator
(``secret_corpus`` plants it in every place). ``LOOKALIKES`` are lines of config and
commands that name a secret's word and hold none: redaction must leave them.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable

from secret_kinds import (
    ALNUM,
    B64,
    HEX,
    URLSAFE,
    Planted,
    _password,
    _pick,
    _word,
)

Kind = Callable[[random.Random], Planted]


def _pw(kind: str, template: str) -> Kind:
    """A human password given as ``template`` shows (``{pw}`` stands for it)."""

    def make(r: random.Random) -> Planted:
        password = _password(r)
        return Planted(kind, template.format(pw=password), (password,), (password,))

    make.__name__ = kind
    return make


def _tok(
    kind: str, template: str, make_token: Callable[[random.Random], str], prefix: str = ""
) -> Kind:
    """A machine-made token given as ``template`` shows (``{tok}`` stands for it)."""

    def make(r: random.Random) -> Planted:
        token = make_token(r)
        return Planted(kind, template.format(tok=token), (token,), (token[len(prefix) :],))

    make.__name__ = kind
    return make


def _alnum(n: int) -> Callable[[random.Random], str]:
    return lambda r: _pick(r, ALNUM, n)


def _hex(n: int) -> Callable[[random.Random], str]:
    return lambda r: _pick(r, HEX, n)


def _uuid(r: random.Random) -> str:
    h = _pick(r, HEX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _dollar_password(r: random.Random) -> Planted:
    password = "$" + _word(r, 2).title() + _pick(r, string.digits, 3) + "!" + _word(r, 2)
    snippet = f'db:\n  user: app\n  password: "{password}"'
    return Planted("dollar-password", snippet, (password,), (password[1:],))


def _dollar_env(r: random.Random) -> Planted:
    password = "$" + _word(r, 3) + _pick(r, string.digits, 2) + "#" + _word(r, 1).upper()
    return Planted(
        "dollar-env-password", f"ADMIN_PASSWORD='{password}'", (password,), (password[1:],)
    )


def _netrc(r: random.Random) -> Planted:
    password = _password(r)
    snippet = f"$ cat ~/.netrc\nmachine api.heroku.com\n  login deploy\n  password {password}"
    return Planted("netrc", snippet, (password,), (password,))


def _netrc_one_line(r: random.Random) -> Planted:
    token = _pick(r, ALNUM, 32)
    snippet = f"machine git.internal login ci password {token}"
    return Planted("netrc-line", snippet, (token,), (token,))


def _pgpass(r: random.Random) -> Planted:
    password = _password(r)
    snippet = f"$ cat ~/.pgpass\ndb.internal:5432:app_production:app:{password}"
    return Planted("pgpass", snippet, (password,), (password,))


def _jwk_private(r: random.Random) -> Planted:
    members = {m: _pick(r, URLSAFE, 86) for m in ("d", "p", "q", "dp", "dq", "qi")}
    jwk = {"kty": "RSA", "kid": "signing-1", "e": "AQAB", "n": _pick(r, URLSAFE, 40), **members}
    values = tuple(members.values())
    return Planted("jwk-private", json.dumps(jwk), values, values)


def _jwk_oct(r: random.Random) -> Planted:
    k = _pick(r, URLSAFE, 43)
    snippet = json.dumps({"keys": [{"kty": "oct", "alg": "HS256", "k": k}]})
    return Planted("jwk-symmetric", snippet, (k,), (k,))


def _der_base64(r: random.Random) -> Planted:
    body = "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQ" + _pick(r, B64, 150)
    snippet = f"tls.key holds {body}"
    return Planted("der-private-key", snippet, (body,), (body[50:],))


def _svg_token(r: random.Random) -> Planted:
    token = "ghp_" + _pick(r, ALNUM, 36)
    return Planted("svg-text-token", f"<text x='4' y='12'>{token}</text>", (token,), (token[4:],))


def _ops(r: random.Random) -> Planted:
    claims = {"signInAddress": "my.1password.com", "userAuth": {"method": "SRPg-4096"}}
    token = "ops_" + base64.b64encode(json.dumps(claims).encode()).decode() + _pick(r, ALNUM, 60)
    return Planted(
        "1password-service-token", f"OP_SERVICE_ACCOUNT={token}", (token,), (token[-60:],)
    )


def _mailgun(r: random.Random) -> Planted:
    key = "key-" + _pick(r, HEX, 32)
    return Planted("mailgun-key", f"mailgun rejected {key} (401)", (key,), (key[4:],))


def _vault_legacy(r: random.Random) -> Planted:
    token = "s." + _pick(r, ALNUM, 24)
    return Planted("vault-legacy-token", f"vault login {token}", (token,), (token[2:],))


def _odbc(r: random.Random) -> Planted:
    password = _password(r) + "};x"
    snippet = f"Driver={{ODBC Driver 18 for SQL Server}};Server=db;Uid=sa;Pwd={{{password}}};"
    return Planted("odbc-pwd", snippet, (password[:-3],), (password[:-3],))


def _smb(r: random.Random) -> Planted:
    password = _password(r)
    return Planted(
        "smbclient", f"smbclient //nas/share -U backup%{password} -c ls", (password,), (password,)
    )


def _htpasswd(r: random.Random) -> Planted:
    password = _password(r)
    snippet = f"htpasswd -b -c /etc/nginx/.htpasswd admin {password}"
    return Planted("htpasswd-b", snippet, (password,), (password,))


def _ssh_key_env(r: random.Random) -> Planted:
    blob = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ" + _pick(r, B64, 100)
    return Planted("ssh-key-env", f"SSH_KEY={blob}", (blob,), (blob[44:],))


def _laravel(r: random.Random) -> Planted:
    key = "base64:" + base64.b64encode(r.randbytes(32)).decode()
    return Planted("app-key", f"LARAVEL_APP_KEY={key}", (key[7:],), (key[7:],))


def _bare_json_key(r: random.Random) -> Planted:
    key = _pick(r, ALNUM, 40)
    snippet = json.dumps({"provider": "cohere", "key": key})
    return Planted("bare-json-key", snippet, (key,), (key,))


def _docker_auth(r: random.Random) -> Planted:
    password = _password(r)
    blob = base64.b64encode(f"ci:{password}".encode()).decode()
    snippet = json.dumps({"auths": {"registry.internal": {"auth": blob}}})
    # the blob's pieces are base64 of made-up words, as likely in any base64: its
    # password's pieces are looked for in the decoded text instead
    return Planted("docker-config-auth", snippet, (blob, password), (password,))


def _xml_password(r: random.Random) -> Planted:
    password = _password(r)
    snippet = f"<datasource>\n  <user>app</user>\n  <password>{password}</password>\n</datasource>"
    return Planted("xml-password", snippet, (password,), (password,))


def _appsettings(r: random.Random) -> Planted:
    key = _pick(r, ALNUM, 32)
    return Planted("xml-named-key", f'<add key="ApiKey" value="{key}" />', (key,), (key,))


def _php_define(r: random.Random) -> Planted:
    password = _password(r)
    return Planted(
        "php-define", f"define( 'DB_PASSWORD', '{password}' );", (password,), (password,)
    )


def _sql_identified(r: random.Random) -> Planted:
    password = _password(r)
    snippet = f"CREATE USER 'app'@'%' IDENTIFIED BY '{password}';"
    return Planted("sql-identified-by", snippet, (password,), (password,))


def _sql_with_password(r: random.Random) -> Planted:
    password = _password(r)
    snippet = f"ALTER ROLE app WITH LOGIN PASSWORD '{password}';"
    return Planted("sql-with-password", snippet, (password,), (password,))


def _secure_string(r: random.Random) -> Planted:
    password = _password(r)
    snippet = f'$pw = ConvertTo-SecureString "{password}" -AsPlainText -Force'
    return Planted("powershell-securestring", snippet, (password,), (password,))


def _echo_stdin(r: random.Random) -> Planted:
    password = _password(r)
    snippet = f"echo '{password}' | docker login -u ci --password-stdin registry.internal"
    return Planted("echo-password-stdin", snippet, (password,), (password,))


def _openssl_pass(r: random.Random) -> Planted:
    password = _password(r)
    snippet = (
        f"openssl pkcs12 -export -in app.crt -inkey app.key -passout pass:{password} -out app.p12"
    )
    return Planted("openssl-pass-arg", snippet, (password,), (password,))


def _auth_scheme(r: random.Random) -> Planted:
    token = "00" + _pick(r, URLSAFE, 40)
    snippet = f"curl -H 'Authorization: SSWS {token}' https://corp.okta.com/api/v1/users"
    return Planted("authorization-ssws", snippet, (token,), (token[2:],))


def _nmcli(r: random.Random) -> Planted:
    password = _password(r)
    return Planted(
        "wifi-password",
        f"nmcli dev wifi connect Office password {password}",
        (password,),
        (password,),
    )


def _seven_zip(r: random.Random) -> Planted:
    password = _password(r)
    return Planted("7z-p", f"7z x backup.7z -p{password} -o/tmp/restore", (password,), (password,))


KINDS_MORE: list[Kind] = [
    _pw("docker-login-p", "docker login -u ci -p {pw} registry.internal:5000"),
    _pw("keytool-storepass", "keytool -importcert -keystore app.jks -storepass {pw} -file ca.pem"),
    _pw("sqlcmd-P", "sqlcmd -S db.internal -U sa -P {pw} -Q 'select 1'"),
    _pw("mongosh-p", "mongosh mongodb://db.internal:27017/app -u admin -p {pw}"),
    _pw("ldapsearch-w", "ldapsearch -x -H ldap://ldap -D cn=admin,dc=corp -w {pw} -b dc=corp"),
    _smb,
    _htpasswd,
    _pw("openssl-k", "openssl enc -aes-256-cbc -salt -in db.sql -out db.enc -k {pw}"),
    _pw("zip-P", "zip -P {pw} -r backup.zip data/"),
    _seven_zip,
    _openssl_pass,
    _echo_stdin,
    _pw("az-login-p", "az login --service-principal -u 5f1c-app -p {pw} --tenant corp"),
    _pw("rabbitmqctl", "rabbitmqctl add_user app {pw}"),
    _pw("net-user", "net user svc_backup {pw} /add"),
    _nmcli,
    _laravel,
    _tok("admin-key", "MEILI_ADMIN_KEY={tok}", _alnum(40)),
    _tok(
        "fernet-key",
        "FERNET_KEY: {tok}",
        lambda r: base64.urlsafe_b64encode(r.randbytes(32)).decode(),
    ),
    _ssh_key_env,
    _bare_json_key,
    _tok(
        "azure-devops-pat",
        "AZURE_DEVOPS_PAT={tok}",
        lambda r: _pick(r, "abcdefghijklmnopqrstuvwxyz234567", 52),
    ),
    _tok("vault-secret-id", "VAULT_SECRET_ID={tok}", _uuid),
    _tok("datadog-app-key", "DD_APP_KEY={tok}", _hex(40)),
    _netrc,
    _netrc_one_line,
    _pgpass,
    _pw("oracle-connect", "sqlplus scott/{pw}@//db.internal:1521/ORCLPDB1"),
    _odbc,
    _pw("mssql-connection", "Server=tcp:db.internal,1433;Database=app;User ID=sa;Password={pw};"),
    _tok(
        "vault-token",
        "VAULT_TOKEN was {tok}",
        lambda r: "hvs.CAESI" + _pick(r, URLSAFE, 80),
        "hvs.CAESI",
    ),
    _vault_legacy,
    _ops,
    _tok(
        "tailscale-key",
        "tailscale up --authkey {tok}",
        lambda r: f"tskey-auth-k{_pick(r, ALNUM, 10)}CNTRL-{_pick(r, ALNUM, 33)}",
        "tskey-auth-",
    ),
    _tok(
        "huggingface-org-token",
        "hub said api_org_ token {tok} is revoked",
        lambda r: "api_org_" + _pick(r, ALNUM, 34),
        "api_org_",
    ),
    _mailgun,
    _jwk_private,
    _jwk_oct,
    _der_base64,
    _dollar_password,
    _dollar_env,
    _svg_token,
    _docker_auth,
    _xml_password,
    _appsettings,
    _php_define,
    _sql_identified,
    _sql_with_password,
    _secure_string,
    _auth_scheme,
    _tok(
        "aws-session-token",
        "aws_session_token = {tok}",
        lambda r: "FwoGZXIvYXdzE" + _pick(r, B64, 200),
        "FwoGZXIvYXdzE",
    ),
    _tok(
        "azure-client-secret",
        "AZURE_CLIENT_SECRET={tok}",
        lambda r: _pick(r, ALNUM, 3) + "8Q~" + _pick(r, URLSAFE, 34),
    ),
    _tok(
        "terraform-token",
        'credentials "app.terraform.io" {{ token = "{tok}" }}',
        lambda r: _pick(r, ALNUM, 14) + ".atlasv1." + _pick(r, ALNUM, 67),
    ),
    _tok(
        "wireguard-key",
        "[Interface]\nPrivateKey = {tok}\nAddress = 10.0.0.2/32",
        lambda r: base64.b64encode(r.randbytes(32)).decode(),
    ),
    _tok("x-auth-token", "X-Auth-Token: {tok}", _hex(40)),
    _tok("kube-token", "users:\n- name: ci\n  user:\n    token: {tok}", _alnum(48)),
    _tok("smtp-pass", "smtp_pass = {tok}", _alnum(20)),
    _tok(
        "firebase-server-key",
        "FCM key {tok}",
        lambda r: "AAAA" + _pick(r, URLSAFE, 7) + ":APA91b" + _pick(r, URLSAFE, 134),
        "AAAA",
    ),
    _tok("dropbox-token", "dropbox token sl.{tok}", lambda r: "B" + _pick(r, URLSAFE, 130)),
]

#: lines of config and commands that name a secret's word and hold no secret
LOOKALIKES: list[str] = [
    "PASSWORD_MIN_LENGTH=12",
    "secretRef: app-env",
    "pwd: /srv/app/releases/2025-03-14",
    "envFrom:\n  - secretRef:\n      name: api-secrets",
    "valueFrom:\n  secretKeyRef:\n    name: db-credentials\n    key: password",
    "TOKEN_EXPIRY_SECONDS=3600",
    "auth_method: oauth2",
    "- key: app.kubernetes.io/name\n  operator: In",
    "primary_key: id",
    "FOREIGN KEY (user_id) REFERENCES users(id)",
    "sort_key: created_at",
    "keymap: vim",
    "hotkeys: ctrl+shift+p",
    "keyspace: analytics_events",
    "passwordless: true",
    "AUTH_TYPE=ldap",
    "TOKEN_URL=https://auth.internal.dev/oauth/token",
    "api_key_header: X-API-Key",
    "docker login -u ci --password-stdin registry.internal:5000",
    "keytool -list -v -keystore app.jks",
    "sqlcmd -S db.internal -U sa -Q 'select @@version'",
    "mongosh mongodb://db.internal:27017/app -u admin -p",
    "ldapsearch -x -H ldap://ldap -b dc=corp '(uid=deploy)'",
    "smbclient //nas/share -U backup",
    "htpasswd -c /etc/nginx/.htpasswd admin",
    "openssl rand -hex 32 > secret.txt",
    "zip -r site.zip public/",
    "PASS_MAX_DAYS   99999",
    "key_size = 4096",
    "tokenizer: cl100k_base",
    "password_reset_timeout: 86400",
    "passwd -l deploy",
    "auth_token_ttl: 15m",
    "ssl_certificate_key /etc/nginx/ssl/app.key;",
    "--key-file /etc/ssl/private/app.key",
    'pattern: "^release-[0-9]+$"',
    "patch_version: 3",
    "passthrough: true",
    "bypass_cache=1",
    "author: Jane Doe",
    "credentials: 'include'",
    "tokens_per_second: 41.2",
    "secret_name: prod/db/app",
    "SECRETS_DIR=/run/secrets",
    '{"key": "ArrowDown", "code": "ArrowDown", "repeat": false}',
    "cache key = user:42:profile",
    "sqlplus / as sysdba",
    "Server=db.internal;Database=app;Integrated Security=true;",
    "PAT tokens expire after 90 days; create one under Settings.",
    "Vault tokens start with hvs. and AppRole secret ids are UUIDs.",
    "machine api.heroku.com login deploy",
    "localhost:5432:*:postgres:*",
    "oauth_provider: github",
    "authority: https://login.microsoftonline.com/common",
]
