"""The stream walk of a long line writes what the tree walk writes, and reports the same;
so does a long text written in pieces (``_pending.py``) against one built whole.

``redact`` walks a long line of many small values as a stream of its bytes
(``prime_nb/redact/_stream.py``) and any other line as a parsed tree. Here every line is
sent down each path in turn (the thresholds set so), and the two copies and reports must
be identical: on samples of the secret corpora (the whole corpora were compared, every
line a stream, when the walk was written) and on hostile lines that the stream walk must
refuse or get right (glued entries, deep nesting, lone surrogates, repeated keys, NaN,
huge numbers, odd spacing).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import orjson
import pytest
from secret_corpus import build, build_spec

from prime_nb.redact import Redaction, redact
from prime_nb.redact._rules import default_rules
from prime_nb.redact._scrub import Scrubber

_file = sys.modules["prime_nb.redact._file"]
_lines = sys.modules["prime_nb.redact._lines"]
_apart = sys.modules["prime_nb.redact._apart"]
_stream = sys.modules["prime_nb.redact._stream"]
_scrub = sys.modules["prime_nb.redact._scrub"]
_pending = sys.modules["prime_nb.redact._pending"]
_suspects = sys.modules["prime_nb.redact._suspects"]

HEAD = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}
#: the corpus's lines kept for the comparison: one in this many (each path redacts the
#: sample)
SAMPLE = 24


def _both(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Redaction, Redaction]:
    """``path`` redacted with every line walked as a stream (and every list or object over
    64 bytes entered, runs of small items parsed together), then every line as a tree."""
    results = []
    for stream in (True, False):
        out = path.with_name(f"{path.stem}.{'stream' if stream else 'tree'}.jsonl")
        out.unlink(missing_ok=True)
        with monkeypatch.context() as patch:
            patch.setattr(_lines, "STREAM_MIN", -1 if stream else 1 << 62)
            patch.setattr(_lines, "VALUE_COST", 1 << 62 if stream else 64)
            if stream:  # lists and objects over 64 bytes are entered, not parsed
                patch.setattr(_stream, "SMALL", 64)
            results.append(redact(path, out, hostnames=[]))
    return results[0], results[1]


def _assert_same(path: Path, monkeypatch: pytest.MonkeyPatch) -> Redaction:
    streamed, tree = _both(path, monkeypatch)
    assert streamed.path is not None and tree.path is not None
    assert streamed.path.read_bytes() == tree.path.read_bytes()
    assert streamed.report.equals(tree.report), (streamed.report, tree.report)
    assert streamed.suspects.equals(tree.suspects)
    return tree


@pytest.fixture(scope="module")
def secret_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The secret corpus as a session file, built once for the tests that sample it."""
    return build(tmp_path_factory.mktemp("corpus") / "full.jsonl").path


