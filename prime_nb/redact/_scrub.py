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

What is never touched: the fields that make the format (types, timestamps, image
data). The fields that make the tree and pair a call with its result
(``id``, ``parentId``, ``toolCallId``, ...: :data:`ID_FIELDS`) are read like text, never
as a secret by their key: an id stays as written unless a rule finds a secret in it, and
then the same id is replaced the same way wherever it is written (a string's spans and
the file-wide values are the same in every place), so a call still finds its result and
an entry its parent.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import sys
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ._batch import left_out
from ._encodings import PIECE
from ._entry_fields import (
    ID_FIELDS,
    IMAGE,
    KEEP,
    WALK,
    Plan,
    child_where,
    join,
    kept_as_format,
)
from ._find import SECRET_FIELD, SpanFinder
from ._findings import WIDE_MAX
from ._known import KnownValues
from ._pending import LONG_TEXT, Cut, Cuts, PendingTexts, joined, new_pieces
from ._rule import Rule
from ._shapes import JWK_PRIVATE_MEMBERS
from ._span_list import Span, SpanList, held
from ._suspects import SUSPECT, suspects, suspects_of_pieces
from ._values import (
    escaped_forms,
    named_pair,
    secret_under,
    strongly_random,
    structural_stand_in,
)
from ._view_suspects import Found, ViewSuspects, kept
from ._whole_secret import tree_pieces, values_over, whole_placeholder
from ._wide_match import WideMatcher

#: a string shorter than this is known by itself (a longer one by its length and hash);
#: past this many texts' spans known, short or long, a text is read again: a file of
#: many lines must not be held again as the cache
_SHORT_TEXT = 64
_SHORT_KEPT = 1 << 16
#: an object with this many new short keys and strings has them dispatched together
_BATCH_LEAST = 16
#: how many keys' spans are remembered: keys repeat in every entry, and a line's object
#: of thousands of distinct keys must not be held again as the cache
_KEYS_KEPT = 1 << 10
#: how many short strings' scrubbed forms (and strings known clean) are remembered: a
#: session's repeats (tool names, roles, paths) are few, and a line of thousands of
#: distinct short strings must not be held again as the memo
_SCRUBBED_KEPT = 1 << 12


@dataclass(slots=True)
class Hit:
    """One replacement: where, and by which rule (never the secret itself)."""

    field: str
    rule: str
    placeholder: str


class Hits(Protocol):
    """Where hits go: a list, or the report's columns (``_report.HitColumns``)."""

    def append(self, hit: Hit, /) -> None: ...

    def extend(self, hits: Iterable[Hit], /) -> None: ...


