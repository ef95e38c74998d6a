"""The third attack round: disguises and contexts no rule listed, one small session.

The corpus (``test_redact_corpus``) plants every kind of ``redteam3_secrets`` in every
place; these tests pin each new view and detector on its own, with the look-alike beside
it that must stay, so that a failure names what broke. One redaction serves them all.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from more_secrets import KINDS_MORE
from redteam3_secrets import (
    ENCODINGS_RED3,
    KINDS_RED3,
    LOOKALIKES_RED3,
    STRUCTURE_RED3,
    base64_twice,
    bidi_split,
    double_percent,
    homoglyphs,
    shell_continued,
    soft_hyphens,
)
from redteam_secrets import KINDS_RED
from secret_corpus import PLACES
from secret_kinds import KINDS_FIRST

from prime_nb.redact import _disguise, redact

TOKEN = "Zq8vR2mXk4LpT7wN9yB3cF6hJ1dG5sAe"  # 32 random letters and digits
PASSWORD = "Vuka-Tebo7391"

#: (what it shows, the text, the secret that must go)
SECRETS = [
    ("cyrillic token", homoglyphs(f"ghp_{TOKEN}abcd"), homoglyphs(TOKEN)),
    ("cyrillic key name", homoglyphs("DB_PASSWORD") + f"={PASSWORD}", PASSWORD),
    ("greek aws id", homoglyphs("AKIA") + "Q7RZ4XWM2KD9PLTB", "Q7RZ4XWM2KD9PLTB"),
    ("bidi controls", bidi_split(f"API_TOKEN={TOKEN}"), TOKEN[8:12]),
    ("soft hyphens", soft_hyphens(f"API_TOKEN={TOKEN}"), TOKEN[10:15]),
    ("shell continuation", shell_continued(f"curl -H 'X-Api-Key: {TOKEN}' x"), TOKEN[:8]),
    ("double percent", "GET /cb?next=" + double_percent(f"password={PASSWORD}"), "Vuka"),
    ("base64 twice", "blob: " + base64_twice(f"DB_PASSWORD={PASSWORD}"), PASSWORD),
    ("python implicit", f'API_KEY = (\n    "{TOKEN[:16]}"\n    "{TOKEN[16:]}"\n)', TOKEN[:16]),
    ("f-string", f'token = f"{{\'{TOKEN[:16]}\'}}" f"{TOKEN[16:]}"', TOKEN[16:]),
    ("join", f'SECRET = "".join(["{TOKEN[:16]}", "{TOKEN[16:]}"])', TOKEN[16:]),
    ("template", f"const key = `${{'{TOKEN[:16]}'}}{TOKEN[16:]}`;", TOKEN[16:]),
    ("shell quotes", f'export API_TOKEN="{TOKEN[:16]}""{TOKEN[16:]}"', TOKEN[:16]),
    ("c literals", f'static const char *api_key = "{TOKEN[:16]}" "{TOKEN[16:]}";', TOKEN[:16]),
    ("json escaped key", '{"\\u0061pi_\\u006bey": "' + TOKEN + '"}', TOKEN),
    (
        "hex escaped cyrillic",
        "".join(f"\\x{b:02x}" for b in homoglyphs("password=" + PASSWORD).encode()),
        None,
    ),
    ("printed", f"$ security find-generic-password -s ci -w\n{PASSWORD}", PASSWORD),
    ("process substitution", f"ldapwhoami -D uid=ci -y <(echo -n {PASSWORD})", PASSWORD),
    ("add-mask", f'echo "::add-mask::{TOKEN}"', TOKEN),
    ("sensitive", json.dumps({"value": TOKEN, "sensitive": True}), TOKEN),
    (
        "wordpress salt",
        "define( 'AUTH_SALT', 'k|,;:!@#%^&*()-_+=[]<>~Zq8vR2' );",
        "k|,;:!@#%^&*()-_+=[]<>~Zq8vR2",
    ),
    ("refresh token", f"saved 1//0g{TOKEN}{TOKEN} on disk", TOKEN),
    ("curl cookie", f"curl -b 'session={TOKEN}; theme=dark' https://x", TOKEN),
    ("session header", f"          x-session: {TOKEN}", TOKEN),
    ("random export", f'export SENDGRID="{TOKEN}" # mail', TOKEN),
    ("named api", f"heroku config:set HEROKU_API={TOKEN}", TOKEN),
    ("django key", "SECRET_KEY = 'django-insecure-8-6c-m2ha!muv=k3_byka)'", "8-6c-m2ha!muv"),
    ("hex token", "the log showed fc-1f1f0587199dfcfff93682f2ccff0cc8 twice", "1f1f0587199d"),
    ("mysql cut quote", f"mysql -uroot -p'{PASSWORD[:8]}\n[output truncated]", PASSWORD[:8]),
]

#: look-alikes beside the detectors: none may change
KEPT = [
    "export GIT_SHA=4f2a9c7e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a",
    "export SENDGRID_ENABLED=true",
    "commit-4f2a9c7e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a merged",
    "layer sha256-4b3f1d8a0c6e2f9b7d5a3c1e8f0b2d4a6c8e0f1a3b5d7f9e1c3a5b7d9f1e3a5c",
    "theme: dark; x-session-timeout: 3600",
    "curl -b 'theme=dark; lang=en' https://x",
    "define( 'AUTH_KEY', 'put your unique phrase here' );",
    "DB_PASSWORD=${DB_PASSWORD:?must be set}",
    "password = data.aws_secretsmanager_secret_version.db.secret_string",
    "db_password: vault:secret/data/prod/db#password",
    'print("Hello, " "world")',
    "The class \u0421lient (with a Cyrillic \u0421) is a typo.",
]


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    folder = tmp_path_factory.mktemp("red3")
    head = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}
    lines = [json.dumps(head)]
    texts = [text for _, text, _ in SECRETS] + KEPT + ["AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE"]
    for n, text in enumerate(texts):
        message = {"role": "user", "content": text, "timestamp": 0}
        entry = {"type": "message", "id": f"e{n}", "parentId": None, "message": message}
        lines.append(json.dumps(entry, ensure_ascii=False))
    source = folder / "s.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out, _ = redact(source, folder / "out.jsonl", hostnames=[])
    assert out is not None
    return [json.loads(line)["message"]["content"] for line in out.read_text().splitlines()[1:]]


def test_the_attack_set_holds_what_no_list_did() -> None:
    import random

    older = {make(random.Random(0)).kind for make in [*KINDS_FIRST, *KINDS_MORE, *KINDS_RED]}
    new = {make(random.Random(0)).kind for make in KINDS_RED3}
    assert len(new) >= 40 and not new & older
    assert len(LOOKALIKES_RED3) >= 40
    assert set(ENCODINGS_RED3) | set(STRUCTURE_RED3) <= set(PLACES)


@pytest.mark.parametrize(("what", "index"), [(s[0], i) for i, s in enumerate(SECRETS)])
def test_each_new_shape_is_replaced(shared: list[str], what: str, index: int) -> None:
    _, text, secret = SECRETS[index]
    after = shared[index]
    assert after != text, what
    if secret is not None:
        assert secret not in after, (what, after)


@pytest.mark.parametrize("text", KEPT)
def test_look_alikes_beside_them_stay(shared: list[str], text: str) -> None:
    assert shared[len(SECRETS) + KEPT.index(text)] == text


def test_a_documented_example_key_is_replaced(shared: list[str]) -> None:
    """Decided: AWS's documented example key is replaced like any key. Telling it apart
    would mean a list of documentation's keys, and a key ending in EXAMPLE is cheap to
    fake; the copy loses nothing a reader needs."""
    assert "AKIAIOSFODNN7EXAMPLE" not in shared[-1]


def test_a_view_keeps_every_position() -> None:
    """What is found in a view is replaced where it was written, the disguise with it."""
    text = "key " + homoglyphs("ghp_") + "abc"
    views = list(_disguise.views(text))
    assert views[0][0] == "key ghp_abc"
    view, origin = next(_disguise.views('x = "abcd" "efgh" + 1'))
    assert view == 'x = "abcdefgh" + 1'
    assert (origin.start(5), origin.start(9), origin.end(12)) == (5, 12, 16)  # "a", "e", "h"
    assert list(_disguise.views('print("a" "b")')) == []  # short literals join nothing


def test_percent_twice_and_utf8_escapes_read_whole(tmp_path: Path) -> None:
    (view, _), *_ = _disguise.views("%25D0%25B0bc")
    assert view == "\u0430bc"
    (view, _), *_ = _disguise.views("\\xd0\\xb0bc \\x41\\x42")
    assert view == "\u0430bc AB"
