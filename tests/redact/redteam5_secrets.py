"""A fifth list of secret kinds, places and look-alikes, written as an attacker.

Why a fifth list: the rules were fixed against the fourth. These were written before
reading the rules again, from the files and commands people paste into a coding agent
that no list held: cloud CLIs' cached tokens (``gh``, ``gcloud``, Azure's MSAL cache,
AWS SSO, Pulumi, Wrangler, Vercel, Railway), package managers' auth files (``.npmrc``'s
``_auth``, ``.yarnrc.yml``, Composer, Cargo, RubyGems, NuGet), browser exports (a
``cookies.txt`` jar, a HAR file), Kubernetes and CI syntax, database dumps (password
hashes and API keys in rows), Windows commands, mobile signing configs, payment and
messaging providers' newer token formats, OAuth refresh tokens, session cookies, more
clouds' signed URLs, wallet keys, a secret that is a JSON object's key, a PIN typed as a
number. ``LOOKALIKES_RED5`` are config and command lines that must stay. The new places
and encodings are in ``redteam5_places``.
"""

# ruff: noqa: E501  (snippets are written as tools print them)
from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable

from more_secrets import Kind, _pw, _tok, _uuid
from secret_kinds import ALNUM, B64, HEX, URLSAFE, Planted, _password, _pick, _word

UPPER_HEX = "0123456789ABCDEF"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _two(
    kind: str, template: str, a: Callable[[random.Random], str], b: Callable[[random.Random], str]
) -> Kind:
    """Two secrets in one snippet (``{a}`` and ``{b}``)."""

    def make(r: random.Random) -> Planted:
        x, y = a(r), b(r)
        return Planted(kind, template.format(a=x, b=y), (x, y), (x, y))

    make.__name__ = kind
    return make


def _chars(chars: str, n: int, prefix: str = "") -> Callable[[random.Random], str]:
    return lambda r: prefix + _pick(r, chars, n)


def _gh_hosts(r: random.Random) -> Planted:
    token = "gho_" + _pick(r, ALNUM, 36)
    snippet = f"$ cat ~/.config/gh/hosts.yml\ngithub.com:\n    user: ci-bot\n    oauth_token: {token}\n    git_protocol: https"
    return Planted("gh-hosts-oauth", snippet, (token,), (token[4:],))


def _gcloud_adc(r: random.Random) -> Planted:
    secret = "GOCSPX-" + _pick(r, URLSAFE, 28)
    refresh = "1//03" + _pick(r, URLSAFE, 100)
    body = {
        "client_id": "764086051850-6qr4p6gpi6hn506pt8ejuq83di341hur.apps.googleusercontent.com",
        "client_secret": secret,
        "quota_project_id": "prod-app",
        "refresh_token": refresh,
        "type": "authorized_user",
    }
    snippet = "$ cat ~/.config/gcloud/application_default_credentials.json\n" + json.dumps(
        body, indent=2
    )
    return Planted("gcloud-adc", snippet, (secret, refresh), (secret[7:], refresh[5:]))


def _msal_cache(r: random.Random) -> Planted:
    secret = _pick(r, URLSAFE, 120)
    entry = {
        "credential_type": "AccessToken",
        "secret": secret,
        "home_account_id": "uid.utid",
        "target": "https://management.core.windows.net//.default",
    }
    snippet = json.dumps({"AccessToken": {"uid.utid-login.microsoftonline.com-accesstoken": entry}})
    return Planted("azure-msal-cache", snippet, (secret,), (secret,))


def _aws_sso(r: random.Random) -> Planted:
    token = "aoa" + _pick(r, URLSAFE, 140)
    body = {
        "startUrl": "https://corp.awsapps.com/start",
        "region": "eu-west-1",
        "accessToken": token,
        "expiresAt": "2026-01-05T18:00:00Z",
    }
    return Planted(
        "aws-sso-cache",
        "$ cat ~/.aws/sso/cache/6f1e.json\n" + json.dumps(body),
        (token,),
        (token[3:],),
    )


def _pulumi(r: random.Random) -> Planted:
    token = "pul-" + _pick(r, HEX, 40)
    body = {"current": "https://api.pulumi.com", "accessTokens": {"https://api.pulumi.com": token}}
    return Planted("pulumi-credentials", json.dumps(body, indent=4), (token,), (token[4:],))


