"""prime_nb.redact: planted secrets are all found, look-alikes mostly left, the tree unchanged."""

from __future__ import annotations

import base64
import json
import random
import re
import uuid
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from conftest import FIXTURES, header, msg, write_lines

import prime_nb
from prime_nb.redact import REPORT_COLUMNS, Rule, default_rules, redact
from sessiongen import synthetic_session

HOST = "buildbox-7"


def _b64url(obj: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


JWT = (
    _b64url({"alg": "HS256", "typ": "JWT"})
    + "."
    + _b64url({"sub": "1234567890", "name": "Alice"})
    + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
PRIVATE_KEY = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEAuZ3q9Jk2v8QyJ4X1wq7yYj0mN3bF5cU6hT2rG9kL0pDsE1aB\n"
    "q7yYj0mN3bF5cU6hT2rG9kL0pDsE1aBuZ3q9Jk2v8QyJ4X1wq7yYj0mN3bF5cU6\n"
    "-----END RSA PRIVATE KEY-----"
)

#: every kind of secret the default rules promise, with the rule expected to find it
PLANTED: dict[str, str] = {
    "aws-key": "AKIAIOSFODNN7EXAMPQ2",
    "aws-secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY9",
    "github": "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "github-fine": "github_pat_11ABCDEFG0" + "x9Y8z7W6v5U4t3S2r1Q0p9O8n7M6l5K4j3",
    "gitlab": "glpat-" + "Zx8Yw7Vu6Ts5Rq4Po3Nm",
    "openai": "sk-proj-" + "Q2w3E4r5T6y7U8i9O0p1A2s3D4f5G6h7J8k9L0",
    "anthropic": "sk-ant-api03-" + "Xy9Zw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0Ed9Cb8Aa7",
    "slack": "xoxb-123456789012-1234567890123-" + "AbCdEfGhIjKlMnOpQrStUvWx",
    "stripe": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "google": "AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
    "huggingface": "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
    "sendgrid": "SG."
    + "ngeVfQFYQlKU0ufo8x5d1A"
    + "."
    + "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr",
    "npm": "npm_" + "Abc123Def456Ghi789Jkl012Mno345Pqr678",
    "jwt": JWT,
    "private-key": PRIVATE_KEY,
    "bearer": "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5",
    "url-password": "s3cr3tPassw0rd",
    "url-token": "q8Zr2LmN4pX7vB1c",
    "db-password": "Zx9vB3nM7qL2wE5r",
    "api-key-hex": "f3a9c1e7b2d84a6f9e0c5b1d7a3e8f21",
    "email": "alice.smith@corp-mail.com",
    "home-linux": "/home/alice",
    "home-mac": "/Users/bob",
    "host": HOST,
}


def planted_entries(version: int = 3) -> list[dict[str, Any]]:
    """A session whose free text holds every planted secret, in every kind of field."""
    s = PLANTED
    env = (
        f"AWS_ACCESS_KEY_ID={s['aws-key']}\n"
        f"aws_secret_access_key = {s['aws-secret']}\n"
        f"GITHUB_TOKEN={s['github']}\nGH_PAT={s['github-fine']}\n"
        f"GITLAB={s['gitlab']}\nOPENAI_API_KEY={s['openai']}\n"
        f"ANTHROPIC_API_KEY={s['anthropic']}\nSLACK={s['slack']}\n"
        f"STRIPE={s['stripe']}\nGOOGLE={s['google']}\nHF={s['huggingface']}\n"
        f"SENDGRID={s['sendgrid']}\nNPM={s['npm']}\n"
        f"DB_PASSWORD={s['db-password']}\n"
    )
    call = {
        "type": "toolCall",
        "id": "toolu_01",
        "name": "bash",
        "arguments": {
            "command": f"curl -H 'Authorization: Bearer {s['bearer']}' "
            f"'https://api.example.io/v1/items?access_token={s['url-token']}'"
        },
    }
    assistant = msg("a1", "u1", "assistant", "I will read the env file.", 1)
    assistant["message"]["content"] = [
        {
            "type": "thinking",
            "thinking": f"the key {s['openai']} is in .env",
            "thinkingSignature": "sig",
        },
        {"type": "text", "text": "Reading it."},
        call,
    ]
    result = msg(
        "r1", "a1", "toolResult", env, 2, toolCallId="toolu_01", toolName="bash", isError=False
    )
    return [
        header(
            version,
            cwd=f"{s['home-linux']}/projects/app",
            git={"remote": f"https://alice:{s['url-password']}@git.example.org/app.git"},
        ),
        msg("u1", None, "user", f"My login is {s['email']}, machine {HOST}. Token: {s['jwt']}", 0),
        assistant,
        result,
        {
            "type": "message",
            "id": "b1",
            "parentId": "r1",
            "timestamp": "2026-01-05T10:03:00.000Z",
            "message": {
                "role": "bashExecution",
                "command": "cat ~/.ssh/id_rsa",
                "output": PRIVATE_KEY,
                "exitCode": 0,
                "cancelled": False,
                "truncated": False,
            },
        },
        msg(
            "a2",
            "b1",
            "assistant",
            f'config: {{"api_key": "{s["api-key-hex"]}"}} in {s["home-mac"]}/code',
            4,
        ),
        {
            "type": "compaction",
            "id": "c1",
            "parentId": "a2",
            "timestamp": "2026-01-05T10:05:00.000Z",
            "summary": f"User {s['email']} works in {s['home-linux']}/projects/app on {HOST}.",
            "firstKeptEntryId": "a2",
            "tokensBefore": 1000,
        },
        msg("u2", "c1", "user", f"again: {s['github']} and {s['aws-key']}", 6),
        {
            "type": "label",
            "id": "l1",
            "parentId": "u2",
            "timestamp": "2026-01-05T10:07:00.000Z",
            "targetId": "u2",
            "label": f"leak {s['stripe']}",
        },
        {
            "type": "branch_summary",
            "id": "s1",
            "parentId": "a1",
            "timestamp": "2026-01-05T10:08:00.000Z",
            "fromId": "r1",
            "summary": f"tried {s['slack']} on {HOST}",
        },
        msg("u3", "s1", "user", "other branch", 9),
    ]


def escaped(secret: str) -> bytes:
    """The secret as it appears inside a JSON string on disk."""
    return json.dumps(secret)[1:-1].encode()


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    return write_lines(tmp_path / "planted.jsonl", planted_entries())


def test_every_planted_secret_is_found_and_gone(planted: Path, tmp_path: Path) -> None:
    raw = planted.read_bytes()
    for name, secret in PLANTED.items():
        assert escaped(secret) in raw, name
    out, report = redact(planted, tmp_path / "shared.jsonl", hostnames=[HOST])
    assert out is not None
    data = out.read_bytes()
    for name, secret in PLANTED.items():
        assert escaped(secret) not in data, f"{name} survived redaction"
        assert secret not in report.to_csv(), f"the report shows {name}"
    expected = {
        "aws-key", "github-token", "token", "gitlab-token", "slack-token", "stripe-key",
        "sendgrid-key", "jwt", "private-key", "bearer-token", "url-password", "url-token",
        "keyword-secret", "email", "home-path", "hostname",
    }  # fmt: skip
    assert expected <= set(report["rule"])
    assert list(report.columns) == REPORT_COLUMNS


def test_the_same_secret_gets_the_same_placeholder_everywhere(
    planted: Path, tmp_path: Path
) -> None:
    out, report = redact(planted, tmp_path / "shared.jsonl", hostnames=[HOST])
    assert out is not None
    by_rule = report.groupby("rule")["placeholder"].unique()
    assert list(by_rule["hostname"]) == ["host-1"]
    assert list(by_rule["email"]) == ["email-1@redacted.invalid"]
    text = out.read_text()
    github = report[report["rule"] == "github-token"]
    assert github["placeholder"].nunique() == 1 and len(github) == 2  # .env and a later prompt
    assert text.count(github["placeholder"].iloc[0]) == 2
    assert "/home/user-1/projects/app" in text and "/Users/user-2/code" in text
    # the openai key is found in .env, and also replaced in the thinking block
    session = prime_nb.load(out)
    thinking = session.entry("a1")["message"]["content"][0]["thinking"]
    assert "[REDACTED:token:" in thinking


def test_the_report_says_where(planted: Path) -> None:
    _, report = redact(planted, dry_run=True, hostnames=[HOST])
    row = report[(report["rule"] == "private-key")].iloc[0]
    assert (row["line"], row["entry_id"], row["field"]) == (5, "b1", "message.output")
    fields = set(report["field"])
    assert {
        "cwd",
        "git.remote",
        "message.content[2].arguments.command",
        "summary",
        "label",
        "message.content[0].thinking",
        "message.content[0].text",
        "message.content",
    } <= fields
    assert report["line"].dtype == "int64"


def test_dry_run_writes_nothing(planted: Path, tmp_path: Path) -> None:
    before = set(tmp_path.iterdir())
    result = redact(planted, tmp_path / "never.jsonl", dry_run=True, hostnames=[HOST])
    assert result.path is None and len(result.report) > 0
    assert set(tmp_path.iterdir()) == before


def _shape(session: prime_nb.Session) -> dict[str, Any]:
    entries = session.entries
    leaves = list(session.leaves.index)
    return {
        "version": session.version,
        "dialect": session.dialect,
        "id": session.id,
        "index": list(entries.index),
        "parents": entries["parent_id"].tolist(),
        "types": entries["type"].tolist(),
        "roles": entries["role"].tolist(),
        "leaves": leaves,
        "active": session.leaf_id,
        "contexts": {
            leaf: [(m.get("role"), m.get("entry_id")) for m in session.context(leaf)]
            for leaf in leaves
        },
        "problems": session.problems["kind"].tolist(),
        "lines": entries["line"].tolist(),
    }


def test_the_planted_session_keeps_its_tree(planted: Path, tmp_path: Path) -> None:
    out, _ = redact(planted, tmp_path / "shared.jsonl", hostnames=[HOST])
    assert out is not None
    assert _shape(prime_nb.load(out)) == _shape(prime_nb.load(planted))


SYNTHETIC = [(v, d) for v in (1, 2, 3) for d in ("prime", "spec")]


@pytest.mark.parametrize(("version", "dialect"), SYNTHETIC)
def test_synthetic_sessions_keep_their_tree(tmp_path: Path, version: int, dialect: str) -> None:
    src = synthetic_session(tmp_path / "s.jsonl", version=version, dialect=dialect, seed=version)
    out, report = redact(src, tmp_path / "r.jsonl", hostnames=[HOST])
    assert out is not None
    assert _shape(prime_nb.load(out)) == _shape(prime_nb.load(src))
    assert set(report["rule"]) == {"home-path"}  # the synthetic cwd is /home/dev/...
    assert "/home/dev/" not in out.read_text()


FIXTURE_FILES = sorted(FIXTURES.rglob("*.jsonl"))


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.name)
def test_fixtures_keep_their_tree(tmp_path: Path, path: Path) -> None:
    out, report = redact(path, tmp_path / path.name, hostnames=[HOST])
    assert out is not None
    assert _shape(prime_nb.load(out)) == _shape(prime_nb.load(path))
    # lines with nothing to hide are copied byte for byte
    changed = set(report["line"])
    old, new = path.read_bytes().split(b"\n"), out.read_bytes().split(b"\n")
    assert len(old) == len(new)
    for number, (a, b) in enumerate(zip(old, new, strict=True), start=1):
        assert (a == b) == (number not in changed), number


