"""Find and replace secrets inside the JSON of session entries, keys and structure included.

Why two passes: a secret may be recognisable in one place only (``API_TOKEN=...`` in a
``.env`` read) and appear bare elsewhere (echoed in a later command). The first pass runs
the rules over every string and key and learns each secret *value* with its placeholder;
the second replaces, in each string, what the rules find there, and every occurrence of
every value a *confident* rule found (see ``Rule.confident``), so the same secret becomes
the same placeholder everywhere. A guess (``DB_PASSWORD=hunter2``) is replaced only where
it was made: a model name or an image tag taken for a token must not vanish everywhere.

Beyond the rules, the scrubber reads structure: a value under a key that names a secret
(``{"api_key": ...}``, any shape) is one; a string that holds JSON is read as JSON; base64
that decodes to text is decoded and read; a token a terminal wrapped over two lines is
read joined. Keys are scanned like text (a secret used as a key is replaced).

What is never touched: the fields that make the tree and the format (ids, parent ids,
types, timestamps, tool call ids, thinking signatures, image data). So the redacted file
has the same ids, tree and context shape.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import orjson

from ._encodings import (
    BASE64_RUN,
    DIFF_HUNK,
    HEAD_RUN,
    HEX_RUN,
    LONG,
    MAX_DIFF,
    PERCENT,
    PREFIX,
    TAIL_RUN,
    WORD_RUN,
    WRAP,
    WRAP_WINDOW,
    base64_blob,
    nearby,
    text_prefix,
    trie_pattern,
)
from ._rule import Rule, presence_for
from ._shapes import JWK_PRIVATE_MEMBERS, key_material
from ._suspects import SUSPECT, suspects
from ._values import (
    escaped_forms,
    named_pair,
    secret_under,
    strongly_random,
    structural_stand_in,
)

#: fields of an entry (or header) that make the tree and the format, never scanned
ENTRY_KEEP = frozenset(
    {
        "type",
        "id",
        "parentId",
        "timestamp",
        "targetId",
        "fromId",
        "firstKeptEntryId",
        "firstKeptEntryIndex",
        "version",
        "sessionId",
        "toolCallId",
        "_sourceType",
    }
)
#: fields of an agent message that make the format
MESSAGE_KEEP = frozenset({"role", "timestamp", "toolCallId"})
#: fields of a content block that make the format (an image's ``data`` is kept too)
BLOCK_KEEP = frozenset({"type", "id", "thinkingSignature", "textSignature", "signature"})

#: a value under a key that names a secret (``{"password": ...}``)
SECRET_FIELD = Rule("secret-field", confident=strongly_random)
#: base64 whose decoded text holds a secret
BASE64_SECRET = Rule("base64-secret")
#: percent- or hex-encoded text that holds a secret
ENCODED_SECRET = Rule("encoded-secret")
#: base64 of a private key without its ``-----BEGIN`` line
KEY_MATERIAL = Rule("private-key")

_WORD = re.compile(r"[A-Za-z0-9_]")
_NUMBER_EDGE = r"(?<![\w.]){}(?![\w.])"
#: a JSON string literal with an escape in it (a JSON log line, JSON quoted in a command)
_ESCAPED_LITERAL = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"')
#: a string shorter than this is known by itself; past this many known, it is read again
_SHORT_TEXT = 64
_SHORT_KEPT = 1 << 16
#: how deep base64 inside base64, or JSON inside JSON strings, is followed
_MAX_DEPTH = 2


class Span(NamedTuple):
    """A stretch of a string to replace, the rule that found it, and whether the value is
    replaced file-wide; ``alias`` is the value without the line break of a wrapped key."""

    start: int
    end: int
    rule: Rule
    confident: bool
    alias: str | None = None


@dataclass
class Hit:
    """One replacement: where, and by which rule (never the secret itself)."""

    field: str
    rule: str
    placeholder: str


@dataclass
class Scrubber:
    """Learns secret values (``learn``), then replaces them (``scrub``)."""

    rules: list[Rule]
    #: read structure too: values under keys that name secrets (off when the caller's own
    #: rules replace the defaults)
    secret_keys: bool = True
    #: secret value -> (rule name, placeholder)
    known: dict[str, tuple[str, str]] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=dict)
    #: values replaced everywhere in the file (found by a confident rule)
    wide: set[str] = field(default_factory=set)
    _matcher: re.Pattern[str] | None = None
    _matcher_size: int = -1
    #: the text the matcher finds -> the value it stands for (escaped forms included)
    _forms: dict[str, str] = field(default_factory=dict)
    #: the spans found in each string in pass 1, for pass 2, so that each string is read
    #: by the rules once (forks and compactions repeat text; "ls" and "ok" every entry):
    #: a short one is known by itself, a long one by a digest
    _found: dict[str | bytes, tuple[Span, ...]] = field(default_factory=dict)
    #: values replaced only as whole words (host names: "vm1" is not in "vm10")
    _bounded: set[str] = field(default_factory=set)
    #: keys repeat in every entry: their spans are found once
    _key_spans: dict[str, list[Span]] = field(default_factory=dict)

    # -- finding -----------------------------------------------------------------------
    def find(self, text: str, depth: int = 0) -> list[Span]:
        """Every span of ``text`` a rule, a wrapped token or decoded base64 gives."""
        spans = self._rule_spans(text)
        if "\n" in text:
            spans.extend(self._wrapped_spans(text))
        if depth < _MAX_DEPTH and len(text) >= 20:
            spans.extend(self._base64_spans(text, depth))
            spans.extend(self._encoded_spans(text, depth))
            if DIFF_HUNK.search(text) and len(text) <= MAX_DIFF:
                spans.extend(self._diff_spans(text, depth))
        return spans

    def _diff_spans(self, text: str, depth: int) -> list[Span]:
        """A diff's lines read without their ``+``/``-``/`` `` marks: a key or a base64
        block that a diff split over its lines, located in the text as it is."""
        keep = [(m.start(), m.end()) for m in re.finditer(r"(?m)^[+\- ]?([^\n]*\n?)", text)]
        bounds = [
            (start + 1 if text[start : start + 1] in "+- " and start < end else start, end)
            for start, end in keep
        ]
        view = "".join(text[a:b] for a, b in bounds)
        origin = [i for a, b in bounds for i in range(a, b)]
        out: list[Span] = []
        for span in self.find(view, depth + 1):
            if span.end > len(origin) or span.start >= span.end:
                continue
            out.append(
                Span(origin[span.start], origin[span.end - 1] + 1, span.rule, span.confident)
            )
        return out

    def _encoded_spans(self, text: str, depth: int) -> list[Span]:
        """Percent- and hex-encoded runs whose decoded text holds anything the rules find."""
        out: list[Span] = []
        if "%" in text:
            for m in WORD_RUN.finditer(text):
                if "%" not in m.group() or not PERCENT.search(m.group()):
                    continue
                decoded = urllib.parse.unquote(m.group(), errors="replace")
                if self.find(decoded, depth + 1) or self._json_spans(decoded, depth + 1):
                    out.append(Span(m.start(), m.end(), ENCODED_SECRET, True))
        for m in HEX_RUN.finditer(text):
            try:
                decoded = bytes.fromhex(m.group()).decode("utf-8")
            except ValueError:
                continue
            if not all(c.isprintable() or c in "\n\r\t" for c in decoded):
                continue
            if self.find(decoded, depth + 1) or self._json_spans(decoded, depth + 1):
                out.append(Span(m.start(), m.end(), ENCODED_SECRET, True))
        return out

    def _rule_spans(self, text: str) -> list[Span]:
        out: list[Span] = []
        low = text.lower() if len(text) <= LONG else None  # no copy of a long text
        presence = presence_for(self.rules, text, low)
        for rule in self.rules:
            for start, end in rule.spans(text, low, presence):
                out.append(Span(start, end, rule, rule.is_confident(text[start:end])))
        return out

    def _wrapped_spans(self, text: str) -> list[Span]:
        """Tokens broken by a plain line break: the rules run on the lines joined, and a
        match that crosses a join is a span of the text as it is, the break included."""
        joins: list[tuple[int, int]] = []
        for m in WRAP.finditer(text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            before = text[line_start : m.start()].rstrip("\r")
            if len(before) < 20 or not TAIL_RUN.search(before):
                continue
            indent = m.end() - m.start() - (2 if text[m.start()] == "\r" else 1)
            if indent and (
                len(before) - len(before.lstrip(" \t")) != indent or len(before) - indent < 40
            ):
                continue  # an indented line goes on a wrapped one only at its indent
            head = HEAD_RUN.match(text, m.end())
            if head is None:
                continue
            rest = text[head.end() : head.end() + 2]
            if rest[:1] == ":" or (rest[:1] == "=" and rest[1:2] not in ("", "=", "\n", "\r")):
                continue  # the next line is ``NAME=...`` or ``name: ...``: not a wrap
            joins.append(m.span())
        out: list[Span] = []
        for group in nearby(joins):
            # the rules run on a window around the breaks only: a match that crosses a
            # break lies within a token's length of it
            first, last = max(0, group[0][0] - WRAP_WINDOW), group[-1][1] + WRAP_WINDOW
            ends = [*(start for start, _ in group), min(len(text), last)]
            bounds = list(zip([first, *(end for _, end in group)], ends, strict=True))
            joined = "".join(text[start:end] for start, end in bounds)
            origin = [i for start, end in bounds for i in range(start, end)]
            for span in self._rule_spans(joined):
                start, end = origin[span.start], origin[span.end - 1]
                if end - start == span.end - 1 - span.start:
                    continue  # no break inside: the rules found it in the text as it is
                value = joined[span.start : span.end]
                out.append(Span(start, end + 1, span.rule, span.confident, value))
        return out

    def _base64_spans(self, text: str, depth: int) -> list[Span]:
        """Base64 whose decoded text holds anything the rules find (a ``.env`` encoded)."""
        out: list[Span] = []
        for m in BASE64_RUN.finditer(text):
            blob = base64_blob(m.group())
            if blob is None:
                continue
            try:
                head = base64.b64decode(blob[:PREFIX], validate=True)
            except ValueError:
                continue
            if self.secret_keys and key_material(head[:48]):
                out.append(Span(m.start(), m.end(), KEY_MATERIAL, True))
                continue
            if not text_prefix(head):
                continue  # binary (an image, a random blob): decoded no further
            try:
                raw = base64.b64decode(blob, validate=True) if len(blob) > PREFIX else head
            except ValueError:
                continue
            try:
                decoded = raw.decode("utf-8")
            except UnicodeDecodeError:
                continue
            if len(decoded) < 8 or not all(c.isprintable() or c in "\n\r\t" for c in decoded):
                continue
            if self.find(decoded, depth + 1) or self._json_spans(decoded, depth + 1):
                out.append(Span(m.start(), m.end(), BASE64_SECRET, True))
        return out

    def _json_spans(self, text: str, depth: int) -> list[Span]:
        """A string that is JSON, read as JSON: values under secret keys, and what the
        rules find in its strings once unescaped, located in the text as written."""
        if not self.secret_keys or depth > _MAX_DEPTH:
            return []
        head = text.lstrip()[:1]
        if head not in ("{", "[") or len(text) < 8:
            return []
        try:
            obj = orjson.loads(text)
        except orjson.JSONDecodeError:
            return []
        if not isinstance(obj, dict | list):
            return []
        out: list[Span] = []
        for value, rule, confident, quoted in self._embedded(obj, False, depth):
            for form in {value, *escaped_forms(value)} - {""}:
                needle = re.escape(form)
                if quoted == "number":
                    needle = _NUMBER_EDGE.format(needle)
                elif quoted:
                    needle = '(?<=")' + needle + '(?=")'
                out.extend(Span(*m.span(), rule, confident) for m in re.finditer(needle, text))
        return out

    def _embedded(
        self, obj: Any, secret: bool, depth: int
    ) -> Iterator[tuple[str, Rule, bool, str | None]]:
        """(value, rule, confident, how it is bounded) for each secret in parsed JSON."""
        if isinstance(obj, str):
            if secret and not structural_stand_in(obj):
                yield obj, SECRET_FIELD, strongly_random(obj), "string"
            for span in self.find(obj, depth) + self._json_spans(obj, depth + 1):
                yield obj[span.start : span.end], span.rule, span.confident, None
        elif isinstance(obj, bool) or obj is None:
            return
        elif isinstance(obj, int | float):
            if secret:
                yield json.dumps(obj), SECRET_FIELD, False, "number"
        elif isinstance(obj, dict):
            pair = named_pair(obj)
            for key, value in obj.items():
                for span in self.find(key, depth):
                    yield key[span.start : span.end], span.rule, span.confident, None
                inner = secret or secret_under(key, value) or (pair and key == "value")
                yield from self._embedded(value, inner, depth)
        elif isinstance(obj, list):
            for value in obj:
                yield from self._embedded(value, secret, depth)

    def _literal_spans(self, text: str, depth: int) -> list[Span]:
        """JSON string literals inside text, unescaped and read: a key a log line's JSON
        wrapped (``\\n``), a password behind escaped quotes; located by their escaped form."""
        if depth > _MAX_DEPTH or "\\" not in text:
            return []
        out: list[Span] = []
        for m in _ESCAPED_LITERAL.finditer(text):
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
            for span in found:
                value = decoded[span.start : span.end]
                for form in {value, *escaped_forms(value)} - {""}:
                    at = re.compile(re.escape(form)).finditer(text, m.start(), m.end())
                    out.extend(Span(*f.span(), span.rule, span.confident) for f in at)
        return out

    def spans(self, text: str) -> list[Span]:
        """What is replaced in ``text`` wherever it is (before the file-wide values)."""
        return self.find(text) + self._json_spans(text, 0) + self._literal_spans(text, 0)

    # -- learning ----------------------------------------------------------------------
    def _learn_value(self, value: str, rule: Rule, confident: bool) -> str:
        """The value's placeholder (made on first sight); file-wide when ``confident``."""
        if value not in self.known:
            n = self.counters.get(rule.name, 0) + 1
            self.counters[rule.name] = n
            self.known[value] = (rule.name, rule.make_placeholder(n, value))
        if confident and value.strip() and value not in self.wide:
            self.wide.add(value)
            if rule.word_bounded:
                self._bounded.add(value)
        return self.known[value][1]

    def _cached_spans(self, text: str) -> tuple[tuple[Span, ...], bool]:
        """The spans of ``text`` and whether they were found before."""
        key: str | bytes = text
        if len(text) >= _SHORT_TEXT:
            digest = hashlib.blake2b(digest_size=16)
            for at in range(0, len(text), LONG):  # a long text is hashed a piece at a time
                digest.update(text[at : at + LONG].encode("utf-8", "surrogatepass"))
            key = digest.digest()
        known = self._found.get(key)
        if known is not None:
            return known, True
        found = tuple(self.spans(text))
        if isinstance(key, bytes) or len(self._found) < _SHORT_KEPT:
            self._found[key] = found
        return found, False

    def learn_text(self, text: str) -> None:
        found, before = self._cached_spans(text)
        if before:
            return
        for span in found:
            self._learn_value(text[span.start : span.end], span.rule, span.confident)
            if span.alias is not None:
                self._learn_value(span.alias, span.rule, span.confident)

    def learn(self, obj: Any, where: str = "entry") -> None:
        self._walk(obj, where, "", False, None)

    # -- replacing ---------------------------------------------------------------------
    def matcher(self) -> re.Pattern[str] | None:
        """One regex over every file-wide value and its JSON-escaped forms, longest first
        (host names as whole words)."""
        if self._matcher_size != len(self.wide):
            self._forms = {}
            for value in self.wide:
                self._forms.setdefault(value, value)
                for form in escaped_forms(value):
                    self._forms.setdefault(form, value)
            parts: list[str] = []
            plain: list[str] = []
            for form in sorted(self._forms, key=len, reverse=True):
                if self._forms[form] in self._bounded:
                    head = r"(?<![A-Za-z0-9_])" if _WORD.match(form[0]) else ""
                    tail = r"(?![A-Za-z0-9_])" if _WORD.match(form[-1]) else ""
                    parts.append(head + re.escape(form) + tail)
                else:
                    plain.append(form)
            if plain:
                parts.append(trie_pattern(plain))
            self._matcher = re.compile("|".join(parts)) if parts else None
            self._matcher_size = len(self.wide)
        return self._matcher

    def scrub_text(
        self, text: str, path: str, hits: list[Hit], spans: list[Span] | None = None
    ) -> str:
        """``text`` with what the rules find in it, and every file-wide value, replaced;
        what still looks like a secret after that is reported as a suspect, and kept."""
        new = self._replaced(text, path, hits, spans)
        if self.secret_keys:
            hits.extend(Hit(path, SUSPECT, why) for why in suspects(new))
        return new

    def _replaced(
        self, text: str, path: str, hits: list[Hit], spans: list[Span] | None = None
    ) -> str:
        found = list(self._cached_spans(text)[0] if spans is None else spans)
        matcher = self.matcher()
        if matcher is not None:
            for m in matcher.finditer(text):
                rule_name = self.known[self._forms[m.group(0)]][0]
                found.append(Span(m.start(), m.end(), Rule(rule_name), True))
        if not found:
            return text
        found.sort(key=lambda s: (s.start, -s.end))
        out: list[str] = []
        last = 0
        group: list[Span] = []
        for span in [*found, Span(len(text) + 1, len(text) + 1, found[0].rule, False)]:
            if group and span.start >= max(s.end for s in group):
                start, end = group[0].start, max(s.end for s in group)
                value = text[start:end]
                if value in self.known:
                    rule_name, placeholder = self.known[value]
                elif value in self._forms:  # an escaped form of a file-wide value
                    rule_name, placeholder = self.known[self._forms[value]]
                else:
                    longest = max(group, key=lambda s: s.end - s.start)
                    placeholder = self._learn_value(value, longest.rule, False)
                    rule_name = longest.rule.name
                hits.append(Hit(path, rule_name, placeholder))
                out.append(text[last:start])
                out.append(placeholder)
                last = end
                group = []
            group.append(span)
        out.append(text[last:])
        return "".join(out)

    def scrub(self, obj: Any, hits: list[Hit], where: str = "entry") -> Any:
        """A copy of ``obj`` with secrets replaced (``obj`` itself if nothing changed)."""
        return self._walk(obj, where, "", False, hits)

    # -- the walk ----------------------------------------------------------------------
    def _walk(self, obj: Any, where: str, path: str, secret: bool, hits: list[Hit] | None) -> Any:
        """Learn (``hits`` is None) or replace, through strings, keys and numbers."""
        if isinstance(obj, str):
            return self._string(obj, path, secret, hits)
        if isinstance(obj, bool) or obj is None:
            return obj
        if isinstance(obj, int | float):
            if not secret:
                return obj
            placeholder = self._learn_value(json.dumps(obj), SECRET_FIELD, False)
            if hits is None:
                return obj
            hits.append(Hit(path, SECRET_FIELD.name, placeholder))
            return placeholder
        if isinstance(obj, dict):
            return self._dict(obj, where, path, secret, hits)
        if isinstance(obj, list):
            inner = "block" if where == "content" else "data"
            items = [self._walk(v, inner, _join(path, i), secret, hits) for i, v in enumerate(obj)]
            return items if any(a is not b for a, b in zip(items, obj, strict=True)) else obj
        return obj

    def _dict(
        self, obj: dict[str, Any], where: str, path: str, secret: bool, hits: list[Hit] | None
    ) -> dict[str, Any]:
        pair = self.secret_keys and named_pair(obj)
        jwk = self.secret_keys and isinstance(obj.get("kty"), str)
        out: dict[str, Any] = {}
        changed = False
        for key, value in obj.items():
            if where == "block" and key == "data" and isinstance(value, str):
                new_data = self._image_data(obj, value, _join(path, key), hits)
                changed = changed or new_data is not value
                out[key] = new_data
                continue
            if _keep(key, where, obj):
                out[key] = value
                continue
            new_key = self._key(key, _join(path, "(key)"), hits)
            inner = secret or (
                self.secret_keys
                and (
                    secret_under(key, value)
                    or (pair and key == "value")
                    or (jwk and key in JWK_PRIVATE_MEMBERS)
                )
            )
            new = self._walk(value, _child_where(key, where), _join(path, new_key), inner, hits)
            if new_key != key:
                base, n = new_key, 1
                while new_key in out or new_key in obj:
                    n += 1
                    new_key = f"{base}#{n}"
            changed = changed or new is not value or new_key != key
            out[new_key] = new
        return out if changed else obj

    def _image_data(
        self, block: dict[str, Any], data: str, path: str, hits: list[Hit] | None
    ) -> str:
        """An image block's data, scrubbed when it is text (an SVG): base64 in, base64 out."""
        if block.get("type") != "image":
            return self._walk(data, "data", path, False, hits)  # type: ignore[no-any-return]
        mime = str(block.get("mimeType") or block.get("mime_type") or "")
        textual = any(word in mime for word in ("svg", "xml", "text"))
        if not textual and not data.startswith(("PHN2Zy", "PD94bW", "PCFET0")):
            return data  # neither said nor seen to be text (<svg, <?xml, <!DOCTYPE)
        try:
            text = base64.b64decode(data, validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return data
        new = self._string(text, path, False, hits)
        if new == text:
            return data
        return base64.b64encode(new.encode("utf-8")).decode("ascii")

    def _key(self, key: str, path: str, hits: list[Hit] | None) -> str:
        spans = self._key_spans.get(key)
        if spans is None:
            spans = self.spans(key)
            if len(key) <= 200:
                self._key_spans[key] = spans
        if hits is None:
            for span in spans:
                self._learn_value(key[span.start : span.end], span.rule, span.confident)
            return key
        return self.scrub_text(key, path, hits, list(spans))

    def _string(self, text: str, path: str, secret: bool, hits: list[Hit] | None) -> str:
        if secret and not structural_stand_in(text):
            placeholder = self._learn_value(text, SECRET_FIELD, strongly_random(text))
            if hits is None:
                self.learn_text(text)  # a provider token inside is known file-wide too
                return text
            hits.append(Hit(path, SECRET_FIELD.name, placeholder))
            return placeholder
        if hits is None:
            self.learn_text(text)
            return text
        return self.scrub_text(text, path, hits)


def _keep(key: str, where: str, obj: dict[str, Any]) -> bool:
    if where == "entry":
        return key in ENTRY_KEEP
    if where == "message":
        return key in MESSAGE_KEEP
    if where == "block":
        return key in BLOCK_KEEP or (key == "data" and obj.get("type") == "image")
    return False


def _child_where(key: str, where: str) -> str:
    """The kind of object under ``key``: a message, a list of content blocks, or free data."""
    if where == "entry" and key == "message":
        return "message"
    if where in ("entry", "message") and key == "content":
        return "content"
    return "data"


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key
