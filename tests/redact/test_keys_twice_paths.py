"""Long keys, JSON held in a string twice and long lines orjson refuses are redacted as
they were before their memory was bounded: the same file, report and suspects.

The code before is the oracle, kept here: every word of a key's name read to learn its
class (``_values._name_words`` made to list them all), its separators taken out by
``re.sub``; an escaped literal's spans, of all its finders at once, all kept beside the
text's own (``SpanFinder.spans`` and ``_literal_spans`` as they were); spans and cuts
held as a ``Span`` and a tuple each, the spans sorted as ``Span`` objects
(``SpanList.in_order``), the literal's spans told from the text's by a set of tuples
(``_span_list.not_in``), the cuts a list (``_pending.Cuts``) and a new text joined from
a list of all its pieces (``_pending.joined``); a refused line copied
without its line end, read while orjson's error is alive (``_lines.parse_line`` as it
was). Every other secret kind
of the corpus is placed in a long key (ending in a secret's words, a qualifier, a
secret's id), in JSON stringified twice (short, and long enough to be read as a stream),
and in an escaped literal in prose; and a few in long lines orjson refuses (a huge
number, a lone surrogate, glued entries, nesting past orjson's depth, a BOM).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path

import orjson
import pytest
from secret_corpus import plant

from prime_nb.format import BOM, deep_enough, lenient_loads
from prime_nb.redact import Redaction, redact
from prime_nb.redact._find import MAX_DEPTH, Span, SpanFinder
from prime_nb.redact._span_list import SpanList, _same

_find = sys.modules["prime_nb.redact._find"]
_values = sys.modules["prime_nb.redact._values"]
_lines = sys.modules["prime_nb.redact._lines"]
_scrub = sys.modules["prime_nb.redact._scrub"]

HEAD = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}
#: words enough that a key's name is too long to be a secret's (over 80 characters)
FILLER = "the deploy failed again so I read every log line and retried it twice over " * 2
#: how a long key ends: its last words decide its class
ENDINGS = ["", " secret id", "_password_length", " api key", "Token", " DB_PASSWORD"]


def _snippets() -> list[str]:
    kinds: dict[str, str] = {}
    for _, item in plant():
        kinds.setdefault(item.kind, item.snippet)
    return list(kinds.values())


def _entry(i: int, content: object) -> str:
    message = {"role": "user", "content": content, "timestamp": 0}
    entry = {"type": "message", "id": f"m{i}", "parentId": None, "timestamp": "2026"}
    return json.dumps({**entry, "message": message})


def _session_lines() -> list[str]:
    snippets = _snippets()
    contents: list[object] = []
    for i, snippet in enumerate(snippets[::2]):  # every other kind: time is scarce
        ending = ENDINGS[i % len(ENDINGS)]
        contents.append({FILLER + snippet + ending: "Zq8vN2xL5pT7rWk3J9mB", "n": 1})
        records = [{"note": snippet}, {"password": f"Pw{i}x9Lq"}, {"name": "a", "value": snippet}]
        contents.append(json.dumps(json.dumps(records)))
        contents.append("the log said " + json.dumps({"msg": snippet}) + " and went on")
    records = [
        {"note": snippet, "api_key": f"k{i:06d}Zq8vN2xL5p", "log": FILLER * 8}
        for i, snippet in enumerate(snippets[::4])
    ]
    contents.append(json.dumps(json.dumps(records)))  # read as a stream (over 64 KB)
    # many spans in one text (sorted and told apart as columns), some overlapping
    records = [{"note": snippets[i % len(snippets)] + " pw=Zq8vN2xL"} for i in range(200)]
    # names read without their separators (``_``, ``.``, ``-``, white space)
    names = ["X-Api-Key", "client.secret", "max_token", "page-token", "next.token", "eos token"]
    records += [{name: f"Hv{i}q8vN2xL5pT7rWk3J"} for i, name in enumerate(names)]
    # a key of many secrets: its new name joined a batch of pieces at a time
    contents.append({"".join(f"x{i} password=Hq{i}vN2xL5p " for i in range(300)): 1})
    contents.append(json.dumps(json.dumps(records)))
    lines = [json.dumps(HEAD), *(_entry(i, content) for i, content in enumerate(contents))]
    return lines + _refused(snippets[1::8])


def _refused(snippets: list[str]) -> list[str]:
    """Long lines (over 64 KB: read into one buffer) that orjson refuses, with secrets."""
    entry = _entry(9000, " ".join(snippets) + " " + FILLER * 250)[:-1]
    pad = ', "pad": ' + "1" * 40_000  # past a double's range: refused too
    deep = "[" * 1100 + json.dumps(snippets[0]) + "]" * 1100
    return [
        entry + pad + "}",
        entry.replace('"content": "', '"content": "\\ud83d ', 1) + pad + "}",  # a lone surrogate
        entry + "}" + entry.replace('"m9000"', '"m9001"') + "}",  # glued
        entry + ', "deep": ' + deep + pad + "}",  # nested past orjson's depth
        BOM.decode() + entry + pad + "}",
    ]


def _old_literal_spans(self: SpanFinder, text: str, depth: int) -> list[Span]:
    """``_literal_spans`` before: the spans of every finder of a literal held at once."""
    if depth > MAX_DEPTH or "\\" not in text:
        return []
    out: list[Span] = []
    for m in _find._ESCAPED_LITERAL.finditer(text):
        if "\\" not in m.group(0):
            continue
        try:
            decoded = json.loads(m.group(0))
        except ValueError:
            continue
        if not isinstance(decoded, str):
            continue
        found = self.find(decoded, depth + 1) + self._json_spans(decoded, depth + 1)
        found += self._literal_spans(decoded, depth + 1)
        forms: dict[tuple[str, object, bool], None] = {}
        for span in found:
            value = decoded[span.start : span.end]
            for form in {value, *_find.escaped_forms(value)} - {""}:
                forms[form, span.rule, span.confident] = None
        for form, rule, confident in forms:
            at = re.compile(re.escape(form)).finditer(text, m.start(), m.end())
            out.extend(Span(*f.span(), rule, confident) for f in at)  # type: ignore[arg-type]
    return out


def _old_spans(self: SpanFinder, text: str, note: object = None) -> list[Span]:
    """``spans`` before: what the literals give kept beside the same spans of the text."""
    found = self.find(text, 0, note)  # type: ignore[arg-type]
    return found + self._json_spans(text, 0) + self._literal_spans(text, 0)


def _old_parse_line(
    number: int, offset: int, held: list[bytes | bytearray], streamed: bool = False
) -> object:
    """``parse_line`` before: a refused line copied without its line end, and read while
    orjson's error is alive."""
    Line = _lines.Line
    raw = held.pop()
    length = len(raw)
    tail = _lines.line_end(raw)
    head = BOM if raw.startswith(BOM) else b""
    if streamed and _lines.many_values(raw):
        return Line(number, offset, raw, length, head, tail, _lines.STREAMED, None)
    kept = raw if length <= _lines.KEEP_RAW else None
    body = raw[len(head) : length - len(tail)] if head else raw
    if not body or body.isspace():
        return Line(number, offset, kept, length, head, tail, None, None)
    try:
        obj = _lines.parsed_apart(body) if length > _lines.KEEP_RAW else None
        obj = orjson.loads(body) if obj is None else obj
    except orjson.JSONDecodeError:
        body = body[: len(body) - len(tail)] if body is raw else body
        glued = _lines.read_glued(body)
        if glued is not None:
            return Line(number, offset, kept, length, head, tail, glued, None)
        obj, _repair = lenient_loads(body.decode("utf-8", errors="replace"))
        obj = _lines.fit(obj) if deep_enough(body) else obj
        return Line(number, offset, kept, length, head, tail, obj, "repaired-line")
    repeated = _lines.repeated_keys(obj, body)
    return Line(number, offset, kept, length, head, tail, obj, "repeated-key" if repeated else None)