def _composer(r: random.Random) -> Planted:
    token = _pick(r, HEX, 40)
    body = {"github-oauth": {"github.com": token}, "http-basic": {}}
    return Planted(
        "composer-github-oauth",
        "$ cat auth.json\n" + json.dumps(body, indent=4),
        (token,),
        (token,),
    )


def _cookie_jar(r: random.Random) -> Planted:
    value = _pick(r, ALNUM, 32)
    snippet = f"# Netscape HTTP Cookie File\n.app.internal\tTRUE\t/\tTRUE\t1767607200\tsessionid\t{value}\n.app.internal\tTRUE\t/\tFALSE\t0\tlocale\ten-US"
    return Planted("netscape-cookie-jar", snippet, (value,), (value,))


def _har_cookie(r: random.Random) -> Planted:
    value = _pick(r, URLSAFE, 80)
    body = {
        "request": {
            "method": "GET",
            "cookies": [
                {"name": "__Host-next-auth.session-token", "value": value, "httpOnly": True}
            ],
        }
    }
    return Planted("har-session-cookie", json.dumps(body, indent=2), (value,), (value,))


def _har_header(r: random.Random) -> Planted:
    value = _pick(r, ALNUM, 26)
    body = {
        "headers": [
            {"name": "Accept", "value": "application/json"},
            {"name": "X-Vault-Token", "value": value},
        ]
    }
    return Planted("har-header-pair", json.dumps(body), (value,), (value,))


def _k8s_env(r: random.Random) -> Planted:
    value = _pick(r, ALNUM, 32)
    snippet = f'env:\n  - name: LOG_LEVEL\n    value: debug\n  - name: STRIPE_WEBHOOK_SIGNING\n    value: "{value}"'
    return Planted("k8s-env-name-value", snippet, (value,), (value,))


def _kubectl_decoded(r: random.Random) -> Planted:
    value = _pick(r, ALNUM, 40)
    snippet = f"$ kubectl get secret ci -o jsonpath='{{.data.token}}' | base64 -d\n{value}"
    return Planted("kubectl-decoded-secret", snippet, (value,), (value,))


def _gitlab_variable(r: random.Random) -> Planted:
    password = _password(r)
    snippet = f'curl -X POST "https://gitlab.internal/api/v4/projects/7/variables" --form "key=DB_PASS" --form "value={password}"'
    return Planted("gitlab-variable-form", snippet, (password,), (password,))


def _sql_bcrypt(r: random.Random) -> Planted:
    digest = "$2b$12$" + _pick(r, ALNUM + "./", 53)
    snippet = f"INSERT INTO users (id, email, password_hash) VALUES (1, 'ops@corp.io', '{digest}');"
    return Planted("sql-bcrypt-hash", snippet, (digest,), (digest[7:],))


def _django_hash(r: random.Random) -> Planted:
    salt, digest = _pick(r, ALNUM, 22), _pick(r, B64, 43) + "="
    value = f"pbkdf2_sha256$600000${salt}${digest}"
    snippet = f"COPY public.auth_user (id, password, username) FROM stdin;\n1\t{value}\tadmin\n\\."
    return Planted("django-pbkdf2-row", snippet, (value,), (salt, digest[:-1]))


def _mysql_hash(r: random.Random) -> Planted:
    digest = "*" + _pick(r, UPPER_HEX, 40)
    snippet = f"+------+-----------+-------------------------------------------+\n| user | host      | authentication_string                     |\n| root | localhost | {digest} |"
    return Planted("mysql-native-hash", snippet, (digest,), (digest[1:],))


def _scram(r: random.Random) -> Planted:
    salt, stored, server = (
        _pick(r, B64, 22) + "==",
        _pick(r, B64, 43) + "=",
        _pick(r, B64, 43) + "=",
    )
    value = f"SCRAM-SHA-256$4096:{salt}${stored}:{server}"
    snippet = f" rolname | rolpassword\n---------+------------\n app     | {value}"
    return Planted(
        "postgres-scram-verifier", snippet, (value,), (salt[:-2], stored[:-1], server[:-1])
    )


def _sql_api_key(r: random.Random) -> Planted:
    key = _pick(r, ALNUM, 40)
    snippet = f"INSERT INTO api_keys (id, name, key) VALUES (7, 'ci-bot', '{key}');"
    return Planted("sql-insert-api-key", snippet, (key,), (key,))