def test_stream_and_tree_walks_agree_on_the_secret_corpus(
    secret_corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _assert_same(_sample(secret_corpus, SAMPLE, tmp_path), monkeypatch)
    assert len(tree.report) > 500


def test_stream_and_tree_walks_agree_on_the_specification_corpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = build_spec(tmp_path / "spec.jsonl")
    tree = _assert_same(_sample(corpus.path, 3), monkeypatch)
    assert len(tree.report) > 100


def _sample(path: Path, every: int, folder: Path | None = None) -> Path:
    """The header and one line in ``every`` of the others (in ``folder``, or beside it)."""
    lines = path.read_bytes().splitlines(keepends=True)
    sample = (folder or path.parent) / f"{path.stem}.sample.jsonl"
    sample.write_bytes(lines[0] + b"".join(lines[1::every]))
    return sample


def _entry(n: int, data: str) -> str:
    return (
        f'{{"type":"custom","id":"e{n}","parentId":null,'
        f'"timestamp":"2026-01-05T10:00:0{n % 10}Z","customType":"x","data":{data}}}'
    )


_SECRET = '"password=hunter2xyz"'
_TOKEN = '"ghp_' + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5" + '"'
#: lines the stream walk must refuse (the tree walk then decides) or walk exactly
HOSTILE = {
    "glued entries": _entry(1, _SECRET) + _entry(2, _SECRET),
    "deep nesting past orjson's writer": _entry(3, "[" * 300 + _SECRET + "]" * 300),
    "deep nesting within it": _entry(4, "[" * 150 + _SECRET + "]" * 150),
    "nesting past the parser": _entry(5, "[" * 1100 + _SECRET + "]" * 1100),
    "a lone surrogate": _entry(6, '["\\ud800 password=hunter2xyz", ' + _SECRET + "]"),
    "a repeated key at the top": _entry(7, _SECRET)[:-1] + ',"data":"password=other1xyz"}',
    "a repeated key inside": _entry(8, '{"a":' + _SECRET + ',"a":"password=two2xyz"}'),
    "NaN": _entry(9, "[NaN, " + _SECRET + "]"),
    "a huge number": _entry(10, "[1e400, " + _SECRET + "]"),
    "a long integer": _entry(11, "[123456789012345678901234567890, " + _SECRET + "]"),
    "spaces everywhere": ' { "type" : "custom" , "id" : "e12" , "data" : [ '
    + _SECRET
    + " , 1.50 , -0 , 2E3 , true , null , { } , [ ] ] } ",
    "spaces and nothing to hide": ' { "type" : "custom" , "id" : "e13" , "data" : [ 1 ] } ',
    "escapes": _entry(14, '["\\u0070assword=hunter2xyz \\/ \\t caf\\u00e9", "\\"q\\""]'),
    "a secret key renamed apart": _entry(
        15, '{"' + _TOKEN[1:-1] + '":1,"[REDACTED:github-token:1]":2,"k":' + _TOKEN + "}"
    ),
    "a named pair": _entry(16, '[{"name":"Authorization","value":"Bearer abc123xyz456"}]'),
    "a JWK": _entry(17, '{"kty":"RSA","d":"c2VjcmV0LWV4cG9uZW50LXZhbHVl","n":"AQAB"}'),
    "a secret key with a list": _entry(18, '{"api_key":["k1","k2"],"password":{"x":1}}'),
    "a top-level list": "[" + _SECRET + ', 1, {"a": ' + _TOKEN + "}]",
    "a top-level string": _SECRET,
    "trailing text": _entry(19, _SECRET) + " tail",
    "an unclosed string": _entry(20, _SECRET)[:-3],
    "an SVG image": json.dumps(
        {
            "type": "message",
            "id": "e21",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "image",
                        "mimeType": "image/svg+xml",
                        "data": "PHN2Zz48dGV4dD5wYXNzd29yZD1odW50ZXIyeHl6PC90ZXh0Pjwvc3ZnPg==",
                    },
                    {"type": "text", "text": "password=hunter2xyz"},
                ],
            },
        }
    ),
    "a list of records": _entry(
        22, json.dumps([{"id": i, "token": f"tok{i}Zq8vN2xL5pT7rW"} for i in range(40)])
    ),
    "a list of small objects": _entry(
        24, json.dumps([*({"a": i, "b": [i]} for i in range(60)), "password=hunter2xyz"])
    ),
    # past 64 bytes: read by the shell's hashes, not parsed (``_shell.py``)
    "a repeated key far apart": _entry(
        25, '{"a":' + _SECRET + ',"pad":"' + "x" * 80 + '","a":"password=two2xyz"}'
    ),
    "a repeated told key far apart": _entry(
        26, '[{"type":"text","text":' + _SECRET + ',"pad":"' + "x" * 80 + '","type":"x"}]'
    ),
    # more than 256 values under a secret's key: one placeholder (``_whole_secret.py``)
    "a secret key over 256 values": _entry(
        27,
        '{"api_key": [ 1.50 , -0 , 2E3 , "\\u0070w" , '
        + _TOKEN
        + ", "
        + ", ".join(map(str, range(300)))
        + ' ], "password": {"a": [[], {}], '
        + ", ".join(f'"k{i}" : {{ "v" : [ {i} , null ] }}' for i in range(200))
        + ' }, "token": [1, 2]}',
    ),
    "a secret key at 256 values": _entry(
        28, json.dumps({"secret": [list(range(128)), {"n": [True] * 128}]})
    ),
    "a repeated key in a whole secret": _entry(
        29, '{"api_key": {"a": 1, "b": [' + "0," * 300 + '0], "a": 2}}'
    ),
    "a lone surrogate in a whole secret": _entry(30, '{"api_key": [' + "0," * 300 + '"\\ud800"]}'),
    # keys over 256 characters: abbreviated in a field path (``_entry_fields.abbreviated``)
    "long keys": _entry(
        31,
        json.dumps(
            {
                "k" * 300 + "a": "password=hunter2xyz",
                "k" * 300 + "b": ["password=two2xyz", {"😀" * 257: _TOKEN}],
                "api_key": {"password=hunter2xyz" * 20: list(range(300)), "s" * 257: 1},
            }
        ),
    ),
    # its new text waits in pieces in the tree walk, built whole in the stream's
    "a long key written in pieces": _entry(
        32, json.dumps({"pad " * 17_000 + "password=hunter2xyz": {"v": "password=two2xyz"}})
    ),
}


