"""Redaction's peak memory for a long text under a secret's key and under a pair's
``value``, and the pair's value read narrowed with the same answer as read whole.

A long text under a secret's key (a tool's output pasted under ``api_key``) is replaced
whole, but first asked whether it holds no secret (``structural_stand_in``) and whether
it is random enough to be known file-wide (``strongly_random``). Those asked a long
text's lower case (twelve bytes a character while it works, for a text that is not
ASCII), copied its rest after a space, listed its parts, and matched a placeholder's
words with a lazy repeat that keeps a record per word: many times the line at once. With
an emoji in it, the text was made whole (four bytes a character) to be replaced: under a
password's or token's key it is now narrowed and replaced whole from its ends and its
digest (``_long_secret.py``). The corpora's secrets, and texts whose ends tell (or do
not tell) that they hold no secret, under secrets' keys redact both ways to the same
file, report and suspects; a stand-in's ends not read, or a ``key`` class's value
narrowed, make them differ.

A pair's ``value`` (``{"name": ..., "value": ...}``) was read as it is, never narrowed
(``_narrow.py``): a long text of it with emoji or symbols was four (or two) bytes a
character as one ``str``, and written anew whole beside a short secret. A pair's plan
reads its value only where its name names a secret (``_values.named_pair``); where none
does, the value is read only through the finders, as any text, and narrowed. The session
tests redact the corpora's secrets under a pair's value both ways (narrowed and not, the
lines read as trees and as streams): the same file, report and suspects; a pair whose
name names a secret narrowed too makes them differ (the oracle can fail).

Each shape's growth per byte of line is measured by ``test_redact_memory.measure`` (one
child process for all of them).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from test_narrowed_text import _texts, _walked, redacted_both_ways, streamed, tiny  # noqa: F401
from test_redact_memory import assert_grew_at_most, measure

from prime_nb.redact import (
    _apart,
    _findings,
    _json_bytes,
    _long_scrub,
    _long_secret,
    _scrub,
    _stream,
    _values,
)
from prime_nb.redact._narrow import LongText, Narrowed

WORDS = "the deploy failed again so I read the logs password=hunter2xyz and retried "

#: (the key, the character among every 50 of ASCII words) of each shape
SHAPES = {
    "Latin-1 letters under a secret's key": ("api_key", "é"),
    "emoji under a secret's key": ("api_key", "😀"),
    "emoji under a pair's value": ("value", "😀"),
}


def _line(shape: str, size: int) -> str:
    """A custom entry whose ``data`` holds the shape's long text under its key, beside a
    short secret (the line is written anew)."""
    key, char = SHAPES[shape]
    unit = WORDS[:50] + char
    text = unit * (size // len(unit.encode()) + 1)
    data = {key: text, "n": "password=Zq8vN2xL5pT7"}
    entry = {"type": "custom", "id": "c1", "parentId": None, "customType": "x", "data": data}
    return json.dumps(entry, ensure_ascii=False)


@pytest.fixture(scope="module")
def peaks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, float]]:
    return measure(tmp_path_factory.mktemp("secret-keys"), list(SHAPES), line=_line)


@pytest.mark.parametrize("shape", SHAPES)
def test_a_long_text_under_a_secret_key_or_a_pair_value_stays_within_three_times_the_line(
    peaks: dict[str, dict[str, float]], shape: str
) -> None:
    assert_grew_at_most(peaks, shape, 3.0)


# -- a pair's value read narrowed ----------------------------------------------------------

#: names of pairs: none names a secret (``x-request-id``; none at all), one does
#: (``X-Api-Key``: its value is read as it is)
PAIRS: tuple[dict[str, str], ...] = (
    {"name": "X-Request-Id"},
    {"header": "Accept"},
    {},
    {"name": "X-Api-Key"},
)


def _pairs(texts: list[str]) -> list[dict[str, Any]]:
    """A custom entry for each text, under a pair's value, beside a short secret."""
    return [
        {
            "type": "custom",
            "id": f"p{i}",
            "parentId": None,
            "customType": "x",
            "data": {**PAIRS[i % len(PAIRS)], "value": text, "n": "password=Zq8vN2xL5pT7"},
        }
        for i, text in enumerate(texts)
    ]


