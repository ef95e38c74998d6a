"""A changed long key is written a piece at a time and redacted as before: the same file,
report and suspects.

The code before is the oracle, kept here: a key over 64K characters scrubbed as any
short key, its new name built whole (``Scrubber._key`` passing its spans as a list of
``Span`` and no ``pieces``), and a name's class read from its whole lower case without
separators (``_values._key_class``). The long keys hold secrets at their ends and across
the 64K-character pieces they are written in, escapes, wide characters, two in one
object among short keys, one equal to a value known under a secret's key, some under a
secret's key with values of every kind under them (reported at paths through the key
abbreviated, read from its new text's pieces, where the oracle abbreviates the new name
built whole; one through two long keys), one whose new name is another key of its object
(renamed apart), one whose new name is short, one in a line walked as a stream, and names
ending in a secret's words, a qualifier and a secret's id. Breakage checks: with the
renaming left out, the file differs from the oracle's; with the keys abbreviated from
their old text, the report does.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from secret_corpus import plant

from prime_nb.redact import Redaction, _entry_fields, redact
from prime_nb.redact._entry_fields import abbreviated
from prime_nb.redact._pending import LONG_TEXT, PIECE, PendingTexts
from prime_nb.redact._scrub import Hits, Scrubber
from prime_nb.redact._span_list import held

_values = sys.modules["prime_nb.redact._values"]
_scrub = sys.modules["prime_nb.redact._scrub"]

HEAD = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}
WORDS = "the deploy failed again so I read the logs and retried it twice over "
#: how a long key ends: its last words decide its class (none but a secret's id)
ENDINGS = ["", " secret id", "_password_length", " DB_PASSWORD"]


def _snippets() -> list[str]:
    kinds: dict[str, str] = {}
    for _, item in plant():
        kinds.setdefault(item.kind, item.snippet)
    return list(kinds.values())


SNIPPETS = _snippets()


def _long(size: int, every: int = 2_000, at: int = 0, extra: str = "") -> str:
    """Words of about ``size`` characters with a secret of the corpus every ``every``
    (from the ``at``-th kind) and ``extra`` between the words."""
    out: list[str] = []
    length, i = 0, at
    while length < size:
        run = (WORDS + extra) * (every // len(WORDS + extra) + 1)
        piece = run[:every] + " " + SNIPPETS[i % len(SNIPPETS)] + " "
        out.append(piece)
        length += len(piece)
        i += 1
    return "".join(out)


def _across(size: int, secret: str) -> str:
    """A key of ``size`` characters with ``secret`` across each 64K-character piece."""
    text = list(_long(size, every=5_000))
    for cut in range(PIECE, size, PIECE):
        start = cut - len(secret) // 2
        text[start : start + len(secret)] = secret
    return "".join(text)


def _entry(i: int, content: object) -> str:
    message = {"role": "user", "content": content, "timestamp": 0}
    entry = {"type": "message", "id": f"m{i}", "parentId": None, "timestamp": "2026"}
    return json.dumps({**entry, "message": message}, ensure_ascii=False)


def _contents(renamed: str, first: str) -> list[object]:
    size = LONG_TEXT + 4_000
    known = "password=Hq1vN2xL5pZ " + _long(size, at=3) + ENDINGS[1]
    block = SNIPPETS[16]  # a private key's block: the new name is under 64K characters
    short_new = (WORDS * 1_000)[: LONG_TEXT + 100 - len(block)] + block
    many = {f"k{i}": i for i in range(14_000)}  # a line walked as a stream
    escapes = '"quoted" back\\slash\nnew\tline \x01 \u2028 '
    wide = _long(size, at=5, extra=escapes + "λόγος 中文 😀 İ \u2019 ")
    return [
        _collided(renamed, first),
        {"api_key": known},
        {"a": 1, known: [1], "m": 3, wide: "password=Zq8vN2xL5p", "z": 4},
        {_across(PIECE + 3_000, "password=Zq8vN2xL5pT7rWk3J9mB") + ENDINGS[3]: "plain"},
        {"api_key": {_long(size, at=11) + ENDINGS[2]: 1}},
        *_under_a_secret(),
        {short_new: 1},
        {**many, _long(size, at=13): 1},
    ]


def _under_a_secret_key(at: int) -> str:
    return _long(LONG_TEXT + 4_000, every=9_000, at=at)


def _under_a_secret() -> list[object]:
    """Values of every kind under long keys under a secret's key, each reported at a path
    through its key's new text (one through two long keys); and a list past 256 values
    there (the secret's whole object one placeholder: no long key names a secret whose
    list is one)."""
    keys = [_under_a_secret_key(at) for at in range(17, 22)]
    inner = {"o": {"x": [1, 2.5]}, "n": None, keys[3]: "token"}
    return [
        {"api_key": {keys[0]: "a plain value", keys[1]: [1, "two", None, True], keys[2]: inner}},
        {"api_key": {keys[4]: list(range(300))}},
    ]


def _collided(renamed: str, first: str) -> dict[str, int]:
    """A long key whose new name is another key of its object, and so is that name with
    ``#2`` after it: it is renamed with ``#3``."""
    return {first: 1, renamed: 2, renamed + "#2": 3}


