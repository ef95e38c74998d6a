"""Find and replace secrets inside the JSON of session entries, leaving the structure alone.

Why two passes: a secret may be recognisable in one place only (``API_TOKEN=...`` in a
``.env`` read) and appear bare elsewhere (echoed in a later command). The first pass runs
the rules over every string and learns each secret *value* with its placeholder; the
second replaces every occurrence of every learned value, so the same secret becomes the
same placeholder everywhere, whichever rule first found it.

What is never touched: object keys, and the fields that make the tree and the format
(ids, parent ids, types, roles, timestamps, tool call ids, model names, image data,
thinking signatures). So the redacted file has the same ids, tree and context shape.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ._rules import Rule

#: fields of an entry (or header) that hold structure, never free text
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
        "provider",
        "modelId",
        "thinkingLevel",
        "serviceTier",
        "customType",
        "_sourceType",
    }
)
#: fields of an agent message that hold structure
MESSAGE_KEEP = frozenset(
    {"role", "timestamp", "toolCallId", "toolName", "api", "provider", "model", "stopReason"}
)
#: fields of a content block that hold structure (an image's ``data`` is kept too)
BLOCK_KEEP = frozenset(
    {"type", "id", "mimeType", "thinkingSignature", "textSignature", "signature", "name"}
)

_WORD = re.compile(r"[A-Za-z0-9_]")


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
    #: secret value -> (rule name, placeholder)
    known: dict[str, tuple[str, str]] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=dict)
    _matcher: re.Pattern[str] | None = None
    _matcher_size: int = -1
    #: hashes of strings already learned from (forks and compactions repeat text)
    _seen: set[int] = field(default_factory=set)
    #: values replaced only as whole words (host names: "vm1" is not in "vm10")
    _bounded: set[str] = field(default_factory=set)

    # -- pass 1 ------------------------------------------------------------------------
    def learn_text(self, text: str) -> None:
        key = hash(text)
        if key in self._seen:
            return
        self._seen.add(key)
        found: list[tuple[int, int, Rule]] = []
        for rule in self.rules:
            found.extend((start, end, rule) for start, end in rule.spans(text))
        if not found:
            return
        # every span is learned; where spans overlap, their union is learned too, so that
        # no rule's match can cut another's secret in two (the longest match wins in pass 2)
        found.sort(key=lambda item: (item[0], -item[1]))
        group: list[tuple[int, int, Rule]] = []
        for item in [*found, (len(text) + 1, len(text) + 1, found[0][2])]:
            if group and item[0] >= max(end for _, end, _ in group):
                for start, end, rule in group:
                    self._learn_value(text[start:end], rule)
                start, end = group[0][0], max(end for _, end, _ in group)
                if len(group) > 1 and (start, end) not in {(a, b) for a, b, _ in group}:
                    longest = max(group, key=lambda g: g[1] - g[0])[2]
                    self._learn_value(text[start:end], longest)
                group = []
            group.append(item)

    def _learn_value(self, value: str, rule: Rule) -> None:
        if value in self.known or not value.strip():
            return
        n = self.counters.get(rule.name, 0) + 1
        self.counters[rule.name] = n
        self.known[value] = (rule.name, rule.make_placeholder(n, value))
        if rule.word_bounded:
            self._bounded.add(value)

    def learn(self, obj: Any, where: str = "entry") -> None:
        for _path, text in strings(obj, where):
            self.learn_text(text)

    # -- pass 2 ------------------------------------------------------------------------
    def matcher(self) -> re.Pattern[str] | None:
        """One regex over every learned value, longest first (host names as whole words)."""
        if self._matcher_size != len(self.known):
            parts = []
            for value in sorted(self.known, key=len, reverse=True):
                bounded = value in self._bounded
                head = r"(?<![A-Za-z0-9_])" if bounded and _WORD.match(value[0]) else ""
                tail = r"(?![A-Za-z0-9_])" if bounded and _WORD.match(value[-1]) else ""
                parts.append(head + re.escape(value) + tail)
            self._matcher = re.compile("|".join(parts)) if parts else None
            self._matcher_size = len(self.known)
        return self._matcher

    def scrub_text(self, text: str, path: str, hits: list[Hit]) -> str:
        matcher = self.matcher()
        if matcher is None:
            return text

        def swap(match: re.Match[str]) -> str:
            rule, placeholder = self.known[match.group(0)]
            hits.append(Hit(path, rule, placeholder))
            return placeholder

        new, count = matcher.subn(swap, text)
        return new if count else text

    def scrub(self, obj: Any, hits: list[Hit], where: str = "entry") -> Any:
        """A copy of ``obj`` with secrets replaced (``obj`` itself if nothing changed)."""
        return _rebuild(obj, where, "", lambda text, path: self.scrub_text(text, path, hits))


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


def strings(obj: Any, where: str = "entry", path: str = "") -> Iterator[tuple[str, str]]:
    """Every free-text string in an entry, with its field path (``message.content[0].text``)."""
    if isinstance(obj, str):
        yield path, obj
    elif isinstance(obj, dict):
        for key, value in obj.items():
            if not _keep(key, where, obj):
                yield from strings(value, _child_where(key, where), _join(path, key))
    elif isinstance(obj, list):
        inner = "block" if where == "content" else "data"
        for i, value in enumerate(obj):
            yield from strings(value, inner, _join(path, i))


def _rebuild(obj: Any, where: str, path: str, fix: Any) -> Any:
    if isinstance(obj, str):
        return fix(obj, path)
    if isinstance(obj, dict):
        out: dict[str, Any] = {}
        changed = False
        for key, value in obj.items():
            if _keep(key, where, obj):
                out[key] = value
                continue
            new = _rebuild(value, _child_where(key, where), _join(path, key), fix)
            changed = changed or new is not value
            out[key] = new
        return out if changed else obj
    if isinstance(obj, list):
        inner = "block" if where == "content" else "data"
        items = [_rebuild(v, inner, _join(path, i), fix) for i, v in enumerate(obj)]
        return items if any(a is not b for a, b in zip(items, obj, strict=True)) else obj
    return obj