def test_empty_header_only_session(tmp_path: Path) -> None:
    src = write_lines(tmp_path / "empty.jsonl", [header(cwd="/home/zoe/x")])
    out, report = redact(src, tmp_path / "r.jsonl", hostnames=[])
    assert out is not None
    assert report[["line", "rule"]].values.tolist() == [[1, "home-path"]]
    assert prime_nb.load(out).header["cwd"] == "/home/user-1/x"


def test_hostile_lines_are_withheld(tmp_path: Path) -> None:
    key = PLANTED["github"]
    password = "Vuka-Tebo-7391"
    src = write_lines(
        tmp_path / "hostile.jsonl",
        [
            b"\xef\xbb\xbf" + json.dumps(header()).encode(),
            msg("u1", None, "user", f"token {key}", 0),
            f'{{"type": "message", "id": "u2", "broken {key}',
            b"\xff\xfe not utf-8 " + key.encode(),
            msg("u3", "u1", "user", f"again {key}", 1),
            f'{{"type":"message","id":"u4","parentId":"u3","torn DB_PASSWORD={password} ',
        ],
        end=b"\r\n",
    )
    # the last line is torn: no line end after it
    src.write_bytes(src.read_bytes()[:-2])
    out, report = redact(src, tmp_path / "r.jsonl", hostnames=[])
    assert out is not None
    data = out.read_bytes()
    assert key.encode() not in data and password[:6].encode() not in data
    assert (
        data.startswith(b"\xef\xbb\xbf") and data.count(b"\r\n") == 5 and not data.endswith(b"\n")
    )
    withheld = report[report["field"] == "(unparsed line)"]
    assert set(withheld["line"]) == {3, 4, 6} and set(withheld["rule"]) == {"unparsed-line"}
    lines = data.split(b"\r\n")
    for number in (3, 4, 6):  # nothing of the line is copied, and the placeholder says why
        assert lines[number - 1].startswith(b"[WITHHELD:unparsed-line] prime-nb redact withheld")
    assert _shape(prime_nb.load(out)) == _shape(prime_nb.load(src))