def _psql_table(r: random.Random) -> Planted:
    token = _pick(r, ALNUM, 40)
    snippet = f" id |  name  |                  token                   \n----+--------+------------------------------------------\n  7 | ci-bot | {token}\n(1 row)"
    return Planted("psql-table-token", snippet, (token,), (token,))


def _askpass(r: random.Random) -> Planted:
    password = _password(r)
    snippet = f"$ cat ~/bin/askpass.sh\n#!/bin/sh\necho '{password}'"
    return Planted("askpass-script", snippet, (password,), (password,))


def _signing_gradle(r: random.Random) -> Planted:
    a, b = _password(r), _password(r)
    snippet = f'signingConfigs {{\n    release {{\n        storeFile file("release.jks")\n        storePassword "{a}"\n        keyAlias "upload"\n        keyPassword "{b}"\n    }}\n}}'
    return Planted("android-signing-groovy", snippet, (a, b), (a, b))


def _fastlane_session(r: random.Random) -> Planted:
    value = _pick(r, HEX, 64)
    snippet = f"FASTLANE_SESSION='---\n- !ruby/object:HTTP::Cookie\n  name: myacinfo\n  value: {value}\n  domain: apple.com'"
    return Planted("fastlane-session-cookie", snippet, (value,), (value,))


def _bip39(r: random.Random) -> Planted:
    phrase = " ".join(_word(r, 2) for _ in range(12))
    return Planted(
        "wallet-mnemonic",
        f'mnemonic: "{phrase}"',
        (phrase,),
        tuple(phrase.split(" ")[i] + " " + phrase.split(" ")[i + 1] for i in range(0, 12, 2)),
    )


def _solana(r: random.Random) -> Planted:
    numbers = ",".join(str(r.randrange(256)) for _ in range(64))
    snippet = f"$ cat ~/.config/solana/id.json\n[{numbers}]"
    # whole only: six characters of a list of numbers are in any other list of numbers
    return Planted("solana-keypair-array", snippet, (numbers,), ())


def _hardhat(r: random.Random) -> Planted:
    key = "0x" + _pick(r, HEX, 64)
    snippet = f'networks: {{\n  mainnet: {{ url: RPC_URL, accounts: ["{key}"] }}\n}}'
    return Planted("hardhat-accounts-key", snippet, (key,), (key[2:],))


def _wallet_prose(r: random.Random) -> Planted:
    key = "0x" + _pick(r, HEX, 64)
    snippet = f"The deployer wallet's private key is {key}, fund it before the migration."
    return Planted("wallet-key-in-prose", snippet, (key,), (key[2:],))


def _vault_init(r: random.Random) -> Planted:
    shares = [_pick(r, B64, 44) for _ in range(3)]
    snippet = (
        "".join(f"Unseal Key {i}: {share}\n" for i, share in enumerate(shares, 1))
        + "\nVault initialized with 3 key shares and a key threshold of 2."
    )
    return Planted("vault-unseal-keys", snippet, tuple(shares), tuple(shares))


def _openvpn(r: random.Random) -> Planted:
    lines = [_pick(r, HEX, 32) for _ in range(8)]
    snippet = (
        "<tls-auth>\n-----BEGIN OpenVPN Static key V1-----\n"
        + "\n".join(lines)
        + "\n-----END OpenVPN Static key V1-----\n</tls-auth>"
    )
    return Planted("openvpn-static-key", snippet, tuple(lines), tuple(lines))


def _pin_number(r: random.Random) -> Planted:
    pin = str(r.randrange(10**7, 10**8))
    snippet = json.dumps({"customer": "c_8812", "transaction_pin": int(pin), "limit": 500})
    return Planted("number-typed-pin", snippet, (pin,), ())


def _key_is_secret(r: random.Random) -> Planted:
    token = _pick(r, ALNUM, 40)
    snippet = json.dumps({"tokens": {token: {"scopes": ["repo"], "user": "ci"}}})
    return Planted("object-key-token", snippet, (token,), (token,))


def _ably(r: random.Random) -> Planted:
    secret = _pick(r, URLSAFE, 43)
    snippet = f'const client = new Ably.Realtime("xVLyHw.{_pick(r, ALNUM, 6)}:{secret}");'
    return Planted("ably-key", snippet, (secret,), (secret,))


def _discord_bot(r: random.Random) -> Planted:
    token = "MT" + _pick(r, ALNUM, 24) + "." + _pick(r, URLSAFE, 6) + "." + _pick(r, URLSAFE, 38)
    return Planted(
        "discord-bot-token", f'client.run("{token}")', (token,), (token[2:26], token[34:])
    )