def _old_key(self: Scrubber, key: str, path: str, hits: Hits | None) -> str:
    """``Scrubber._key`` before: a long key's new name built whole."""
    spans = self._key_spans.get(key)
    if spans is None:
        spans = held(self.spans(key))
        if len(key) <= 200 and len(self._key_spans) < _scrub._KEYS_KEPT:
            self._key_spans[key] = spans
    if hits is None:
        for span in spans:
            self._learn_value(key[span.start : span.end], span.rule, span.confident)
        return key
    where = _entry_fields.join(path, "(key)")
    if len(key) < _scrub._SHORT_TEXT:
        return self._scrub_short(key, where, hits, spans)
    return self.scrub_text(key, where, hits, list(spans))


def _old_key_class(name: str) -> str | None:
    """``_values._key_class`` before: the whole name lower-cased without separators."""
    bare = name.strip("\"'`[]\\")
    norm = bare.lower().translate(_values._SEPARATORS_GONE)
    if _values._SECRET_PART.search(norm) is None:
        return None
    words = _values._name_words(bare, every=len(norm) <= 80)
    if len(words) > 1 and words[-1] in _values._QUALIFIERS and words[-2:] != ["secret", "id"]:
        return None
    if words[-2:] == ["secret", "id"]:
        return "key"
    if not norm or len(norm) > 80 or _values._NOT_SECRET_KEYS.search(norm):
        return None
    kind = _values._list_class(name, norm)
    if kind is not None:
        return kind
    if any(w in _values._PASSWORD_WORDS for w in words):
        return "password"
    if any(w in _values._KEY_WORDS for w in words):
        return "key"
    return None


def _abbreviated_old(self: PendingTexts, name: str) -> str:
    """``PendingTexts.key_in_path`` broken: the key's old text abbreviated, not its new."""
    text = self._texts[name][0]
    return abbreviated([text[0 : len(text)]], len(text))