def test_a_repeated_key_is_not_copied_through(tmp_path: Path) -> None:
    """Readers keep the last of a repeated key; the first value must not ride along."""
    key = PLANTED["github"]
    line = (
        '{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-05T10:00:00.000Z",'
        f'"message":{{"role":"user","content":"{key}","content":"hello","timestamp":0}}}}'
    )
    src = write_lines(tmp_path / "dup.jsonl", [header(), line])
    out, report = redact(src, tmp_path / "r.jsonl", hostnames=[])
    assert out is not None
    assert key[4:10] not in out.read_text()
    assert report[["line", "field", "rule"]].values.tolist() == [
        [2, "(whole line)", "repeated-key"]
    ]
    assert prime_nb.load(out).entry("u1")["message"]["content"] == "hello"
    assert _shape(prime_nb.load(out)) == _shape(prime_nb.load(src))


def test_a_value_that_starts_with_a_colon_is_no_repeated_key(tmp_path: Path) -> None:
    """``"command":": 18789"`` holds one key: the report must not say values were dropped."""
    lines = [
        header(),
        '{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-05T10:00:00.000Z",'
        '"message":{"role":"user","content":": 18789","command":":\\" :x","timestamp":0}}',
    ]
    src = write_lines(tmp_path / "colon.jsonl", lines)
    out, report = redact(src, tmp_path / "r.jsonl", hostnames=[])
    assert out is not None
    assert "repeated-key" not in set(report["rule"])
    assert out.read_bytes() == src.read_bytes()