def test_stream_and_tree_walks_agree_on_hostile_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "hostile.jsonl"
    body = "\n".join(HOSTILE.values())
    path.write_bytes(
        (json.dumps(HEAD) + "\n" + body + "\r\n" + "\ufeff" + _entry(23, _SECRET)).encode(
            "utf-8", "surrogatepass"
        )
    )
    tree = _assert_same(path, monkeypatch)
    assert "hunter2xyz" not in tree.path.read_text("utf-8", errors="replace")  # type: ignore[union-attr]
    with monkeypatch.context() as patch:  # which lines the stream walk took
        patch.setattr(_lines, "STREAM_MIN", -1)
        patch.setattr(_lines, "VALUE_COST", 1 << 62)
        streamed = _file._learn(path, Scrubber(default_rules([])))
    names = list(HOSTILE)
    taken = {names[number - 2] for number in streamed if 2 <= number < len(names) + 2}
    assert taken == set(STREAMED_HOSTILE)


#: the hostile lines the stream walk takes (the others it refuses, and the tree walks)
STREAMED_HOSTILE = [
    "deep nesting within it",
    "a huge number",  # read as the tree walk reads it: ``_past_double.py``
    "a long integer",
    "spaces everywhere",
    "spaces and nothing to hide",
    "escapes",
    "a secret key renamed apart",
    "a named pair",
    "a JWK",
    "a secret key with a list",
    "a top-level list",
    "an SVG image",
    "a list of records",
    "a list of small objects",
    "a secret key over 256 values",
    "a secret key at 256 values",
    "long keys",
    "a long key written in pieces",
]