def _msa_refresh(r: random.Random) -> Planted:
    token = "M.C540_BAY.0.U.-" + _pick(r, URLSAFE, 200)
    return Planted("msa-refresh-token", f"refresh saved: {token}", (token,), (token[16:],))


def _cloudfront(r: random.Random) -> Planted:
    sig = _pick(r, ALNUM + "-~", 172)
    url = f"https://d111111abcdef8.cloudfront.net/v.mp4?Expires=1767607200&Signature={sig}__&Key-Pair-Id=K2JCJMDEHXQW5F"
    return Planted("cloudfront-signed-url", url, (sig,), (sig,))


def _oss(r: random.Random) -> Planted:
    sig = _pick(r, ALNUM, 27)
    url = f"https://b.oss-cn-hangzhou.aliyuncs.com/a.zip?OSSAccessKeyId=LTAI{_pick(r, ALNUM, 20)}&Expires=1767607200&Signature={sig}%3D"
    return Planted("aliyun-oss-signed-url", url, (sig,), (sig,))


def _cos(r: random.Random) -> Planted:
    sig = _pick(r, HEX, 40)
    url = f"https://b-125.cos.ap-guangzhou.myqcloud.com/a.zip?q-sign-algorithm=sha1&q-ak=AKID{_pick(r, ALNUM, 32)}&q-sign-time=1767600000;1767607200&q-key-time=1767600000;1767607200&q-header-list=host&q-url-param-list=&q-signature={sig}"
    return Planted("tencent-cos-signed-url", url, (sig,), (sig,))


def _akamai(r: random.Random) -> Planted:
    mac = _pick(r, HEX, 64)
    url = f"https://media.example.net/live/master.m3u8?hdnts=exp=1767607200~acl=/*~hmac={mac}"
    return Planted("akamai-token-url", url, (mac,), (mac,))