@pytest.mark.parametrize("label", ["RSA ", "EC ", "OPENSSH ", "", "ENCRYPTED "])
def test_a_key_block_ends_at_its_end_line(tmp_path: Path, label: str) -> None:
    body = "MIIEowIBAAKCAQEAuZ3q9Jk2v8QyJ4X1wq7yYj0mN3bF5cU6hT2rG9kL0pDsE1aB"
    block = f"-----BEGIN {label}PRIVATE KEY-----\n{body}\n-----END {label}PRIVATE KEY-----"
    text = f"key:\n{block}\nThe deploy finished and the server restarted."
    src = write_lines(tmp_path / "k.jsonl", [header(), msg("u1", None, "user", text, 0)])
    out, _ = redact(src, tmp_path / "r.jsonl", hostnames=[])
    assert out is not None
    content = prime_nb.load(out).entry("u1")["message"]["content"]
    assert (
        content == "key:\n[REDACTED:private-key:1]\nThe deploy finished and the server restarted."
    )


def test_values_under_secret_keys_whatever_their_shape(tmp_path: Path) -> None:
    arguments = {
        "headers": {"X-Api-Key": "abc", "Accept": "text/plain"},
        "db": {"password": 123456, "host": "db.internal"},
        "auth": {"user": "bob", "pass": "s3cr3t"},
        "client_secret": ["one-value", "two-value"],
        "env": [{"name": "API_TOKEN", "value": "plain-words"}],
        "token": None,
        "max_tokens": 4096,
    }
    call = {"type": "toolCall", "id": "toolu_1", "name": "http", "arguments": arguments}
    entry = msg("a1", None, "assistant", "", 0)
    entry["message"]["content"] = [call]
    src = write_lines(tmp_path / "s.jsonl", [header(), entry])
    out, report = redact(src, tmp_path / "r.jsonl", hostnames=[])
    assert out is not None
    got = prime_nb.load(out).entry("a1")["message"]["content"][0]["arguments"]
    assert got["headers"] == {"X-Api-Key": "[REDACTED:secret-field:1]", "Accept": "text/plain"}
    assert got["db"] == {"password": "[REDACTED:secret-field:2]", "host": "db.internal"}
    assert got["auth"] == {"user": "[REDACTED:secret-field:3]", "pass": "[REDACTED:secret-field:4]"}
    assert got["client_secret"] == ["[REDACTED:secret-field:5]", "[REDACTED:secret-field:6]"]
    assert got["env"] == [{"name": "API_TOKEN", "value": "[REDACTED:secret-field:7]"}]
    assert got["token"] is None and got["max_tokens"] == 4096
    assert set(report["rule"]) == {"secret-field"}