def _whole_and_apart(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[bytes, bytes]:
    """``path`` redacted as it is, then with every line read in 7-byte pieces, never held
    as bytes, and every plain string value decoded apart (``_apart.py``), checked by
    orjson 3 bytes at a time."""
    outs = []
    for apart in (False, True):
        out = path.with_name(f"{path.stem}.{'apart' if apart else 'whole'}.jsonl")
        out.unlink(missing_ok=True)
        with monkeypatch.context() as patch:
            if apart:
                patch.setattr(_lines, "READ_PIECE", 7)
                patch.setattr(_lines, "KEEP_RAW", -1)
                patch.setattr(_apart, "LONG_STRING", -1)
                patch.setattr(_apart, "PIECE", 3)  # checked 3 bytes at a time
            redact(path, out, hostnames=[])
        outs.append(out.read_bytes())
    return outs[0], outs[1]


def test_strings_decoded_apart_give_the_same_file(
    secret_corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line read in pieces, its plain strings decoded apart, is redacted as when it is
    parsed whole: on the hostile lines and a sample of the secret corpus."""
    path = tmp_path / "hostile.jsonl"
    body = "\n".join(HOSTILE.values())
    path.write_bytes((json.dumps(HEAD) + "\n" + body + "\r\n").encode("utf-8", "surrogatepass"))
    sample = _sample(secret_corpus, SAMPLE * 16, tmp_path)
    for source in (path, sample):
        whole, apart = _whole_and_apart(source, monkeypatch)
        assert whole == apart
    with monkeypatch.context() as patch:
        patch.setattr(_apart, "LONG_STRING", -1)
        # a tree of the line with its strings put back, its keys too (a key written
        # twice where orjson keeps it: its first place, its last value); a line that
        # is one string, or no JSON, is parsed whole
        line = b'{"a": "x\\n", "b": ["p\xc3\xa9", {"c": "q"}], "d": 1}'
        assert _apart.parsed_apart(line) == {"a": "x\n", "b": ["p\xe9", {"c": "q"}], "d": 1}
        twice = b'{"k": 1, "b": {"c": 2}, "k": 3}'
        assert list(_apart.parsed_apart(twice).items()) == list(orjson.loads(twice).items())
        assert _apart.parsed_apart(b'"one string"') is None
        assert _apart.parsed_apart(b'{"a": "x"} tail') is None
        assert _apart.parsed_apart(b'{"a": "\xff"}') is None  # not UTF-8: orjson refuses
        assert _apart.parsed_apart(b'{"a": "\x01"}') is None  # a control character
        # a string with escapes, in a line read into a bytearray: decoded apart, in the
        # line's own buffer, which is then blank; in bytes, parsed with the rest (its
        # keys apart)
        held = bytearray(b'{"a": "q\\"\\u00e9\\ud83d\\ude00\\n", "b": 1}')
        got = _apart.parsed_apart(held)  # with an emoji: narrowed, as any key's text
        assert got["b"] == 1 and got["a"].source.whole() == 'q"\xe9\U0001f600\n'
        assert held == b'{"a": "' + b"x" * 23 + b'", "b": 1}'
        newlines = bytes(held).replace(b"x", b"\\n")
        assert _apart.parsed_apart(newlines) == {"a": "\n" * 23, "b": 1}
        assert _apart.parsed_apart(bytearray(b'{"a": "\\ud800"}')) is None  # orjson refuses


def test_a_version_1_file_is_walked_as_a_tree_and_agrees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Version 1 entries have no ids: the id is derived from the whole entry."""
    path = tmp_path / "v1.jsonl"
    head = {"type": "session", "id": "s", "timestamp": "2026-01-05T10:00:00Z"}
    lines = [
        json.dumps(head),
        json.dumps({"type": "message", "timestamp": "2026-01-05T10:00:01Z",
                    "message": {"role": "user", "content": "password=hunter2xyz"}}),
    ]  # fmt: skip
    path.write_text("\n".join(lines) + "\n")
    tree = _assert_same(path, monkeypatch)
    assert tree.report["entry_id"].notna().all()


@pytest.mark.parametrize(
    "line",
    [
        '{"a": [1, 2',
        '{"a" 1}',
        '{"a": [1 2]}',
        '["a", "b"] x',
        '{"a": "\\ud800"}',
        '{"a": NaN}',
        '{"a": 1, "a": 2}',
        "[" * 300 + "]" * 300,
    ],
)
def test_the_stream_walk_refuses_what_it_cannot_vouch_for(line: str) -> None:
    raw = line.encode()
    walk = _stream.StreamWalk(Scrubber(default_rules([])), raw, 0, len(raw))
    with pytest.raises(_stream.NotStreamable, match="stream walk cannot take"):
        walk.run()


def test_a_long_line_of_small_values_is_walked_as_a_stream(tmp_path: Path) -> None:
    """The default thresholds: a long line of many small values takes the stream path
    (its bytes are held, not parsed), a long string does not."""
    many = ("[" + ",".join(['"ab"', _SECRET] * 20_000) + "]").encode()
    assert len(many) > _lines.STREAM_MIN
    assert _lines.many_values(many)
    prose = json.dumps("word " * 100_000).encode()
    assert not _lines.many_values(prose)
    path = tmp_path / "many.jsonl"
    path.write_bytes(json.dumps(HEAD).encode() + b"\n" + _entry(1, many.decode()).encode())
    line = next(iter(_lines.read_lines(path, lambda number: number == 2)), None)
    assert line is not None and line.obj is not _lines.STREAMED  # the header: parsed
    lines = list(_lines.read_lines(path, lambda number: number == 2))
    assert lines[1].obj is _lines.STREAMED
    done = redact(path, tmp_path / "out.jsonl", hostnames=[])
    assert len(done.report) == 20_000
    assert b"hunter2xyz" not in (tmp_path / "out.jsonl").read_bytes()


def _bearer(i: int) -> str:
    """A header's value long enough that its pair is entered as a stream."""
    return f"Bearer t{i}xYz123abc" + "Q" * 300


def _records(n: int) -> list[dict[str, object]]:
    return [
        {
            "id": i,
            "name": f"item {i} café ✓",
            "notes": "deploy log line " * 16 + ("password=hunter2xyz" if i % 7 == 0 else ""),
            **({"api_key": f"k{i:06d}Zq8vN2xL5pT7rW"} if i % 20 == 0 else {}),
            **({"password": 4242 + i} if i % 33 == 0 else {}),
            **({"headers": [{"name": "Authorization", "value": _bearer(i)}]}
               if i % 25 == 0 else {}),
            **({"inner": json.dumps({"token": f"ghp_{'a1B2' * 9}", "k": [1, 2]})}
               if i % 40 == 0 else {}),
            **({_TOKEN[1:-1]: "a key that is a secret"} if i == 5 else {}),
        }
        for i in range(n)
    ]  # fmt: skip


#: JSON texts read as streams (the thresholds lowered, so that they are short and still
#: hold lists and objects entered as streams)
LONG_JSON_TEXTS = {
    "a list of records": json.dumps(_records(45)),
    "records under keys, spaced": json.dumps(
        {"rows": _records(45), "password": {"nested": [f"pw{i}x" for i in range(80)]}, "n": 1},
        indent=1,
    ),
    "a long string inside": json.dumps({"log": "password=hunter2xyz " * 200, "n": [1.5]}),
    "escaped, not ASCII": json.dumps(_records(45), ensure_ascii=True),
}


@pytest.mark.parametrize("name", list(LONG_JSON_TEXTS))
def test_json_in_a_long_string_is_read_as_its_tree_is(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prime_nb.redact import _embedded

    monkeypatch.setattr(_embedded, "LONG_JSON", 1_000)
    monkeypatch.setattr(_stream, "SMALL", 300)
    text = LONG_JSON_TEXTS[name]
    assert len(text) > 3_000
    rules = default_rules([])
    streamed, tree = _embedded.StreamScrubber(rules), Scrubber(rules)
    assert list(_embedded.embedded(streamed, text.encode(), 0))  # a stream, not given up

    def spans(scrubber: Scrubber) -> list[tuple[int, int, str, bool]]:
        return sorted((s.start, s.end, s.rule.name, s.confident) for s in scrubber.spans(text))

    found = spans(streamed)
    assert found == spans(tree)
    assert len(found) >= 10


def test_json_orjson_refuses_in_a_long_string_is_read_as_its_tree_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A number past a double's range: orjson refuses the text, so the parsed reading
    finds nothing under its secret keys, and nor does the stream (which reads such a
    number in a line, ``_past_double.py``)."""
    from prime_nb.redact import _embedded

    monkeypatch.setattr(_embedded, "LONG_JSON", 1_000)
    monkeypatch.setattr(_stream, "SMALL", 300)
    text = json.dumps(_records(45))[:-1] + ', {"n": [1, 1e400]}]'
    rules = default_rules([])
    streamed, tree = _embedded.StreamScrubber(rules), Scrubber(rules)

    def spans(scrubber: Scrubber) -> list[tuple[int, int, str, bool]]:
        return sorted((s.start, s.end, s.rule.name, s.confident) for s in scrubber.spans(text))

    assert spans(streamed) == spans(tree)
    with pytest.raises(_stream.NotStreamable, match="stream walk cannot take"):
        list(_embedded.embedded(streamed, text.encode(), 0))


def _dense(n: int) -> str:
    """Text dense with secrets and suspects, escapes and characters of 1 to 4 bytes."""
    r = random.Random(n)
    parts = []
    for i in range(n):
        token = "".join(r.choice("abcdefghijkABCDEFGH0123456789") for _ in range(36))
        parts.append(
            f'line {i} é✓😀 "quoted"\t\x01 mysql -u root -pS3cr3t{i % 5}x used ghp_{token} '
            f"then session {r.randbytes(16).hex()}Qz and token:{'Ab9' * (i % 9)} "
        )
    return "".join(parts)


def test_long_texts_written_in_pieces_give_the_same_file(
    secret_corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A changed text written a piece at a time from the old one (every text, in pieces
    of 5 characters, suspects read 80 at a time) gives the file, report and suspects of
    the new text built whole: in the tree walk and the stream walk, on hostile lines, a
    sample of the secret corpus and text dense with secrets."""
    path = tmp_path / "pieces.jsonl"
    body = "\n".join([*HOSTILE.values(), _entry(40, json.dumps({"t": _dense(60), "n": 1}))])
    path.write_bytes((json.dumps(HEAD) + "\n" + body + "\r\n").encode("utf-8", "surrogatepass"))
    sample = _sample(secret_corpus, SAMPLE * 16, tmp_path)
    written: list[str] = []
    pieces_of = _pending.PendingTexts.written

    def counted(self: object, name: str) -> object:
        written.append(name)
        return pieces_of(self, name)

    for source in (path, sample):
        whole = _both(source, monkeypatch)
        files = [done.path.read_bytes() for done in whole if done.path is not None]
        with monkeypatch.context() as patch:
            patch.setattr(_scrub, "LONG_TEXT", 0)
            patch.setattr(_pending, "PIECE", 5)
            patch.setattr(_suspects, "WINDOW", 80)
            patch.setattr(_pending.PendingTexts, "written", counted)
            pieces = _both(source, monkeypatch)  # the same files, written anew
        for one, other, file in zip(whole, pieces, files, strict=True):
            assert other.path is not None and other.path.read_bytes() == file
            assert one.report.equals(other.report)
            assert one.suspects.equals(other.suspects)
        assert len(whole[1].suspects) > 0
    assert len(written) > 100  # the texts were written in pieces


def test_suspects_read_a_window_at_a_time_are_those_of_the_whole_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Windows of any size, cut anywhere (a token across a cut, a word at a window's
    start after a letter, a token longer than the window), find what the whole finds."""
    r = random.Random(1)
    words = ["key", "token ", "Secret=", "password: ", "pass", "api_", "xkey", "bearer "]
    alphabet = "abcdefghijkXYZ0123456789+/_-.=~"
    found = 0
    for _ in range(400):
        parts: list[str] = []
        for _ in range(r.randint(0, 30)):
            k = r.random()
            if k < 0.3:
                parts.append(r.choice(words))
            elif k < 0.6:
                size = r.choice([5, 19, 20, 25, 40, 150])
                parts.append("".join(r.choice(alphabet) for _ in range(size)))
            else:
                parts.append(r.choice([" " * r.randint(0, 30), "\n", "a", "\u017f", "K", "="]))
        text = "".join(parts)
        want = list(_suspects.suspects(text))
        found += len(want)
        cuts = sorted(r.randint(0, len(text)) for _ in range(r.randint(0, 8)))
        pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        monkeypatch.setattr(_suspects, "WINDOW", r.choice([1, 5, 70, 100, 200]))
        assert list(_suspects.suspects_of_pieces(pieces)) == want, text
    assert found > 100