KINDS_RED5: list[Kind] = [
    _gh_hosts,
    _gcloud_adc,
    _msal_cache,
    _aws_sso,
    _pulumi,
    _tok(
        "wrangler-oauth",
        'oauth_token = "{tok}"\nexpiration_time = "2026-01-05T11:00:00.000Z"',
        _chars(URLSAFE, 43),
    ),
    _tok(
        "vercel-auth-json",
        '{{\n  "// Note": "This is your Vercel credentials file. DO NOT SHARE!",\n  "token": "{tok}"\n}}',
        _chars(ALNUM, 24),
    ),
    _tok("railway-config", '{{"user": {{"token": "{tok}"}}, "projects": {{}}}}', _uuid),
    _tok(
        "npmrc-basic-auth",
        "//npm.internal/:_auth={tok}\nalways-auth=true",
        lambda r: base64.b64encode(f"ci:{_password(r)}".encode()).decode(),
        "",
    ),
    _tok(
        "yarnrc-npm-auth-token",
        'npmRegistries:\n  "https://npm.internal":\n    npmAuthToken: {tok}',
        _chars(ALNUM, 36),
    ),
    _composer,
    _tok("cargo-credentials", '[registry]\ntoken = "{tok}"', _chars(ALNUM, 32, "cio"), "cio"),
    _tok(
        "rubygems-credentials",
        "---\n:rubygems_api_key: {tok}",
        _chars(HEX, 48, "rubygems_"),
        "rubygems_",
    ),
    _pw(
        "nuget-cleartext",
        '<packageSourceCredentials>\n  <internal>\n    <add key="Username" value="ci" />\n    <add key="ClearTextPassword" value="{pw}" />\n  </internal>\n</packageSourceCredentials>',
    ),
    _pw("poetry-http-basic", "poetry config http-basic.internal ci {pw}"),
    _cookie_jar,
    _har_cookie,
    _har_header,
    _tok(
        "aspnet-cookie",
        "Set-Cookie: .AspNetCore.Identity.Application={tok}; path=/; secure; samesite=lax; httponly",
        _chars(URLSAFE, 180, "CfDJ8"),
        "CfDJ8",
    ),
    _pw(
        "kubectl-from-literal",
        "kubectl create secret generic db --from-literal=username=app --from-literal=password={pw}",
    ),
    _k8s_env,
    _kubectl_decoded,
    _tok(
        "azure-pipelines-setvariable",
        "##vso[task.setvariable variable=deployKey;issecret=true]{tok}",
        _chars(ALNUM, 40),
    ),
    _gitlab_variable,
    _tok("gh-secret-body", 'gh secret set DEPLOY_KEY --body "{tok}"', _chars(ALNUM, 40)),
    _sql_bcrypt,
    _django_hash,
    _mysql_hash,
    _scram,
    _sql_api_key,
    _psql_table,
    _askpass,
    _pw("cmdkey-pass", "cmdkey /add:fileserver /user:CORP\\ci /pass:{pw}"),
    _pw("schtasks-rp", "schtasks /create /tn backup /tr backup.cmd /ru CORP\\svc /rp {pw}"),
    _pw("psexec-p", "psexec \\\\srv01 -u CORP\\admin -p {pw} cmd /c whoami"),
    _pw("net-use-password", "net use Z: \\\\srv01\\share {pw} /user:CORP\\ci /persistent:no"),
    _tok(
        "powershell-hashtable-token",
        'Invoke-RestMethod -Uri $api -Headers @{{ Authorization = "token {tok}" }}',
        _chars(HEX, 40),
    ),
    _signing_gradle,
    _pw("apksigner-ks-pass", "apksigner sign --ks release.jks --ks-pass pass:{pw} app-release.apk"),
    _fastlane_session,
    _tok("stripe-restricted-key", "STRIPE_RK: {tok}", _chars(ALNUM, 99, "rk_live_"), "rk_live_"),
    _tok(
        "stripe-webhook-secret", "endpoint secret {tok} set", _chars(ALNUM, 32, "whsec_"), "whsec_"
    ),
    _tok("square-app-secret", "square: {tok}", _chars(URLSAFE, 43, "sq0csp-"), "sq0csp-"),
    _tok(
        "braintree-access-token",
        'gateway = braintree.BraintreeGateway(access_token="{tok}")',
        lambda r: f"access_token$production${_pick(r, ALNUM.lower(), 16)}${_pick(r, HEX, 32)}",
        "access_token$production$",
    ),
    _two(
        "razorpay-auth-tuple",
        'client = razorpay.Client(auth=("{a}", "{b}"))',
        _chars(ALNUM, 14, "rzp_live_"),
        _chars(ALNUM, 24),
    ),
    _tok(
        "plaid-access-token",
        "plaid item: {tok}",
        lambda r: "access-production-" + _uuid(r),
        "access-production-",
    ),
    _tok(
        "flutterwave-secret",
        "FLW: {tok}",
        lambda r: "FLWSECK-" + _pick(r, HEX, 32) + "-X",
        "FLWSECK-",
    ),
    _tok(
        "slack-app-token",
        "socket mode with {tok}",
        lambda r: (
            f"xapp-1-A0{_pick(r, string.ascii_uppercase + string.digits, 9)}-{_pick(r, string.digits, 13)}-{_pick(r, HEX, 64)}"
        ),
        "xapp-1-",
    ),
    _tok(
        "brevo-key",
        "brevo = {tok}",
        lambda r: f"xkeysib-{_pick(r, HEX, 64)}-{_pick(r, ALNUM, 16)}",
        "xkeysib-",
    ),
    _tok(
        "meta-graph-token",
        "curl 'https://graph.facebook.com/v19.0/me/messages?access_token={tok}'",
        _chars(ALNUM, 180, "EAAG"),
        "EAAG",
    ),
    _two(
        "twilio-client-positional",
        'client = Client("{a}", "{b}")',
        _chars(HEX, 32, "AC"),
        _chars(HEX, 32),
    ),
    _tok("postmark-server-token", "X-Postmark-Server-Token: {tok}", _uuid),
    _ably,
    _discord_bot,
    _msa_refresh,
    _tok(
        "auth0-refresh-form",
        "curl -d grant_type=refresh_token -d client_id=abc -d refresh_token={tok} https://corp.eu.auth0.com/oauth/token",
        _chars(URLSAFE, 90, "v1.M"),
        "v1.M",
    ),
    _tok(
        "flask-session-cookie",
        'requests.get(url, cookies={{"session": "{tok}"}})',
        lambda r: f"eyJ1c2VyX2lkIjo0Mn0.{_pick(r, URLSAFE, 6)}.{_pick(r, URLSAFE, 27)}",
        "eyJ1c2VyX2lkIjo0Mn0.",
    ),
    _tok(
        "rails-session-cookie",
        'document.cookie = "_shop_session={tok}"',
        lambda r: f"{_pick(r, B64, 120)}--{_pick(r, HEX, 40)}",
    ),
    _cloudfront,
    _oss,
    _cos,
    _tok(
        "firebase-storage-token",
        "https://firebasestorage.googleapis.com/v0/b/app.appspot.com/o/invoice.pdf?alt=media&token={tok}",
        _uuid,
    ),
    _akamai,
    _tok(
        "age-secret-key",
        "# created: 2026-01-05\n{tok}",
        _chars(BECH32.upper(), 58, "AGE-SECRET-KEY-1"),
        "AGE-SECRET-KEY-1",
    ),
    _tok("nostr-nsec", "my key {tok}", _chars(BECH32, 58, "nsec1"), "nsec1"),
    _bip39,
    _solana,
    _hardhat,
    _wallet_prose,
    _vault_init,
    _openvpn,
    _tok(
        "paseto-local-token", "cookie token {tok}", _chars(URLSAFE, 100, "v4.local."), "v4.local."
    ),
    _pin_number,
    _key_is_secret,
]