def test_a_secret_used_as_a_key_is_replaced_and_never_reported(tmp_path: Path) -> None:
    key = PLANTED["github"]
    entry = {
        "type": "custom",
        "id": "c1",
        "parentId": None,
        "timestamp": "2026-01-05T10:00:00.000Z",
        "customType": "cache",
        "data": {"tokens": {key: {"scope": "repo"}}},
    }
    src = write_lines(tmp_path / "s.jsonl", [header(), entry])
    out, report = redact(src, tmp_path / "r.jsonl", hostnames=[])
    assert out is not None
    data = prime_nb.load(out).entry("c1")["data"]
    assert data == {"tokens": {"[REDACTED:github-token:1]": {"scope": "repo"}}}
    assert key[4:10] not in report.to_csv() and key[4:10] not in out.read_text()
    assert list(report["field"]) == ["data.tokens.(key)"]


def test_a_guess_is_replaced_where_it_was_made_only(tmp_path: Path) -> None:
    """A context rule may be wrong: its value is not hunted through the whole file, unless
    it is strongly random (then it is a secret wherever it shows)."""
    random_key = "Zx9vB3nM7qL2wE5rT8yU"
    src = write_lines(
        tmp_path / "s.jsonl",
        [
            header(),
            msg("u1", None, "user", f"PASSWORD=sunshine99 API_KEY={random_key}", 0),
            msg("u2", "u1", "user", f"sunshine99 is the wifi name; {random_key} was echoed", 1),
            msg("u3", "u2", "user", "token gpt-4o-2024-08-06 and basic python3.11-slim", 2),
            msg("u4", "u3", "user", "we use gpt-4o-2024-08-06 in python3.11-slim; pwd: /srv/a", 3),
        ],
    )
    out, _ = redact(src, tmp_path / "r.jsonl", hostnames=[])
    assert out is not None
    session = prime_nb.load(out)
    text = {i: session.entry(i)["message"]["content"] for i in ("u1", "u2", "u3", "u4")}
    assert "sunshine99" not in text["u1"] and random_key not in text["u1"]
    assert text["u2"].startswith("sunshine99 is the wifi name; [REDACTED:keyword-secret:")
    assert text["u3"] == "token gpt-4o-2024-08-06 and basic python3.11-slim"
    assert text["u4"] == "we use gpt-4o-2024-08-06 in python3.11-slim; pwd: /srv/a"


# -- look-alikes --------------------------------------------------------------------------

#: documented in docs/redaction.md: at most this share of look-alike tokens may be redacted
LOOKALIKE_RATE = 0.01


