"""Redaction's peak memory on long keys, JSON held in a string twice and a long number.

Measured as ``test_redact_memory.py`` measures its shapes (its docstring: the growth
between two sizes of line, per byte of line, each run in a child of one warmed process).
A long key is not within 3x yet (3.3x, beside load's 3x), and JSON twice is at these
sizes but not at the probe's (``docs/redaction.md``, "Bounds"); these hold what was
taken off, so that it does not come back:

- a text pasted as an object's key: its name was split into every word of it to learn
  whether it names a secret (a list of some 200k strings a megabyte, about 23x the key),
  where a name that long is judged by its last two words alone, and read without its
  separators by ``re.sub``, which keeps a string for every piece between them (about
  ten times the key), where ``str.translate`` writes one new string (``_values.py``);
  its new name was built whole and written whole by orjson with the line, where it is
  written a piece at a time as a long value is (``_pending.py``);
- JSON held in a string held in a string (a tool's output stringified twice): the spans
  of the escaped literal's decoded text, of each of its finders, were all held at once,
  and the spans the literal gave again, one a record, kept beside the same spans found in
  the text as it is (``_find.py``); a span was a ``Span`` object and a cut a tuple (about
  150 bytes each, more than a record of 110): they are kept as columns
  (``_span_list.py``, ``_pending.Cuts``).

Two are within 3x. Thousands of keys of 4 KB each: the cache of key classes kept the
last 1,024 names, and so a second copy of the line's keys (``_values.py``); and the line
was parsed into a tree, three times the line at once, where it is walked as a stream
(``_lines.py``). A number of
a million digits, which orjson refuses (past a double's range) and the lenient parser
reads as ``load()`` does (infinity): the line was held with a copy of it without its
line end, and orjson's error (which holds the line as text) was alive while the lenient
parser read a third copy (``_lines.py``); then the glued reading decoded a text of the
line while its bytes were held, and the number's digits were cut out of it as a ``str``:
one text, made once the bytes are let go, is read by both now (2x). A list of numbers
past a double's range, which orjson refuses too: the lenient parser read the line whole,
a float object for each number (8x), where the stream walk reads it now, each value
orjson refuses read by the lenient parser alone (``_past_double.py``), about 1x.
"""

from __future__ import annotations

import json

import pytest
from test_redact_memory import MB, SIZES_OF, assert_grew_at_most, measure

WORDS = "the deploy failed again so I read the logs password=hunter2xyz and retried "

LONG_KEY = "a long string as a key"
LONG_KEY_SECRET = "a long string as a key under a secret's key"
JSON_TWICE = "json in a string in a string"
LONG_NUMBER = "a long number"
LONG_KEYS = "long keys"
LONE_SURROGATE = "a lone surrogate"
PAST_DOUBLE = "a list of numbers past a double's range"


