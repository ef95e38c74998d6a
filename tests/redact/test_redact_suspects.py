"""What no rule finds but still looks like a secret is a suspect: listed with what it is
(never its value) and kept as written, as issue 43 asks. The kinds no rule finds
(``STILL_SURVIVE`` of the fifth list) are planted in every place the corpora know, as
written, encoded and disguised; each placement that survives must raise its suspect, no
look-alike may raise one of the new kinds, and none may raise in a decoded view a kind
it does not raise as written."""

from __future__ import annotations

import base64
import json
import random
import string
import urllib.parse
from collections.abc import Callable
from pathlib import Path

import pytest
from leak_check import LeakIndex
from more_secrets import LOOKALIKES
from redteam3_secrets import ENCODINGS_RED3, LOOKALIKES_RED3
from redteam5_places import ENCODINGS_RED5
from redteam5_secrets import KINDS_RED5, LOOKALIKES_RED5
from redteam_secrets import ENCODINGS, LOOKALIKES_MORE
from research_lookalikes import LOOKALIKES_RESEARCH
from secret_corpus import PLACES, _Session
from test_redact_redteam5 import (
    BENIGN,
    NEW_PLACES,
    READ_BACK,
    STILL_SURVIVE,
    Attack,
    _plant,
    _strings,
    _write,
    survivors,
)

from prime_nb.redact import Redaction, redact
from prime_nb.redact import _suspects as suspects_module
from prime_nb.redact._rules import default_rules
from prime_nb.redact._scrub import Scrubber
from prime_nb.redact._suspects import suspects, suspects_of_pieces
from prime_nb.redact._view_suspects import ViewSuspects, kept, reason_kind

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
#: every place the corpora know: those above, and the encoded and disguised ones
EVERY_PLACE = [*PLACES, *NEW_PLACES]
#: placements that survive and are no suspect, and why (the docs say so too)
NO_SUSPECT = {
    "table-wrapped/askpass-script": "a wrapped table's cells, read joined, lose the line "
    "break between the askpass script's name and its echo",
}


def test_every_kind_no_rule_finds_has_its_reason() -> None:
    assert set(REASONS) == set(STILL_SURVIVE)


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Attack, Redaction]:
    """Each kind no rule finds in every place, redacted once."""
    r = random.Random(43)
    attack, session = Attack(tmp_path_factory.mktemp("suspects") / "s.jsonl"), _Session()
    for make in KINDS_RED5:
        if make(random.Random(0)).kind in REASONS:
            for place in EVERY_PLACE:
                _plant(attack, session, place, make, r)
    _write(attack, session, [])
    return attack, redact(attack.path, attack.path.with_name("out.jsonl"), hostnames=[])


def _with_reason(attack: Attack, result: Redaction) -> list[bool]:
    """Whether each placement's line has a suspect with its kind's reason."""
    reasons: dict[int, list[str]] = {}
    for line, reason in zip(result.suspects["line"], result.suspects["reason"], strict=True):
        reasons.setdefault(int(line), []).append(str(reason))
    return [
        any(REASONS[kind] in why for why in reasons.get(line, []))
        for _, kind, _, line in attack.planted
    ]


def _left_in_place(attack: Attack, text: str, which: list[int]) -> list[str]:
    """``place/kind`` of each placement of ``which`` that its own line still shows, as
    written or decoded (as :func:`survivors` reads a file, a line at a time: pieces of
    one placement's password may show in another's line)."""
    lines = text.split("\n")
    planted = [(f"{p}/{k}", item.whole, item.random) for p, k, item, _ in attack.planted]
    index = LeakIndex.build(planted, BENIGN)
    left = []
    for place, kind, _, line in (attack.planted[i] for i in which):
        shown = lines[line - 1]
        if place in READ_BACK:
            strings = _strings(json.loads(shown))
            shown += "\n" + "\n".join(READ_BACK[place](s) for s in strings)
        if any(f.startswith(f"{place}/{kind}:") for f in index.leaks(shown)):
            left.append(f"{place}/{kind}")
    return left


def test_each_survivor_is_a_suspect_that_says_what_it_is(
    planted: tuple[Attack, Redaction],
) -> None:
    """In every place, encoded and disguised ones too (the suspects are read in the
    views the rules decode): each placement is a suspect with its reason, or no longer
    shows in its line (a rule replaced it), or is one of ``NO_SUSPECT``."""
    attack, result = planted
    assert result.path is not None
    found = _with_reason(attack, result)
    others = [i for i, yes in enumerate(found) if not yes]
    left = _left_in_place(attack, result.path.read_text("utf-8"), others)
    assert sorted(left) == sorted(NO_SUSPECT)
    assert sum(found) > 0.9 * len(found) and len(found) == len(REASONS) * len(EVERY_PLACE)