@pytest.mark.parametrize("walk", ["tree", "stream"])
def test_a_pair_value_read_narrowed_is_redacted_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest, walk: str
) -> None:
    """The corpora's secrets (every twelfth text of ``test_narrowed_text``'s) under a
    pair's value: read narrowed where no name names a secret, the same file and report."""
    _walked(request, monkeypatch, walk)
    made = _counted_long_texts(monkeypatch)
    texts = _texts()[::12]
    narrowed, before, _ = redacted_both_ways(tmp_path, monkeypatch, _pairs(texts))
    assert made[0] >= len(texts) // 2  # three pairs in four read narrowed (twice)
    assert narrowed == before


def _counted_long_texts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many narrowed texts the walk is given to read (``LongText``), tree or stream."""
    made = [0]

    def counted(source: Narrowed) -> LongText:
        made[0] += 1
        return LongText(source)

    monkeypatch.setattr(_apart, "LongText", counted)
    monkeypatch.setattr(_stream, "LongText", counted)
    return made


#: a cache key's value: a mask as it is (no pair's secret), a credential once its bullets
#: are narrowed (and no mask a secret's key keeps: it has ``_`` in it)
MASK = "xxxx_xxxx\u2022" * 8


def test_the_oracle_fails_when_a_secret_pair_value_is_narrowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    _walked(request, monkeypatch, "tree")
    monkeypatch.setattr(_json_bytes, "names_a_secret", lambda _obj: False)
    entry = _pairs([MASK])[0]
    entry["data"]["name"] = "X-Cache-Key"
    narrowed, before, count = redacted_both_ways(tmp_path, monkeypatch, [entry])
    assert count
    assert narrowed != before


# -- a secret's long value replaced narrowed --------------------------------------------

#: texts under a secret's key whose ends tell, or do not tell, that they hold no secret
#: (a mask, a reference, a path, a scheme's credential, a template), each with an emoji
ENDS = [
    "[REDACTED] 😀 it\u2019s here 😀 and more words",
    "<your token 😀 goes here, it\u2019s long>",
    "{{ vault 😀 \u2014 lookup of the secret }}",
    "%APPDATA 😀 \u2014 of the user%",
    "$HOME/😀/it\u2019s/a/long/path",
    "/srv/app/😀/it\u2019s/a/long/path",
    "C:\\Users\\😀\\it\u2019s",
    "Bearer 😀\u2014Zq8vN2xL5pT7wR3k",
    "xxxxxxxxx\u2022xxxxxxxxx\u2022xxxxxxxxx\u2022",
    "  \n  padded 😀 secret \u2014 Zq8vN2xL5pT7  \n",
    # letters narrowed one for one (``_narrow.letter_pair``) at the ends, with a mark
    "[REDACTED] λόγος \u200b Λ it\u2019s here and more words",
    "<ваш токен \u200b goes here, it\u2019s long>",
    "Bearer ΛλЖж\u2014Zq8vN2xL5pT7wR3k",
    "\u0396q8v\u039d2xL5p\u03a47wR3kλ words after the secret \u200b ж",
]


def _secrets(texts: list[str]) -> list[dict[str, Any]]:
    """A custom entry for each text under a secret's key: a token's, a password's, a
    list's item under a token's key, a ``key`` class's (read whole), beside a short
    secret."""
    entries = []
    for i, text in enumerate(texts):
        value: Any = [text] if i % 4 == 2 else text
        key = ("api_key", "password", "token", "LARAVEL_APP_KEY")[i % 4]
        data = {key: value, "n": "password=Zq8vN2xL5pT7"}
        entries.append({"type": "custom", "id": f"k{i}", "customType": "x", "data": data})
    return entries


def _replaced(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A value known by a digest past 16 characters (so that the corpus's secrets are
    long values); how many texts were replaced (or kept) narrowed."""
    monkeypatch.setattr(_findings, "WIDE_MAX", 16)
    monkeypatch.setattr(_scrub, "WIDE_MAX", 16)
    done = [0]
    real = _long_secret.replaced_whole

    def counted(*args: Any) -> str | None:
        new = real(*args)
        done[0] += new is not None
        return new

    monkeypatch.setattr(_long_scrub, "replaced_whole", counted)
    return done


