"""A key over 256 characters is named in a report's field path abbreviated: its first 64
characters of its new text, ``…``, then ``[<n> chars <d>]`` (its length, and the first 8
hex digits of a blake2b digest of its new text's UTF-8).

Why: every row under a long key held the key's whole text in its path, so the report grew
by the key's length for each row under it (a 70K-character key over 1,000 ``pw=``
strings: 70 MB of field bytes for a 90 KB line; a 256 KB key under ``api_key`` over 200
numbers: 52 MB for 263 KB). The expected paths here are made by this file's own
abbreviation, from the redacted file's keys (their new text, secrets replaced). That both
walks (tree and stream) name long keys alike is ``test_redact_stream.py``'s hostile lines;
that a key whose new text waits in pieces is named as the oracle's key built whole is
``test_long_key_pieces.py``'s.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from prime_nb.redact import Redaction, redact
from prime_nb.redact._entry_fields import join

HEAD = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}
PW = "password=hunter2xyz"
WORDS = "the deploy failed again so I read the logs and retried "
#: a key whose new text waits in pieces (over 64K characters, with a secret in it)
PIECES_KEY = "pad " * 17_000 + PW + " tail"

CONTENTS: dict[str, Any] = {
    "at 256": {"k" * 256: PW},
    "at 257": {"k" * 257: PW},
    "wide at the cut": {"a" * 63 + "😀" + "b" * 300: PW},
    "same start twice": {"s" * 300 + "1": PW, "s" * 300 + "2": PW},
    "in pieces": {PIECES_KEY: {"v": PW}},
    "a list past 256 under a secret": {"api_key": {"L" * 300: list(range(300))}},
    "a long key over a list past 256 under a secret": {"L" * 300: {"api_key": list(range(300))}},
    # the two shapes that made the report grow by the key's length for each row
    "70K key over 1,000 pw=": {
        (WORDS * 2_000)[:70_000]: [f"pw=hunter{i:04d}xyz" for i in range(1_000)]
    },
    "256 KB key under api_key over 200 numbers": {
        "api_key": {(WORDS * 6_000)[: 1 << 18]: list(range(200))}
    },
}


def _abbreviated(key: str) -> str:
    """This file's own abbreviation of a key's new text."""
    if len(key) <= 256:
        return key
    digest = hashlib.blake2b(key.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{key[:64]}…[{len(key)} chars {digest}]"


@pytest.fixture(scope="module")
def redacted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Redaction, dict[str, Any]]:
    """Each content redacted as one line (entry id its name), and the new contents."""
    folder = tmp_path_factory.mktemp("long-key-paths")
    lines = [json.dumps(HEAD)]
    for name, content in CONTENTS.items():
        message = {"role": "user", "content": content, "timestamp": 0}
        entry = {"type": "message", "id": name, "parentId": None, "timestamp": "2026"}
        lines.append(json.dumps({**entry, "message": message}, ensure_ascii=False))
    source = folder / "in.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = redact(source, folder / "out.jsonl", hostnames=[])
    assert result.path is not None
    new = {}
    for line in result.path.read_text(encoding="utf-8").splitlines()[1:]:
        entry = json.loads(line)
        new[entry["id"]] = entry["message"]["content"]
    return result, new


def _fields(redacted: tuple[Redaction, dict[str, Any]], name: str) -> list[str]:
    report = redacted[0].report
    return list(report["field"][report["entry_id"] == name])


def _keys(redacted: tuple[Redaction, dict[str, Any]], name: str) -> list[str]:
    return list(redacted[1][name])


@pytest.mark.parametrize("name", ["at 256", "at 257", "wide at the cut", "same start twice"])
def test_a_key_over_256_characters_is_abbreviated(
    redacted: tuple[Redaction, dict[str, Any]], name: str
) -> None:
    keys = _keys(redacted, name)
    assert _fields(redacted, name) == [f"message.content.{_abbreviated(key)}" for key in keys]


def test_keys_of_the_same_start_stay_apart(redacted: tuple[Redaction, dict[str, Any]]) -> None:
    first, second = _fields(redacted, "same start twice")
    assert first.split("…")[0] == second.split("…")[0] and first != second
    assert _fields(redacted, "at 256") == ["message.content." + "k" * 256]
    (wide,) = _fields(redacted, "wide at the cut")
    assert wide.startswith("message.content." + "a" * 63 + "😀…[364 chars ")


def test_a_key_waiting_in_pieces_is_named_by_its_new_text(
    redacted: tuple[Redaction, dict[str, Any]],
) -> None:
    (key,) = _keys(redacted, "in pieces")
    assert len(key) > 1 << 16 and PW not in key
    fields = _fields(redacted, "in pieces")
    assert fields == ["message.content.(key)", f"message.content.{_abbreviated(key)}.v"]
    assert "hunter2xyz" not in fields[0]


def test_a_list_past_256_values_under_a_long_key_is_one_row(
    redacted: tuple[Redaction, dict[str, Any]],
) -> None:
    """Under a secret's key the whole object is one row at the secret's key; a long key
    above the secret's key is abbreviated in that row's path."""
    assert _fields(redacted, "a list past 256 under a secret") == ["message.content.api_key"]
    name = "a long key over a list past 256 under a secret"
    (key,) = _keys(redacted, name)
    assert isinstance(redacted[1][name][key]["api_key"], str)
    assert _fields(redacted, name) == [f"message.content.{_abbreviated(key)}.api_key"]


@pytest.mark.parametrize(
    "name", ["70K key over 1,000 pw=", "256 KB key under api_key over 200 numbers"]
)
def test_a_rows_path_is_bounded_by_its_depth_not_its_keys(
    redacted: tuple[Redaction, dict[str, Any]], name: str
) -> None:
    """The report's field bytes for the shape: 70 MB and 52 MB before (a copy of the key
    for each row), here at most 128 bytes a row."""
    fields = _fields(redacted, name)
    assert len(fields) in (1_000, 200)
    assert sum(len(field.encode("utf-8")) for field in fields) <= 128 * len(fields)


def test_a_surrogate_pair_is_never_split() -> None:
    """A pair held as two code points (a string made in Python, not read from a file) is
    cut before its high half; a wide character read from a file is one code point."""
    key = "a" * 63 + "\ud83d\ude00" + "b" * 300
    digest = hashlib.blake2b(key.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    assert join("p", key) == f"p.{'a' * 63}…[{len(key)} chars {digest}]"
    assert join("", "x" * 256) == "x" * 256 and join("p", 3) == "p[3]"