@dataclass
class Scrubber(SpanFinder):
    """Learns secret values (``learn``), then replaces them (``scrub``)."""

    rules: list[Rule]
    #: read structure too: values under keys that name secrets (off when the caller's own
    #: rules replace the defaults)
    secret_keys: bool = True
    #: secret value -> (rule name, placeholder), a placeholder made from its number kept
    #: as that number (``_known``)
    known: KnownValues = field(default_factory=KnownValues)
    counters: dict[str, int] = field(default_factory=dict)
    #: values replaced everywhere in the file (found by a confident rule)
    wide: set[str] = field(default_factory=set)
    _matcher: WideMatcher | None = None
    _matcher_size: int = -1
    #: the text the matcher finds -> the value it stands for (escaped forms included)
    _forms: dict[str, str] = field(default_factory=dict)
    #: the spans found in each string in pass 1, for pass 2, so that each string is read
    #: by the rules once (forks and compactions repeat text; "ls" and "ok" every entry):
    #: a short one is known by itself, a long one by a digest
    _found: dict[TextKey, Sequence[Span]] = field(default_factory=dict)
    #: the suspects of the views decoded from each string in pass 1 (see
    #: ``_view_suspects``), for pass 2: only those of strings that have any
    _in_views: dict[TextKey, tuple[Found, ...]] = field(default_factory=dict)
    #: values replaced only as whole words (host names: "vm1" is not in "vm10")
    _bounded: set[str] = field(default_factory=set)
    _rule_memo: dict[str, Sequence[Span]] = field(default_factory=dict)
    _rule_memo_size: int = 0
    _clean: set[str] = field(default_factory=set)
    #: keys repeat in every entry: their spans are found once
    _key_spans: dict[str, Sequence[Span]] = field(default_factory=dict)
    #: pass 2's answer for a short string or key (its new text, None when unchanged, and
    #: its hits' rules and placeholders in order), made once while the file-wide values
    #: stay the same: keys, roles and tool names repeat in every entry
    _scrubbed: dict[str, tuple[str | None, tuple[tuple[str, str], ...]]] = field(
        default_factory=dict
    )
    _scrubbed_wide: int = -1
    #: where a long text's new text waits to be written in pieces (see ``_pending.py``);
    #: None: every new text is built whole
    pending: PendingTexts | None = None
    #: values the walks in place replaced (:meth:`scrub_in_place` tells a change by it)
    _replaced: int = 0

    def forget(self) -> None:
        """Let go of what the walk learned and remembered (the known values, the spans of
        texts, the memos), once the file is written: the report is built after it, and a
        line of many distinct values must not hold both at once."""
        self.known = KnownValues()
        self.wide = set()
        self._bounded = set()
        self._forms = {}
        self._matcher, self._matcher_size = None, -1
        for memo in (self._found, self._in_views, self._rule_memo, self._key_spans):
            memo.clear()
        self._rule_memo_size = 0
        self._clean.clear()
        self._scrubbed.clear()
        self._scrubbed_wide = -1

    # -- learning ----------------------------------------------------------------------
    def _learn_value(self, value: str, rule: Rule, confident: bool) -> str:
        """The value's placeholder (made on first sight); file-wide when ``confident``
        (a long value never: see :data:`WIDE_MAX`)."""
        if len(value) > WIDE_MAX:
            value = _value_key(value, 0, len(value))
        if value.startswith(_LONG_KEY):
            confident = False
        known = self.known.get(value)
        if known is None:
            n = self.counters.get(rule.name, 0) + 1
            self.counters[rule.name] = n
            self.known.add(value, rule, n)
            known = self.known[value]
        if confident and value.strip() and value not in self.wide:
            self.wide.add(value)
            if rule.word_bounded:
                self._bounded.add(value)
        return known[1]

    def _cached_spans(self, text: str) -> tuple[Sequence[Span], bool]:
        """The spans of ``text`` and whether they were found before."""
        key = _text_key(text)
        known = self._found.get(key)
        if known is not None:
            return known, True
        note = ViewSuspects(text) if self.secret_keys else None
        found = held(self.spans(text, note))
        if len(self._found) < _SHORT_KEPT:
            self._found[key] = found
        if note is not None and note.found and len(self._in_views) < _SHORT_KEPT:
            self._in_views[key] = tuple(note.found)
        return found, False

    def learn_text(self, text: str) -> None:
        found, before = self._cached_spans(text)
        if before:
            return
        for span in found:
            self._learn_value(_value_key(text, span.start, span.end), span.rule, span.confident)
            if span.alias is not None:
                self._learn_value(span.alias, span.rule, span.confident)

    def learn(self, obj: Any, where: str = "entry") -> None:
        self._walk(obj, where, "", False, None)

    # -- replacing ---------------------------------------------------------------------
    def matcher(self) -> WideMatcher | None:
        """Every file-wide value and its JSON-escaped forms, longest first (host names as
        whole words), found as one regex over them all would (``_wide_match``)."""
        if self._matcher_size != len(self.wide):
            self._forms = {}
            for value in self.wide:
                self._forms.setdefault(value, value)
                for form in escaped_forms(value):
                    self._forms.setdefault(form, value)
            forms = sorted(self._forms, key=len, reverse=True)
            ordered = [(form, self._forms[form] in self._bounded) for form in forms]
            self._matcher = WideMatcher(ordered) if ordered else None
            self._matcher_size = len(self.wide)
        return self._matcher

    def scrub_text(
        self,
        text: str,
        path: str,
        hits: Hits,
        spans: Sequence[Span] | None = None,
        pieces: bool = False,
    ) -> str:
        """``text`` with what the rules find in it, and every file-wide value, replaced;
        what still looks like a secret after that is reported as a suspect, and kept.
        With ``pieces``, a changed text over :data:`LONG_TEXT` is not built: a stand-in
        for it is returned, written later from :attr:`pending`."""
        cuts = self._cuts(text, path, hits, spans)
        if pieces and cuts and self.pending is not None and len(text) > LONG_TEXT:
            if self.secret_keys:
                found = suspects_of_pieces(lambda: new_pieces(text, cuts))
                hits.extend(Hit(path, SUSPECT, why) for why in found)
                self._view_hits(text, path, hits, cuts)
            return self.pending.stand_in(text, cuts)
        new = joined(text, cuts) if cuts else text
        if self.secret_keys:
            hits.extend(Hit(path, SUSPECT, why) for why in suspects(new))
            self._view_hits(text, path, hits, cuts)
        return new

    def _view_hits(self, text: str, path: str, hits: Hits, cuts: Sequence[Cut]) -> None:
        """The suspects of ``text``'s decoded views that no cut replaced."""
        if self._in_views:
            found = self._in_views.get(_text_key(text))
            if found:
                hits.extend(Hit(path, SUSPECT, why) for why in kept(found, cuts))

    def _cuts(
        self, text: str, path: str, hits: Hits, spans: Sequence[Span] | None = None
    ) -> Sequence[Cut]:
        """Where ``text`` changes, in order: what the rules find and every file-wide value,
        overlapping finds merged, each with its placeholder (a hit each)."""
        found = SpanList(self._cached_spans(text)[0] if spans is None else spans)
        matcher = self.matcher()
        if matcher is not None:
            for start, end, form in matcher.found(text):
                rule_name = self.known[self._forms[form]][0]
                found.append(Span(start, end, _named_rule(rule_name), True))
        if not found:
            return []
        starts, ends, ordered = found.in_order()
        cuts = Cuts()
        known, forms = self.known, self._forms
        first, count = 0, len(found)
        while first < count:  # a group: the spans that overlap the ones before them
            start, end = starts[first], ends[first]
            after = first + 1
            while after < count and starts[after] < end:
                end = max(end, ends[after])
                after += 1
            value = _value_key(text, start, end)
            pair = known.get(value)
            if pair is not None:
                rule_name, placeholder = pair
            elif value in forms:  # an escaped form of a file-wide value
                rule_name, placeholder = known[forms[value]]
            else:
                longest = max(ordered[first:after], key=lambda s: s.end - s.start)
                placeholder = self._learn_value(value, longest.rule, False)
                rule_name = longest.rule.name
            hits.append(Hit(path, rule_name, placeholder))
            cuts.append((start, end, placeholder))
            first = after
        return cuts

    def as_written(self, text: str) -> str:
        """What pass 2 writes for the string ``text`` (an entry's id, which the report
        names the entry by: a secret in it must not reach the report)."""
        found: list[Hit] = []
        if len(text) < _SHORT_TEXT:
            return self._scrub_short(text, "", found)
        return self.scrub_text(text, "", found)

    def scrub(self, obj: Any, hits: Hits, where: str = "entry") -> Any:
        """A copy of ``obj`` with secrets replaced (``obj`` itself if nothing changed)."""
        return self._walk(obj, where, "", False, hits)

    def scrub_in_place(self, obj: Any, hits: Hits, where: str = "entry") -> tuple[Any, bool]:
        """``obj`` scrubbed in place, a value replaced once its new one is made (an old
        string is not held beside its new one till the walk ends), and whether it changed:
        for a tree the caller owns and reads nothing of after (a line just parsed)."""
        before = self._replaced
        new = self._walk(obj, where, "", False, hits, True)
        return new, new is not obj or self._replaced != before

    # -- the walk ----------------------------------------------------------------------
    def _walk(
        self, obj: Any, where: str, path: str, secret: bool, hits: Hits | None, own: bool = False
    ) -> Any:
        """Learn (``hits`` is None) or replace, through strings, keys and numbers; lists
        and objects changed in place where they are the caller's ``own``."""
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
        if secret and isinstance(obj, dict | list) and values_over(obj):
            placeholder = whole_placeholder(self, tree_pieces(obj), path, hits is None)
            if hits is None:
                return obj
            hits.append(Hit(path, SECRET_FIELD.name, placeholder))
            return placeholder
        if isinstance(obj, dict):
            return self._dict(obj, where, path, secret, hits, own)
        if isinstance(obj, list):
            inner = "block" if where == "content" else "data"
            if own:
                for i, item in enumerate(obj):
                    new = self._walk(item, inner, join(path, i), secret, hits, True)
                    if new is not item:
                        obj[i] = new  # the old item let go now (``item`` is rebound next)
                        self._replaced += 1
                return obj
            items = [self._walk(v, inner, join(path, i), secret, hits) for i, v in enumerate(obj)]
            return items if any(a is not b for a, b in zip(items, obj, strict=True)) else obj
        return obj

    def _dict(
        self, obj: dict[str, Any], where: str, path: str, secret: bool, hits: Hits | None, own: bool
    ) -> dict[str, Any]:
        """A copy of ``obj`` walked (``obj`` if nothing changed), or ``obj`` changed in
        place where it is the caller's ``own`` (rebuilt in its order if a key changed)."""
        if hits is None and len(obj) >= _BATCH_LEAST:
            self._dispatch_together(obj)
        context = self.object_context(obj)
        # the members as written, once one differs (until then, as they are in ``obj``)
        out: dict[str, Any] | None = None
        block = dict(obj) if own and where == "block" else obj  # as it was, for an image
        for done, (key, value) in enumerate(obj.items()):
            new_key, how, child, child_where, inner = self.plan(
                obj, context, key, value, where, path, secret, hits, () if out is None else out
            )
            if how == WALK:
                new = self._walk(value, child_where, child, inner, hits, own)
            elif how == IMAGE:
                new = self._image_data(block, value, child, hits)
            else:
                new = value
            if own and new is not value:
                obj[key] = new  # an existing key's value: the dict keeps its size
                self._replaced += 1
            if out is None and (new_key != key or (new is not value and not own)):
                out = dict(list(obj.items())[:done])
            if out is not None:
                out[new_key] = new
        if own and out is not None:  # a key changed: the members rebuilt in their order
            obj.clear()
            obj.update(out)
            self._replaced += 1
        return obj if out is None or own else out

    def _dispatch_together(self, obj: dict[str, Any]) -> None:
        """An object's new short keys and strings, dispatched in one scan of them all
        (see ``_batch``): those no rule can read are known to be so before the walk."""
        texts = [key for key in obj if len(key) < _SHORT_TEXT and key not in self._key_spans]
        texts += [
            value
            for value in obj.values()
            if isinstance(value, str) and len(value) < _SHORT_TEXT and value not in self._found
        ]
        if len(texts) >= _BATCH_LEAST:
            if len(self._clean) > _SCRUBBED_KEPT:
                self._clean.clear()
            self._clean.update(left_out(self.rules, texts))

    def object_context(self, obj: Mapping[str, Any]) -> tuple[bool, bool]:
        """What an object's members tell about each other: a name/value pair that names a
        secret, a JWK (its private members are secrets)."""
        pair = self.secret_keys and named_pair(obj)  # type: ignore[arg-type]
        jwk = self.secret_keys and isinstance(obj.get("kty"), str)
        return pair, jwk

    def plan(
        self,
        obj: Mapping[str, Any],
        context: tuple[bool, bool],
        key: str,
        value: Any,
        where: str,
        path: str,
        secret: bool,
        hits: Hits | None,
        taken: Collection[str],
    ) -> Plan:
        """How the member ``key`` of ``obj`` is walked, its key scrubbed (learned) first.
        ``value`` need only be its type when it is a list or an object; ``taken`` holds
        the keys already written (a renamed key must not meet another)."""
        if where == "block" and key == "data" and isinstance(value, str):
            return key, IMAGE, join(path, key), where, False
        if kept_as_format(key, where, obj):
            return key, KEEP, path, where, False
        new_key = self._key(key, path, hits)
        pair, jwk = context
        inner = secret or (
            key not in ID_FIELDS.get(where, ())
            and self.secret_keys
            and (
                secret_under(key, value)
                or (pair and key == "value")
                or (jwk and key in JWK_PRIVATE_MEMBERS)
            )
        )
        pending = self.pending
        if pending is not None and pending.holds(new_key):  # a long key's, written later
            base, new_key = new_key, pending.as_key(new_key, key, obj, taken)
            if pending.holds(new_key):  # the path is made only for a value that may hit
                scalar = value is None or isinstance(value, int | float)
                # the path names the key abbreviated, read from its new text's pieces
                child = path if scalar and not inner else join(path, pending.key_in_path(base))
                return new_key, WALK, child, child_where(key, where), bool(inner)
        child = join(path, new_key)
        if new_key != key:
            base, n = new_key, 1
            while (
                pending.taken(new_key, obj, taken)
                if pending is not None
                else new_key in taken or new_key in obj
            ):
                n += 1
                new_key = f"{base}#{n}"
        return new_key, WALK, child, child_where(key, where), bool(inner)

    def _image_data(self, block: Mapping[str, Any], data: str, path: str, hits: Hits | None) -> str:
        """An image block's data, scrubbed when it is text (an SVG): base64 in, base64 out."""
        if block.get("type") != "image":
            return self._walk(data, "data", path, False, hits)  # type: ignore[no-any-return]
        mime = str(block.get("mimeType") or block.get("mime_type") or "")
        textual = any(word in mime for word in ("svg", "xml", "text"))
        if not textual and not _starts_as_text(data):
            return data  # neither said nor seen to be text: a type may lie, bytes do not
        try:
            text = base64.b64decode(data, validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return data
        new = self._string(text, path, False, hits)
        if self.pending is not None and self.pending.holds(new):
            new = self.pending.text(new)  # re-encoded whole, as base64
        if new == text:
            return data
        return base64.b64encode(new.encode("utf-8")).decode("ascii")

    def _key(self, key: str, path: str, hits: Hits | None) -> str:
        """``key`` learned from, or scrubbed (``path``: its object's)."""
        spans = self._key_spans.get(key)
        if spans is None:
            spans = held(self.spans(key))
            if len(key) <= 200 and len(self._key_spans) < _KEYS_KEPT:
                self._key_spans[key] = spans
        if hits is None:
            for span in spans:
                self._learn_value(key[span.start : span.end], span.rule, span.confident)
            return key
        where = join(path, "(key)")
        if len(key) < _SHORT_TEXT:
            return self._scrub_short(key, where, hits, spans)
        return self.scrub_text(key, where, hits, spans, pieces=True)

    def _scrub_short(
        self, text: str, path: str, hits: Hits, spans: Sequence[Span] | None = None
    ) -> str:
        """``scrub_text`` of a short string (``spans``: its spans, when known), worked
        out once for each string (its hits made anew with ``path``) while no value is
        added to the file-wide ones."""
        if self._scrubbed_wide != len(self.wide):
            self._scrubbed.clear()
            self._scrubbed_wide = len(self.wide)
        known = self._scrubbed.get(text)
        if known is None:
            found: list[Hit] = []
            new = self.scrub_text(text, path, found, None if spans is None else list(spans))
            # None: unchanged (the walk tells a change by identity: an equal string met
            # before is another object)
            known = (None if new == text else new, tuple((h.rule, h.placeholder) for h in found))
            if len(self._scrubbed) < _SCRUBBED_KEPT:
                self._scrubbed[text] = known
        if known[1]:
            hits.extend(Hit(path, rule, placeholder) for rule, placeholder in known[1])
        return text if known[0] is None else known[0]

    def _string(self, text: str, path: str, secret: bool, hits: Hits | None) -> str:
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
        if len(text) < _SHORT_TEXT:
            return self._scrub_short(text, path, hits)
        return self.scrub_text(text, path, hits, pieces=True)


_LONG_KEY = "\x00long:"

#: what a string's spans are remembered by: a short string itself, a long one its length
#: and a hash (see :func:`_text_key`)
TextKey = str | bytes | tuple[int, int]


def _text_key(text: str) -> TextKey:
    """The key of ``text``'s spans. A long text is known by its length and Python's own
    hash of it (SipHash in C over the string's buffer, without an encoded copy), whose
    key is drawn at random for each process, so that no file can be written to make two
    texts meet; where it is not drawn (``PYTHONHASHSEED`` set), by a blake2 digest,
    hashed a piece at a time."""
    if len(text) < _SHORT_TEXT:
        return text
    if sys.flags.hash_randomization:
        return len(text), hash(text)
    digest = hashlib.blake2b(digest_size=16)
    for at in range(0, len(text), PIECE):
        digest.update(text[at : at + PIECE].encode("utf-8", "surrogatepass"))
    return digest.digest()


def _value_key(text: str, start: int, end: int) -> str:
    """``text[start:end]``, or for a long value a digest of it (hashed a piece at a time)."""
    if end - start <= WIDE_MAX:
        return text[start:end]
    digest = hashlib.blake2b(digest_size=16)
    for at in range(start, end, PIECE):
        digest.update(text[at : min(end, at + PIECE)].encode("utf-8", "surrogatepass"))
    return _LONG_KEY + digest.hexdigest()


def _starts_as_text(data: str) -> bool:
    """Whether base64 ``data`` starts with printable text (an image block that says PNG
    and holds a config file): its first 48 bytes are read, not the whole image."""
    try:
        head = base64.b64decode(data[:64], validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return False
    return len(head) >= 8 and all(c.isprintable() or c in "\n\r\t" for c in head)


@functools.lru_cache(maxsize=1024)
def _named_rule(name: str) -> Rule:
    """The rule a file-wide value is reported with, one per name (not one per match)."""
    return Rule(name)