@pytest.mark.parametrize("walk", ["tree", "stream"])
def test_a_secret_value_replaced_narrowed_is_redacted_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest, walk: str
) -> None:
    """The corpora's secrets and texts whose ends tell (or not) under secrets' keys:
    replaced (or kept) narrowed, the same file, report and suspects."""
    _walked(request, monkeypatch, walk)
    done = _replaced(monkeypatch)
    texts = _texts()[::8] + ENDS
    narrowed, before, _ = redacted_both_ways(tmp_path, monkeypatch, _secrets(texts))
    assert done[0] >= len(texts) // 3
    assert narrowed == before


#: (how a guard is dropped, the texts that then differ)
SECRET_BREAKAGES: dict[str, tuple[Any, list[str]]] = {
    "a stand-in's ends not read": (
        lambda mp: mp.setattr(_long_secret, "structural_stand_in_by_ends", lambda *_: False),
        ENDS[:1],
    ),
    "a key class's value narrowed": (
        lambda mp: mp.setattr(_apart, "narrowed_under", lambda *_: True),
        ["", "", "", MASK],
    ),
}


@pytest.mark.parametrize("breakage", SECRET_BREAKAGES)
def test_the_secret_oracle_fails_on_each_breakage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest, breakage: str
) -> None:
    _walked(request, monkeypatch, "tree")
    _replaced(monkeypatch)
    drop, texts = SECRET_BREAKAGES[breakage]
    drop(monkeypatch)
    narrowed, before, _ = redacted_both_ways(tmp_path, monkeypatch, _secrets(texts))
    assert narrowed != before, breakage


def test_a_stand_in_told_by_its_ends_is_told_as_by_the_whole_text() -> None:
    """``structural_stand_in_by_ends`` answers as ``structural_stand_in`` of the whole
    text wherever it answers, over texts made of heads, middles and tails that tell (or
    would tell) a stand-in."""
    heads = ["[REDACTED", "[WITHHELD", "<", "{{", "%", "$", "/", "~", "./", "../", "C:\\", "c:/"]
    heads += ["Bearer ", "basic ", "token  ", "x", "*", "\u2022", "-", ".", " ", "\n", "a", "😀"]
    middles = ["", "xxxxxxxxxxxxxxxxxx", "a b c d e f g h i j", "*-*-*-*-*-*-*-*-*-", "😀" * 18]
    tails = ["", "}}", "%", ">", " ", "\n", "x", "😀", "}"]
    r = random.Random(5)
    answered = told = 0
    for _ in range(20_000):
        text = "".join(r.choice(heads) for _ in range(r.randint(0, 3)))
        text += r.choice(middles) + "".join(r.choice(tails) for _ in range(r.randint(0, 2)))
        core = text.strip()
        if len(core) <= _values.ENDS_READ:
            continue
        by_ends = _values.structural_stand_in_by_ends(core[: _values.ENDS_READ], core[-2:])
        if by_ends is not None:
            assert by_ends == _values.structural_stand_in(text), repr(text)
            answered += 1
            told += by_ends
    assert answered > 5_000
    assert told > 500


# -- a placeholder's words read possessively -----------------------------------------------


def test_a_placeholder_is_told_as_the_lazy_pattern_tells_it() -> None:
    """The possessive repeat of a placeholder's words answers as the lazy one did (which
    kept a record per word), over texts of its words, separators and others."""
    lazy = re.compile(_values._STAND_IN.pattern.replace(r"[-_ ])*+", r"[-_ ])*?"))
    assert lazy.pattern != _values._STAND_IN.pattern
    atoms = ["your", "The", "my", "key", "pass", "word", "s", "_", "-", " ", "\n", "a", "é", "="]
    r = random.Random(7)
    texts = ["".join(r.choice(atoms) for _ in range(r.randint(1, 8))) for _ in range(20_000)]
    told = [t for t in texts if lazy.match(t)]
    assert len(told) > 20
    assert [t for t in texts if _values._STAND_IN.match(t)] == told
