"""What no rule finds but still looks like a secret is a suspect: listed with what it is
(never its value) and kept as written, as issue 43 asks. The kinds no rule finds
(``STILL_SURVIVE`` of the fifth list) are planted in the places where a text shows them
as written; each placement must raise its suspect, and no look-alike may raise one of
the new kinds."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from more_secrets import LOOKALIKES
from redteam3_secrets import LOOKALIKES_RED3
from redteam5_secrets import KINDS_RED5, LOOKALIKES_RED5
from redteam_secrets import LOOKALIKES_MORE
from research_lookalikes import LOOKALIKES_RESEARCH
from secret_corpus import PLACES, _Session
from secret_kinds import Planted
from test_redact_redteam5 import STILL_SURVIVE

from prime_nb.redact import Redaction, redact
from prime_nb.redact import _suspects as suspects_module
from prime_nb.redact._suspects import suspects, suspects_of_pieces

#: what each kind no rule finds is said to be
REASONS = {
    "razorpay-auth-tuple": "given by position to a call",
    "twilio-client-positional": "given by position to a call",
    "ably-key": "given by position to a call",
    "discord-bot-token": "left after a replacement",
    "hardhat-accounts-key": "in a list of accounts",
    "composer-github-oauth": "under a host name",
    "object-key-token": "random object key",
    "flask-session-cookie": "after 'session'",
    "msa-refresh-token": "a Microsoft account token",
    "nostr-nsec": "a Nostr secret key",
    "plaid-access-token": "a Plaid token",
    "askpass-script": "what an askpass script prints",
    "gitlab-variable-form": "in --form fields",
}
#: places that show a text as written, or JSON-escaped, or as a diff's added lines
SHOWN = (
    "user-text",
    "tool-result",
    "bash-output",
    "markdown-fence",
    "tool-arguments",
    "json-escaped",
    "diff-hunk",
)


def test_every_kind_no_rule_finds_has_its_reason() -> None:
    assert set(REASONS) == set(STILL_SURVIVE)


@pytest.fixture(scope="module")
def planted(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[list[tuple[str, Planted, int]], Redaction]:
    r = random.Random(43)
    session, placed = _Session(), []
    for make in KINDS_RED5:
        if make(random.Random(0)).kind in REASONS:
            for place in SHOWN:
                item = make(r)
                placed.append((place, item, PLACES[place](session, item.snippet) + 1))
    folder = tmp_path_factory.mktemp("suspects")
    head = '{"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}'
    (folder / "s.jsonl").write_text("\n".join([head, *session.lines]) + "\n", encoding="utf-8")
    return placed, redact(folder / "s.jsonl", folder / "out.jsonl", hostnames=[])


def test_each_survivor_is_a_suspect_that_says_what_it_is(
    planted: tuple[list[tuple[str, Planted, int]], Redaction],
) -> None:
    placed, result = planted
    reasons: dict[int, list[str]] = {}
    for line, reason in zip(result.suspects["line"], result.suspects["reason"], strict=True):
        reasons.setdefault(int(line), []).append(str(reason))
    missing = [
        f"{place}/{item.kind}"
        for place, item, line in placed
        if not any(REASONS[item.kind] in why for why in reasons.get(line, []))
    ]
    assert missing == [], missing
    assert len(placed) == len(REASONS) * len(SHOWN)


def test_a_suspect_is_kept_and_never_shown(
    planted: tuple[list[tuple[str, Planted, int]], Redaction],
) -> None:
    placed, result = planted
    assert result.path is not None
    text = result.path.read_text("utf-8")
    shown = result.suspects.to_csv() + result.report.to_csv()
    for place, item, _ in placed:
        if item.kind != "discord-bot-token":  # its rule replaces all but its end
            assert any(part[:12] in text for part in item.random), (place, item.kind)
        assert not any(part[:12] in shown for part in item.random), (place, item.kind)


def test_no_look_alike_raises_a_new_kind_of_suspect() -> None:
    """The look-alikes raise today's suspects (a random token after a secret's word) and
    no other: ids, digests, public keys and research data stay unlisted."""
    texts = [
        *LOOKALIKES,
        *LOOKALIKES_MORE,
        *LOOKALIKES_RED3,
        *LOOKALIKES_RED5,
        *LOOKALIKES_RESEARCH,
    ]
    raised = [
        (text, why) for text in texts for why in suspects(text) if "characters after" not in why
    ]
    assert raised == []


def _snippets() -> list[str]:
    return [
        make(random.Random(n)).snippet
        for n in range(3)
        for make in KINDS_RED5
        if make(random.Random(0)).kind in REASONS
    ]


def test_a_long_text_read_in_windows_finds_what_the_whole_finds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Windows cut anywhere (a token across a cut, a call's context before a window's
    start) find what a reading of the whole finds, in the same order."""
    r = random.Random(2)
    snippets = _snippets()
    filler = ["lorem ipsum ", "x" * 30, '"', "'", ",", "(", "\n", " " * 40, "token "]
    found = 0
    for _ in range(12):
        parts = [r.choice(snippets) if r.random() < 0.3 else r.choice(filler) for _ in range(150)]
        text = "".join(parts)
        want = list(suspects(text))
        found += len(want)
        cuts = sorted(r.randint(0, len(text)) for _ in range(r.randint(0, 40)))
        pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        monkeypatch.setattr(suspects_module, "WINDOW", r.choice([1, 700, 1500]))
        assert list(suspects_of_pieces(pieces)) == want
        assert list(suspects_of_pieces(lambda p=pieces: iter(p))) == want
    assert found > 100


def test_the_shapes_need_randomness(tmp_path: Path) -> None:
    """A quoted word, a hex digest or a UUID in the same places is no suspect."""
    kept = [
        'Client("my-application-name-here", "another-plain-words-value")',
        'repo.commit("3f786850e387550fdab836ed7e6dc881de23001b")',
        'uuid.UUID("74bf20f8-76ff-4474-a025-1908fcdce4b3")',
        '{"github.com": "https://api.github.com/repos"}',
        '{"node_modules/left-pad": {"version": "1.3.0"}}',
        "access-production-ready checklist",
    ]
    assert [why for text in kept for why in suspects(text)] == []
