"""A list or object of more than 256 values under a secret's key is replaced as one value
(``prime_nb/redact/_whole_secret.py``); a smaller one has each value replaced.

One session, redacted once as a tree and once with every line walked as a stream (every
list or object over 64 bytes entered, as ``test_redact_stream.py`` sends lines down both
paths): both must write the file and report these tests read.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from prime_nb.redact import Redaction, redact
from prime_nb.redact._narrow import LongText
from prime_nb.redact._whole_secret import tree_pieces
from prime_nb.redact._whole_secret_bytes import stream_pieces

_lines = sys.modules["prime_nb.redact._lines"]
_stream = sys.modules["prime_nb.redact._stream"]
_apart = sys.modules["prime_nb.redact._apart"]

HEAD = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}
TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
PLACEHOLDER = "[REDACTED:secret-field:"
#: a text over 64 KB with emoji: decoded apart and narrowed in the tree walk (``_apart``),
#: decoded from the line's bytes in the stream walk's count and digest
LONG = "chat \U0001f600 \u201cquoted\u201d \u2014 " * 3000 + "sk-ant-api03-" + "Zq8vN2xL5pT7rW" * 7

#: each entry's data, by its id
DATA: dict[str, Any] = {
    "at-limit": {"api_key": list(range(256))},
    "past-limit": {"api_key": list(range(257))},
    "nested-at-limit": {"password": {"a": list(range(100)), "b": [[True] * 100, [None] * 56]}},
    "nested-past-limit": {"password": {"a": list(range(100)), "b": [[True] * 100, [None] * 57]}},
    "object": {"token": {f"k{i}": f"v{i}" for i in range(300)}},
    "again": {"secret": list(range(257))},
    "token-inside": {"api_key": [TOKEN, *range(299)]},
    "token-elsewhere": {"note": f"I pasted {TOKEN} by mistake"},
    "long-text": {"api_key": [LONG, *range(300)]},
    "long-text-elsewhere": {"note": f"the key was {LONG[-111:]}"},
}


def _entry(entry_id: str, data: Any) -> str:
    entry = {"type": "custom", "id": entry_id, "parentId": None, "customType": "x"}
    data = {**entry, "timestamp": "2026-01-05T10:00:01Z", "data": data}
    return json.dumps(data, ensure_ascii=False)


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Redaction]:
    """The session redacted walked as a stream and as a tree."""
    folder = tmp_path_factory.mktemp("whole")
    path = folder / "session.jsonl"
    lines = [json.dumps(HEAD), *(_entry(key, data) for key, data in DATA.items())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    results = {}
    for walk in ("stream", "tree"):
        stream = walk == "stream"
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_lines, "STREAM_MIN", -1 if stream else 1 << 62)
            patch.setattr(_lines, "VALUE_COST", 1 << 62 if stream else 64)
            if stream:
                patch.setattr(_stream, "SMALL", 64)
            results[walk] = redact(path, folder / f"{walk}.jsonl", hostnames=[])
    return results


@pytest.fixture(scope="module", params=["stream", "tree"])
def result(request: pytest.FixtureRequest, both: dict[str, Redaction]) -> Redaction:
    return both[request.param]


def _written(result: Redaction) -> dict[str, Any]:
    assert result.path is not None
    lines = result.path.read_text("utf-8").splitlines()[1:]
    return {entry["id"]: entry["data"] for entry in map(json.loads, lines)}


def _rows(result: Redaction, entry_id: str) -> list[tuple[str, str, str]]:
    rows = result.report[result.report["entry_id"] == entry_id]
    return list(zip(rows["field"], rows["rule"], rows["placeholder"].astype(str), strict=True))


def test_both_walks_write_and_report_alike(both: dict[str, Redaction]) -> None:
    stream, tree = both["stream"], both["tree"]
    assert stream.path is not None and tree.path is not None
    assert stream.path.read_bytes() == tree.path.read_bytes()
    assert stream.report.equals(tree.report)


@pytest.mark.parametrize(("entry_id", "key"), [("at-limit", "api_key")])
def test_up_to_256_values_each_is_replaced(result: Redaction, entry_id: str, key: str) -> None:
    values = _written(result)[entry_id][key]
    assert len(values) == 256 and len(set(values)) == 256
    assert all(value.startswith(PLACEHOLDER) for value in values)
    rows = _rows(result, entry_id)
    assert [field for field, _, _ in rows] == [f"data.{key}[{i}]" for i in range(256)]


@pytest.mark.parametrize(
    ("entry_id", "key"), [("past-limit", "api_key"), ("object", "token"), ("again", "secret")]
)
def test_past_256_values_the_list_or_object_is_one_placeholder(
    result: Redaction, entry_id: str, key: str
) -> None:
    placeholder = _written(result)[entry_id][key]
    assert isinstance(placeholder, str) and placeholder.startswith(PLACEHOLDER)
    assert _rows(result, entry_id) == [(f"data.{key}", "secret-field", placeholder)]


def test_values_are_counted_through_any_nesting(result: Redaction) -> None:
    written = _written(result)
    kept = written["nested-at-limit"]["password"]
    assert kept["b"] == [[True] * 100, [None] * 56]  # booleans and nulls count, and stay
    assert len(kept["a"]) == 100 and len(_rows(result, "nested-at-limit")) == 100
    whole = written["nested-past-limit"]["password"]
    assert isinstance(whole, str) and whole.startswith(PLACEHOLDER)
    assert [field for field, _, _ in _rows(result, "nested-past-limit")] == ["data.password"]


def test_the_same_list_met_twice_has_the_same_placeholder(result: Redaction) -> None:
    written = _written(result)
    assert isinstance(written["again"]["secret"], str)
    assert written["again"]["secret"] == written["past-limit"]["api_key"]
    assert written["object"]["token"] != written["past-limit"]["api_key"]


def test_a_token_inside_is_replaced_wherever_else_it_stands(result: Redaction) -> None:
    assert result.path is not None
    assert TOKEN not in result.path.read_text("utf-8")
    note = _written(result)["token-elsewhere"]["note"]
    assert note.startswith("I pasted [REDACTED:") and note.endswith("] by mistake")
    assert [rule for _, rule, _ in _rows(result, "token-inside")] == ["secret-field"]


def test_a_long_text_inside_is_learned_alike_in_both_walks(result: Redaction) -> None:
    """The tree walk holds it narrowed (a ``LongText``), the stream walk decoded: the key
    at its end is learned from both, and replaced where else it stands."""
    assert _written(result)["long-text"]["api_key"].startswith(PLACEHOLDER)
    assert result.path is not None
    assert "Zq8vN2xL5pT7rW" not in result.path.read_text("utf-8")


def test_both_walks_digest_the_same_text() -> None:
    """A list met in a line walked as a tree and again in one walked as a stream has
    one placeholder: both read the text orjson writes of it, a narrowed text as its
    text, the line's spacing and escapes as orjson writes them."""
    text = json.dumps(LONG, ensure_ascii=False).encode("utf-8")
    narrowed = _apart.narrowed_copy(memoryview(bytearray(text)), 1, len(text) - 1)
    assert narrowed is not None
    tree = {"a": [LongText(narrowed), -0, 1.5, None, True, "caf\u00e9"], "b": {}, "c": [[]]}
    line = b' { "a" : [ ' + text + b' , -0 , 1.50 , null , true , "caf\\u00e9" ] ,'
    line += b' "b" : { } , "c" : [ [ ] ] } '
    start = line.index(b"{")
    read = b"".join(piece for piece, _, _, _ in stream_pieces(line, start, len(line), 200))
    assert b"".join(piece for piece, _, _, _ in tree_pieces(tree)) == read
    assert json.loads(read) == {**tree, "a": [LONG, *tree["a"][1:]]}