def _old_in_order(self: SpanList) -> tuple[list[int], list[int], list[Span]]:
    ordered = sorted(self, key=lambda s: (s.start, -s.end))
    return [s.start for s in ordered], [s.end for s in ordered], ordered


def _old_not_in(spans: SpanList, found: SpanList) -> list[Span]:
    seen = {_same(span) for span in found}
    return [span for span in spans if _same(span) not in seen]


def _old_key_class(name: str) -> str | None:
    """``_values._key_class`` before: the separators taken out by ``re.sub``."""
    bare = name.strip("\"'`[]\\")
    norm = re.sub(r"[\s_.\-]+", "", bare.lower())
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


def _old_joined(text: str, cuts: Iterable[tuple[int, int, str]]) -> str:
    out: list[str] = []
    last = 0
    for start, end, placeholder in cuts:
        out.append(text[last:start])
        out.append(placeholder)
        last = end
    out.append(text[last:])
    return "".join(out)


def _every_word(bare: str, every: bool) -> list[str]:
    return [w.lower() for w in _values._NAME_WORDS.findall(bare)]


def _redacted(path: Path, name: str) -> Redaction:
    _values._cached_key_class.cache_clear()
    try:
        return redact(path, path.with_name(name), hostnames=[])
    finally:
        _values._cached_key_class.cache_clear()


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> tuple[Redaction, Redaction]:
    """The session redacted as the code is, then as it was."""
    path = tmp_path_factory.mktemp("keys") / "session.jsonl"
    path.write_text("\n".join(_session_lines()) + "\n", encoding="utf-8")
    now = _redacted(path, "now.jsonl")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_values, "_name_words", _every_word)
        patch.setattr(SpanFinder, "_literal_spans", _old_literal_spans)
        patch.setattr(SpanFinder, "spans", _old_spans)
        patch.setattr(_lines, "parse_line", _old_parse_line)
        patch.setattr(_values, "_key_class", _old_key_class)
        patch.setattr(SpanList, "in_order", _old_in_order)
        patch.setattr(_find, "not_in", _old_not_in)
        patch.setattr(_scrub, "Cuts", list)
        patch.setattr(_scrub, "joined", _old_joined)
        before = _redacted(path, "before.jsonl")
    return now, before