def _write(path: Path, contents: list[object]) -> Path:
    lines = [json.dumps(HEAD), *(_entry(i, content) for i, content in enumerate(contents))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _redacted(path: Path, name: str) -> Redaction:
    _values._cached_key_class.cache_clear()
    try:
        return redact(path, path.with_name(name), hostnames=[])
    finally:
        _values._cached_key_class.cache_clear()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The session redacted as the code is, as it was, and with renaming left out; and
    the keys the code wrote as stand-ins."""
    folder = tmp_path_factory.mktemp("long-key")
    first = (WORDS * 1_000)[:LONG_TEXT] + " ghp_3mRPyDMEYwLIDY3tFeaEyyWXxhQ3pa7IOCUu"
    alone = _redacted(_write(folder / "alone.jsonl", [{first: 1}]), "alone-out.jsonl")
    assert alone.path is not None
    renamed = next(iter(json.loads(alone.path.read_text().splitlines()[1])["message"]["content"]))
    path = _write(folder / "session.jsonl", _contents(renamed, first))
    stood: list[str] = []
    as_key = PendingTexts.as_key

    def spied(self: PendingTexts, name: str, *args: Any) -> str:
        out = as_key(self, name, *args)
        stood.append("stand-in" if self.holds(out) else "whole" if out != args[0] else "same")
        return out

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PendingTexts, "as_key", spied)
        now = _redacted(path, "now.jsonl")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Scrubber, "_key", _old_key)
        patch.setattr(_values, "_key_class", _old_key_class)
        before = _redacted(path, "before.jsonl")
    collided = _write(folder / "collided.jsonl", [_collided(renamed, first)])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PendingTexts, "taken", lambda *args: False)
        broken = _redacted(collided, "broken.jsonl")
    under = _write(folder / "under.jsonl", [{"api_key": {_under_a_secret_key(17): "value"}}])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PendingTexts, "key_in_path", _abbreviated_old)
        unread = _redacted(under, "unread.jsonl")
    return {"now": now, "before": before, "broken": broken, "stood": stood, "unread": unread}


def test_long_keys_are_written_in_pieces_as_before(runs: dict[str, Any]) -> None:
    now, before = runs["now"], runs["before"]
    assert now.path is not None and before.path is not None
    assert now.path.read_bytes() == before.path.read_bytes()
    assert now.report.equals(before.report), (now.report, before.report)
    assert now.suspects.equals(before.suspects)


def test_the_session_holds_what_the_paths_read(runs: dict[str, Any]) -> None:
    """Long keys written in pieces, one renamed apart, one built whole (its new name
    short, or in a line walked as a stream); and the renaming is seen by the oracle."""
    stood = runs["stood"]
    assert stood.count("stand-in") >= 5 and stood.count("whole") >= 2, str(stood)
    now, broken = runs["now"], runs["broken"]
    assert now.path is not None and broken.path is not None
    first = now.path.read_text(encoding="utf-8").splitlines()[1]
    keys = list(json.loads(first)["message"]["content"])
    assert keys == [keys[1] + "#3", keys[1], keys[1] + "#2"]
    assert len(keys[1]) > LONG_TEXT
    assert first not in broken.path.read_text(encoding="utf-8")


def test_paths_under_long_keys_are_reported_from_their_new_text(runs: dict[str, Any]) -> None:
    """Values of every kind under long keys under a secret's key are reported, each at a
    path naming its key abbreviated (one through two long keys); and the report with the
    keys abbreviated from their old text is seen by the oracle."""
    fields = runs["before"].report["field"]
    under = fields[fields.str.contains(" chars ", regex=False)]
    under = under[under.str.startswith("message.content.api_key.")]
    assert len(under) >= 7 and under.str.endswith("].o.x[1]").sum() == 1, list(under)
    assert under.str.count("…").max() == 2 and fields.str.len().max() < 300
    unread = set(runs["unread"].report["field"])
    assert unread and not unread <= set(fields)


@pytest.mark.parametrize("extra", ["", " İ", "_-. \t", "😀 λ"])
@pytest.mark.parametrize("ending", [*ENDINGS, " secretId", "\u2003secret\u2003id", "İ" * 90])
def test_a_long_names_class_is_as_before(extra: str, ending: str) -> None:
    """A name over 1,024 characters is told over 80 a stretch at a time: the same class
    as read whole (a dotted capital I is two characters lower-cased)."""
    for name in (WORDS * 20 + extra + ending, extra * 400 + ending, "İ" * 41 + "x" * 1_000):
        assert _values._key_class(name) == _old_key_class(name), name