def _line(shape: str, size: int) -> str:
    """The long line of ``shape`` at about ``size`` bytes, under a message's content."""
    if shape == LONG_KEY:
        content: object = {WORDS * (size // len(WORDS)): 1}
    elif shape == LONG_KEY_SECRET:
        data = {"api_key": {WORDS * (size // len(WORDS)): 1}, "n": "password=Zq8vN2xL5pT7"}
        custom = {"type": "custom", "id": "c1", "parentId": None, "customType": "x"}
        return json.dumps({**custom, "data": data})
    elif shape == JSON_TWICE:
        content = json.dumps(json.dumps([{"k": WORDS}] * (size // 110)))
    elif shape == LONG_KEYS:
        content = {f"{i}" + "k" * 4000: "pw=hunter2x" for i in range(size // 4020)}
    elif shape == LONE_SURROGATE:  # orjson refuses the line (Node cut an emoji)
        content = "\ud83d " + WORDS * (size // len(WORDS))
    elif shape == PAST_DOUBLE:  # orjson refuses the line: it reads no such number
        content = _NUMBERS
    elif shape == LONG_NUMBER:
        return '{"type": "message", "id": "u1", "parentId": null, "n": ' + "9" * size + "}"
    else:
        raise ValueError(shape)
    message = {"role": "user", "content": content, "timestamp": 0}
    entry = {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026"}
    text = json.dumps({**entry, "message": message})
    if shape != PAST_DOUBLE:
        return text
    return text.replace(json.dumps(_NUMBERS), "[" + ", ".join(["1e400"] * (size // 7)) + "]")


#: where the list of numbers past a double's range goes in its line
_NUMBERS = "__numbers__"


@pytest.fixture(scope="module")
def peaks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, float]]:
    """Per shape: redact's growth per byte of line between two sizes."""
    shapes = [
        *(LONG_KEY, LONG_KEY_SECRET, JSON_TWICE, LONG_NUMBER, LONG_KEYS, LONE_SURROGATE),
        PAST_DOUBLE,
    ]
    with pytest.MonkeyPatch.context() as patch:
        # smaller lines (the same half megabyte apart): 6 x against 3.3 is told at these
        patch.setitem(SIZES_OF, LONG_KEY_SECRET, (MB // 4, 3 * MB // 4))
        # a megabyte apart: the noise of each size is a quarter of a byte a byte
        patch.setitem(SIZES_OF, LONG_NUMBER, (MB // 4, MB + MB // 4))
        patch.setitem(SIZES_OF, LONE_SURROGATE, (MB // 4, MB + MB // 4))
        patch.setitem(SIZES_OF, PAST_DOUBLE, (MB // 2, MB))  # both streamed, the same apart
        return measure(tmp_path_factory.mktemp("keys"), shapes, line=_line)


def test_a_long_key_is_not_split_into_every_word(peaks: dict[str, dict[str, float]]) -> None:
    """29x the line before, 15-16.5x with only its last words read; 5-5.5x with the
    name lower-cased whole and the new key built whole (and written by orjson with the
    line); 3.3x now, the key's new text written a piece at a time as a long value's is,
    and a long name told over 80 characters a stretch at a time (what is left: its
    spans and cuts, about 130 bytes for a secret every 75 characters, beside the key)."""
    assert_grew_at_most(peaks, LONG_KEY, 3.75)


def test_a_path_under_a_long_key_names_it_abbreviated(
    peaks: dict[str, dict[str, float]],
) -> None:
    """The key under a secret's key, its value reported: 5.6-5.8x the line before at
    these sizes (5.8-5.9 in the probe), the row's field path made as one string with
    the key's new text, and its UTF-8 copy, beside the key and the report's buffer;
    3.4-3.6 now (3.3 in the probe), the path naming the key abbreviated, its length and
    digest read from its new text's pieces (``_entry_fields.abbreviated``)."""
    assert_grew_at_most(peaks, LONG_KEY_SECRET, 3.75)


def test_json_twice_holds_each_finders_spans_in_turn(peaks: dict[str, dict[str, float]]) -> None:
    """8.2-8.4x the line before, 5.3-6.4x with one finder's spans at a time; 2.3x now,
    with spans and cuts as columns (about 20 bytes a span, not 150: a record is 110)."""
    assert_grew_at_most(peaks, JSON_TWICE, 3.0)


def test_a_number_orjson_refuses_is_read_from_one_copy_of_its_line(
    peaks: dict[str, dict[str, float]],
) -> None:
    """5.0x the line before (as ``load``); 3.0x read from one copy of its line; 2.0x
    now, one text of it read by the glued reading and the lenient parser both, made once
    the line's bytes are let go (``_lines._decoded``): the text and the digits, which
    ``json``'s scanner cuts out as a ``str``. 2.5 tells 2 from 3 (``test_memory_numbers``
    holds the file written the same as before)."""
    assert_grew_at_most(peaks, LONG_NUMBER, 2.5)


def test_long_keys_are_not_kept_by_the_cache_of_key_classes(
    peaks: dict[str, dict[str, float]],
) -> None:
    """4.1x the line before; 2.8-3.0x with no cache of long names, the line parsed into
    a tree (the line, orjson's copy of it and the tree of 4 KB keys, each as long as its
    text); 1.0-1.1x now, walked as a stream (``_lines.no_string_apart``): the line's bytes
    and a member at a time. 2.0 (with the noise's 0.5) tells the stream from the tree."""
    assert_grew_at_most(peaks, LONG_KEYS, 2.0)


def test_a_lone_surrogate_is_parsed_by_orjson_once_replaced(
    peaks: dict[str, dict[str, float]],
) -> None:
    """6.4x the line before (``load`` 9.4): read by the lenient parser, the line's text,
    the string with the lone surrogate (two bytes a character) and its copy with U+FFFD;
    2.05x now, its escape written as U+FFFD's in the line's buffer and the line parsed by
    orjson, its long string decoded apart (``_lines._parsed_with_lone_surrogates_replaced``;
    ``test_lone_surrogates.py`` compares the file written with the code before)."""
    assert_grew_at_most(peaks, LONE_SURROGATE, 3.0)


def test_a_list_of_numbers_past_a_double_is_walked_as_a_stream(
    peaks: dict[str, dict[str, float]],
) -> None:
    """7.9-8.0x the line before at these sizes (``load`` 10.6-10.8): orjson refuses the
    line, and the lenient parser read it whole, a float object for each number; 0.4x
    now (0.9-1.2 at 1-1.5 MB), walked as a stream, each value orjson refuses read by the
    lenient parser alone (``_past_double.py``; ``test_stream_past_double.py`` compares
    the file written with the tree walk's). 2.0 (with the noise's 0.5) tells the stream
    from the tree."""
    assert_grew_at_most(peaks, PAST_DOUBLE, 2.0)