# -- look-alikes ------------------------------------------------------------------------------

LOOKALIKES_RED5: list[str] = [
    "password_min_length: 12",
    "github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl",
    "ED25519 key fingerprint is SHA256:+DiY3wvvV6TuJJhbpZisF/zLDA0zPMSvHdkr4UvCOqU.",
    "pub   rsa4096 2024-01-05 [SC]\n      3AA5C34371567BD2F1C0B2E7A8D4F6E09B1C3D5F",
    'storePassword System.getenv("KEYSTORE_PASSWORD")',
    "apksigner sign --ks release.jks --ks-pass env:KS_PASS app-release.apk",
    "kubectl create secret generic db --from-file=password=./pw.txt",
    "cmdkey /list",
    "token_endpoint: https://oauth2.googleapis.com/token",
    '"refresh_token_expires_in": 7776000',
    "curl -d grant_type=refresh_token -d client_id=abc https://corp.eu.auth0.com/oauth/token",
    "Set-Cookie: lang=de; Path=/; Max-Age=31536000",
    "session.gc_maxlifetime = 1440",
    "CSRF_COOKIE_HTTPONLY = True",
    "DataLoader(ds, pin_memory=True, num_workers=4)",
    "account_id: 123456789012",
    'tls:\n  - secretName: "tls-cert"\n    hosts: [app.internal]',
    "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password",
    "- name: LOG_LEVEL\n  value: debug",
    '{"name": "Content-Type", "value": "application/json"}',
    "INSERT INTO users (id, email, password_hash) VALUES (1, 'ops@example.com', NULL);",
    " id |  name  | token_count\n----+--------+-------------\n  7 | ci-bot |        1532",
    "mnemonic: LDR r0, [r1, #4]",
    "0x0000000000000000000000000000000000000000",
    "tx 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060 confirmed",
    "npub180cvv07tjdrrgpa0j7j7tmnyl2yr6yr7l8j4s3evf6u64th6gkwsyjh6w6",
    "recipient: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p",
    '"expiresAt": "2026-01-05T11:00:00Z"',
    "cargo login  # reads the token from stdin",
    "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
    'npmAuthToken: "${NPM_AUTH_TOKEN}"',
    '<add key="ClearTextPassword" value="%NUGET_PASSWORD%" />',
    "##vso[task.setvariable variable=buildId]20260105.3",
    "psexec \\\\srv01 -s -i cmd",
    "schtasks /query /fo LIST /v",
    "# Netscape HTTP Cookie File",
    "password_encryption = scram-sha-256",
    "bcrypt rounds: 12",
    'PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]',
    "secret_scanning: enabled",
    "git config --global credential.helper store",
    "IdentityFile ~/.ssh/id_ed25519",
    "SSH_AUTH_SOCK=/tmp/ssh-XXXXabcd/agent.1234",
    '"credsStore": "desktop"',
    "client_id: 764086051850-6qr4p6gpi6hn506pt8ejuq83di341hur.apps.googleusercontent.com",
    'tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")',
    "rzp_test mode: on",
    "Key-Pair-Id: K2JCJMDEHXQW5F",
    "Unseal Progress    1/2\nUnseal Nonce       4c0883a6-9102-937d-6231-471b5dbb6204",
    "the private key stays in the HSM; the block hash is 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060",
    "private key: see the runbook (never commit 0x-prefixed keys)",
]