def lookalike_texts(rng: random.Random, n: int) -> list[tuple[str, str]]:
    """(text, token) pairs: ids and hashes in the places where sessions show them."""
    hexd = "0123456789abcdef"

    def hexs(k: int) -> str:
        return "".join(rng.choice(hexd) for _ in range(k))

    out: list[tuple[str, str]] = []
    for i in range(n):
        full, short, uid = hexs(40), hexs(7), str(uuid.UUID(int=rng.getrandbits(128)))
        digest = hexs(64)
        pick = i % 10
        if pick == 0:
            out.append((f"commit {full}\nAuthor: Dev <dev@example.com>\n\n    fix parser", full))
        elif pick == 1:
            out.append((f"{short} Fix the CSV sniffer\n{hexs(7)} Add tests", short))
        elif pick == 2:
            out.append((f'{{"id": "{uid}", "status": "ok"}}', uid))
        elif pick == 3:
            out.append((f"session {uid} loaded; entry {hexs(8)}", uid))
        elif pick == 4:
            out.append((f"{digest}  dist/app-1.4.0.tar.gz", digest))
        elif pick == 5:
            out.append((f"image: registry/app@sha256:{digest}", digest))
        elif pick == 6:
            out.append((f"Merge: {short} {hexs(7)}\nHEAD is now at {full[:12]}", short))
        elif pick == 7:
            out.append((f"tool call toolu_{hexs(24)} returned; request req_{hexs(24)}", "toolu_"))
        elif pick == 8:
            out.append((f"index {short}..{hexs(7)} 100644\n--- a/src/x.py", short))
        else:
            out.append((f"run_{full[:16]} finished in 12.5s (job {uid})", full[:16]))
    return out


def test_lookalikes_are_rarely_redacted(tmp_path: Path) -> None:
    rng = random.Random(7)
    pairs = lookalike_texts(rng, 500)
    entries: list[dict[str, Any]] = [header(cwd="/srv/app")]
    parent = None
    for i, (text, _token) in enumerate(pairs):
        entries.append(msg(f"e{i:05d}", parent, "user", text, 0))
        parent = f"e{i:05d}"
    src = write_lines(tmp_path / "lookalikes.jsonl", entries)
    _, report = redact(src, dry_run=True, hostnames=[])
    rate = report["line"].nunique() / len(pairs)
    assert rate <= LOOKALIKE_RATE, report["rule"].value_counts()


# -- rules and refusals -------------------------------------------------------------------


def test_user_rules_regex_and_callable(planted: Path, tmp_path: Path) -> None:
    def project_names(text: str) -> list[str]:
        return ["projects/app"] if "projects/app" in text else []

    out, report = redact(
        planted,
        tmp_path / "r.jsonl",
        hostnames=[],
        extra_rules=[r"Reading (it)", project_names],
    )
    assert out is not None
    text = out.read_text()
    assert "Reading [REDACTED:user-0:1]." in text
    assert "projects/app" not in text and "[REDACTED:project_names:1]" in text
    assert {"user-0", "project_names"} <= set(report["rule"])


def test_rules_replace_the_defaults(planted: Path) -> None:
    _, report = redact(
        planted, dry_run=True, rules=[Rule("mail", pattern=re.compile(r"\S+@corp-mail\.com"))]
    )
    assert set(report["rule"]) == {"mail"}
    assert set(report["placeholder"]) == {"[REDACTED:mail:1]"}


def test_bad_rules_are_refused(planted: Path) -> None:
    with pytest.raises(ValueError, match=r"redaction rule 0: '\(' is not a valid regex"):
        redact(planted, dry_run=True, rules=["("])
    with pytest.raises(TypeError, match=r"redaction rule 0: int is not a rule"):
        redact(planted, dry_run=True, rules=[3])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"span \(5, 99\) is outside a string"):
        redact(planted, dry_run=True, rules=[lambda text: [(5, 99)]])


def test_never_in_place_nor_over_a_file(planted: Path, tmp_path: Path) -> None:
    before = planted.read_bytes()
    with pytest.raises(
        FileExistsError, match=r"is the source session; redaction never writes in place"
    ):
        redact(planted, planted)
    with pytest.raises(FileExistsError, match=r"is the source session"):
        redact(prime_nb.load(planted), tmp_path / "." / planted.name)
    other = write_lines(tmp_path / "other.jsonl", [header()])
    with pytest.raises(
        FileExistsError, match=r"other\.jsonl: already exists; redaction writes a new file"
    ):
        redact(planted, other)
    with pytest.raises(
        ValueError, match=r"redact: no dest; pass the new file's path, or dry_run=True"
    ):
        redact(planted)
    with pytest.raises(FileNotFoundError, match=r"missing\.jsonl: no such session file"):
        redact(tmp_path / "missing.jsonl", tmp_path / "x.jsonl")
    with pytest.raises(FileNotFoundError, match=r"nowhere: no such folder"):
        redact(planted, tmp_path / "nowhere" / "x.jsonl")
    assert (
        planted.read_bytes() == before
        and other.read_bytes() == json.dumps(header()).encode() + b"\n"
    )