def test_long_keys_and_json_twice_are_redacted_as_before(
    both: tuple[Redaction, Redaction],
) -> None:
    now, before = both
    assert now.path is not None and before.path is not None
    assert now.path.read_bytes() == before.path.read_bytes()
    assert now.report.equals(before.report), (now.report, before.report)
    assert now.suspects.equals(before.suspects)


def test_the_session_holds_what_the_paths_read(both: tuple[Redaction, Redaction]) -> None:
    """Each path has something to do: long keys renamed, literals' secrets replaced,
    refused lines read (and their secrets replaced)."""
    now, _ = both
    fields = now.report["field"].astype(str)
    assert fields.str.contains(r"\(key\)", regex=True).sum() >= 100
    assert (now.report["rule"] == "secret-field").sum() >= 100
    last = now.report["line"].max()
    assert now.report["line"].isin(range(last - 4, last + 1)).sum() >= 5


def test_a_refused_line_held_by_a_view_is_copied_not_cut() -> None:
    """A line's buffer is cut in place only when nothing else holds a view of it."""
    line = bytearray(b'{"n": 1}\n')
    assert _lines._without_end(line, b"\n", True) is line and line == b'{"n": 1}'
    line = bytearray(b'{"n": 1}\r\n')
    with memoryview(line):
        body = _lines._without_end(line, b"\r\n", True)
    assert body == b'{"n": 1}' and body is not line and line == b'{"n": 1}\r\n'
    assert _lines._without_end(b'{"n": 1}\n', b"\n", True) == b'{"n": 1}'