def test_a_suspect_is_kept_and_never_shown(planted: tuple[Attack, Redaction]) -> None:
    attack, result = planted
    assert result.path is not None
    text = result.path.read_text("utf-8")
    for (place, kind, item, _), yes in zip(
        attack.planted, _with_reason(attack, result), strict=True
    ):
        if yes and place in SHOWN and kind != "discord-bot-token":  # its rule leaves its end
            assert any(part[:12] in text for part in item.random), (place, kind)
    assert survivors(attack, result.suspects.to_csv() + result.report.to_csv()) == []


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


#: every way the corpora encode or disguise a text (the corpus's own encoded places too)
ENCODED: dict[str, Callable[[str], str]] = {
    **ENCODINGS,
    **ENCODINGS_RED3,
    **ENCODINGS_RED5,
    "url-encoded": lambda t: "GET /cb?next=" + urllib.parse.quote(t, safe="") + " 302",
    "hex-encoded": lambda t: "$ xxd -p note.bin\n" + t.encode().hex(),
    "base32": lambda t: base64.b32encode(t.encode()).decode(),
    "base64url": lambda t: base64.urlsafe_b64encode(t.encode()).decode().rstrip("="),
}


def test_a_look_alike_raises_in_a_view_only_what_it_raises_as_written() -> None:
    """Each look-alike in four of the encodings (every encoding in turn): what its
    views raise is of a kind it raises as written (a random token after a secret's
    word: six of them), so that encoding a look-alike lists nothing new. Of the
    look-alikes in every place the corpora know, 263 suspects as written become 421:
    those six, now in the encoded places too."""
    texts = [
        *LOOKALIKES,
        *LOOKALIKES_MORE,
        *LOOKALIKES_RED3,
        *LOOKALIKES_RED5,
        *LOOKALIKES_RESEARCH,
    ]
    scrubber = Scrubber(default_rules([]))
    encodings = list(ENCODED.values())
    raised, new = 0, []
    for n, text in enumerate(texts):
        written = {reason_kind(why) for why in suspects(text)}
        for k in range(4):
            encoded = encodings[(4 * n + k) % len(encodings)](text)
            note = ViewSuspects(encoded)
            scrubber.spans(encoded, note)
            raised += len(note.found)
            new += [(text, why) for _, _, why in note.found if reason_kind(why) not in written]
    assert new == []
    assert raised > 0  # the six are raised in their views: the views are read


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


def test_a_view_suspect_goes_only_with_a_cut_over_all_of_it() -> None:
    """A replacement over part of a blob (a line of wrapped base64) leaves the blob's
    suspect listed; one over all of it takes it."""
    found = [(10, 50, "in a blob"), (60, 70, "disguised")]
    assert list(kept(found, [(0, 5, "[x]"), (20, 30, "[y]")])) == ["in a blob", "disguised"]
    assert list(kept(found, [(8, 52, "[x]"), (65, 80, "[y]")])) == ["disguised"]
    assert list(kept(found, [(60, 70, "[y]")])) == ["in a blob"]


def test_a_token_in_many_views_is_one_suspect() -> None:
    """Base64 wrapped at 76, a token is in the run decoded whole and in a line decoded
    alone: one suspect; percent-encoded twice, one too. Written as it is beside
    look-alike letters, it is in the text and in the view that folds them: the text's
    suspect alone."""
    r = random.Random(7)
    token = "".join(r.choice(string.ascii_letters + string.digits) for _ in range(32))
    keyed = f'{{"tokens": {{"{token}": {{"scopes": ["repo"]}}}}}}'
    twice = urllib.parse.quote(urllib.parse.quote(keyed, safe=""), safe="")
    wrapped = base64.encodebytes(f"config {keyed} from the vault".encode()).decode()
    scrubber = Scrubber(default_rules([]))
    for text in (f"$ base64 .env\n{wrapped}", f"GET /cb?next={twice} 302"):
        note = ViewSuspects(text)
        scrubber.spans(text, note)
        assert [why for *_, why in note.found] == ["random object key"], text
    written = "\u0441lient config " + keyed  # a Cyrillic letter in a word before it
    note = ViewSuspects(written)
    scrubber.spans(written, note)
    assert note.found == [] and list(suspects(written)) == ["random object key"]