def test_a_session_object_works_and_top_level_api(planted: Path, tmp_path: Path) -> None:
    session = prime_nb.load(planted)
    result = prime_nb.redact(session, tmp_path / "r.jsonl", hostnames=[HOST])
    assert isinstance(result.report, pd.DataFrame) and result.path == tmp_path / "r.jsonl"


def test_default_rules_hide_this_host_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    monkeypatch.setattr(socket, "gethostname", lambda: "devbox-42.corp.internal")
    names = [r for r in default_rules() if r.name == "hostname"]
    assert len(names) == 1
    assert [text[a:b] for text in ["on devbox-42 now"] for a, b in names[0].spans(text)] == [
        "devbox-42"
    ]
    assert not [r for r in default_rules([]) if r.name == "hostname"]
    monkeypatch.setattr(socket, "gethostname", lambda: "vm")
    assert not [r for r in default_rules() if r.name == "hostname"]


def _deep_session(tmp_path: Path, depth: int) -> Path:
    token = PLANTED["github"]
    body = '{"k": [' * (depth // 2) + f'{{"x": "{token}"}}' + "]}" * (depth // 2)
    line = (
        '{"type":"custom","id":"c1","parentId":null,"timestamp":"2026-01-05T10:00:00.000Z",'
        f'"customType":"x","data":{body}}}'
    )
    return write_lines(tmp_path / "deep.jsonl", [header(), line])


@pytest.mark.parametrize("depth", [700, 1000])
def test_a_deep_entry_that_loads_is_redacted(tmp_path: Path, depth: int) -> None:
    """A 700-deep entry that load() reads made redact raise RecursionError."""
    src = _deep_session(tmp_path, depth)
    assert list(prime_nb.load(src).entries.index) == ["c1"]
    out, report = redact(src, tmp_path / "r.jsonl", hostnames=[])
    assert out is not None and PLANTED["github"] not in out.read_text()
    assert list(report["rule"]) == ["github-token"]
    assert list(prime_nb.load(out).entries.index) == ["c1"]


def test_the_result_shows_in_a_few_lines(tmp_path: Path) -> None:
    """The repr dumped the whole report table; it says counts by rule."""
    lines = [header()]
    for i in range(200):
        lines.append(msg(f"u{i}", f"u{i - 1}" if i else None, "user", f"mail x{i}@corp.io", i))
    src = write_lines(tmp_path / "many.jsonl", lines)
    result = redact(src, dry_run=True, hostnames=[])
    assert repr(result) == "Redaction(path=None, replacements=200 (email: 200), suspects=0)"
    assert result.summary().values.tolist() == [["email", 200, 200, 200]]


def test_what_still_looks_like_a_secret_is_a_suspect_kept_and_never_shown(
    tmp_path: Path,
) -> None:
    """A random token beside a secret's word that no rule was sure of: listed, kept."""
    token = "Qx7vB2nM9kL4wE8rT5yU1iO3pA6sD0fG"
    texts = [f"the session ends with {token} in it", "nothing here", "token budget 4096"]
    lines = [header()] + [
        msg(f"u{i}", f"u{i - 1}" if i else None, "user", t, i) for i, t in enumerate(texts)
    ]
    src = write_lines(tmp_path / "s.jsonl", lines)
    out, report = result = redact(src, tmp_path / "r.jsonl", hostnames=[])
    assert out is not None and token in out.read_text()  # kept: no rule was sure
    assert result.suspects[["line", "entry_id", "field"]].values.tolist() == [
        [2, "u0", "message.content"]
    ]
    assert "after 'session'" in result.suspects["reason"].iloc[0]
    assert token not in result.suspects.to_csv() and report.empty
