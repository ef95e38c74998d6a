"""Rebuild what the model saw at a leaf, exactly as the agent builds its context.

This follows the agent's ``buildSessionContext`` field for field (checked against
sessions the agent wrote, in ``tests/session/test_agent_agreement.py``): the model,
thinking level and service tier in force, the last compaction on the path as a summary
message (with ``retainedMessageCount`` and ``customInstructions``), and the messages the
agent builds from ``custom_message`` and ``branch_summary`` entries, with their
timestamps in Unix ms. An assistant message targeted by a ``child_usage_attributed``
entry carries the aggregated usage, as the agent's loader puts it there.

Two additions of prime_nb's own: every message says which entry it came from
(``entry_id``), and the Context knows the git state in force (``git``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from ._columns import EntryColumns

CONTEXT_TYPES = frozenset({"message", "custom_message", "branch_summary"})
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)
USAGE_KEYS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
COST_KEYS = ("input", "output", "cacheRead", "cacheWrite", "total")


class Context(list[dict[str, Any]]):
    """The messages sent to the model at one leaf, plus the settings in force there.

    ``provider`` and ``model`` are both None when no model is known (the agent's
    ``null``) and when the last assistant message named none (the agent's empty model).
    """

    def __init__(
        self,
        messages: list[dict[str, Any]],
        *,
        leaf_id: str | None,
        provider: str | None,
        model: str | None,
        thinking_level: str | None,
        compaction_id: str | None,
        service_tier: str | None = "default",
        git: Any = None,
    ) -> None:
        super().__init__(messages)
        self.leaf_id = leaf_id
        self.provider = provider
        self.model = model
        self.thinking_level = thinking_level
        self.service_tier = service_tier
        self.compaction_id = compaction_id
        #: the ``git`` of the last ``git_state`` entry on the path (None if none)
        self.git = git

    def __repr__(self) -> str:
        return (
            f"Context({len(self)} messages at {self.leaf_id}, model={self.provider}/{self.model}, "
            f"thinking={self.thinking_level}, tier={self.service_tier}, "
            f"compaction={self.compaction_id})"
        )


def js_ms(value: Any) -> int | None:
    """``new Date(value).getTime()`` for what a canonical entry holds: ISO strings (and
    Unix ms); None where the agent gets NaN (which it writes as null)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return int(value) if value == value and abs(value) <= 8.64e15 else None
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - _EPOCH) // _MS


def js_truthy(value: Any) -> bool:
    """JavaScript's truthiness: empty objects and arrays are true, NaN is false."""
    if isinstance(value, dict | list):
        return True
    if isinstance(value, float) and value != value:
        return False
    return bool(value)


def clone_usage(usage: dict[str, Any]) -> dict[str, Any]:
    """The agent's ``cloneUsage``: the known keys only (absent ones stay absent)."""
    out = {key: usage[key] for key in USAGE_KEYS if key in usage}
    cost = usage.get("cost")
    if isinstance(cost, dict):
        out["cost"] = {key: cost[key] for key in COST_KEYS if key in cost}
    return out


def _copy(entry: dict[str, Any], out: dict[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    for key in keys:
        if key in entry:
            out[key] = entry[key]
    return out


def to_context_message(
    entry: dict[str, Any], retained: int = 0, usage: dict[str, Any] | None = None
) -> dict[str, Any] | None:
    """The message an entry contributes to the context, or None.

    ``retained`` is a compaction's ``retainedMessageCount``; ``usage`` the aggregated
    usage an assistant message carries when a child-usage entry targets it.
    """
    kind = entry.get("type")
    entry_id = entry.get("id")
    if kind == "message":
        message = entry.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            return None
        out = {**message, "entry_id": entry_id}
        if usage is not None and message.get("role") == "assistant":
            out["usage"] = usage
        return out
    if kind == "custom_message":
        out = _copy(entry, {"role": "custom"}, ("customType", "content", "display", "details"))
    elif kind == "branch_summary" and js_truthy(entry.get("summary")):
        out = _copy(entry, {"role": "branchSummary"}, ("summary", "fromId"))
    elif kind == "compaction":
        out = _copy(entry, {"role": "compactionSummary"}, ("summary", "tokensBefore"))
        out["retainedMessageCount"] = retained
        _copy(entry, out, ("customInstructions",))
    else:
        return None
    out["timestamp"] = js_ms(entry.get("timestamp"))
    out["entry_id"] = entry_id
    return out


def _append(out: list[dict[str, Any]], entry: dict[str, Any], usage: Any = None) -> None:
    message = to_context_message(entry, usage=usage)
    if message is None:
        return
    # spec-dialect tool calls are entries of their own; the model saw them in one turn
    if (
        entry.get("_sourceType") == "toolCall"
        and out
        and out[-1].get("role") == "assistant"
        and isinstance(out[-1].get("content", []), list)  # odd content: not merged
        and isinstance(message.get("content", []), list)
    ):
        previous = out[-1]
        previous["content"] = [*previous.get("content", []), *message.get("content", [])]
        previous.setdefault("entry_ids", [previous["entry_id"]]).append(message["entry_id"])
        return
    out.append(message)


@dataclass(frozen=True)
class PathFacts:
    """What a context needs from the path root..leaf, found once per leaf.

    ``tail``: the rows that may be in the context, in path order (from the first kept
    entry, the compaction itself left out); ``split``: how many of them come before the
    compaction (its retained messages); the rows that set the model, each setting and
    the last compaction (-1 where none).
    """

    leaf: int
    tail: Sequence[int]
    split: int
    compaction: int
    model_row: int
    settings: Mapping[str, int]


NO_PATH = PathFacts(-1, (), 0, -1, -1, {})
SETTING_TYPES = ("thinking_level_change", "service_tier_change", "git_state")


def sets_model(cols: EntryColumns, row: int, spec_dialect: bool) -> bool:
    """Whether the entry at ``row`` sets the model in force (the agent's rule)."""
    kind = cols.types[row]
    if kind == "model_change":
        return True
    return cols.roles[row] == "assistant" and (not spec_dialect or cols.models[row] is not None)


def walk_path(path: Sequence[int], cols: EntryColumns, *, spec_dialect: bool) -> PathFacts:
    """The facts of ``path`` (rows root -> leaf) read by walking all of it."""
    if not path:
        return NO_PATH
    model_row = -1
    settings: dict[str, int] = {}  # entry type -> the last one on the path
    compaction_pos = -1
    types = cols.types
    for pos, row in enumerate(path):
        kind = types[row]
        if sets_model(cols, row, spec_dialect):
            model_row = row
        elif kind in SETTING_TYPES:
            settings[kind] = row
        elif kind == "compaction":
            compaction_pos = pos
    if compaction_pos < 0:
        return PathFacts(path[-1], path, 0, -1, model_row, settings)
    first_kept_pos = compaction_pos + 1  # the kept entry is not on the path: none kept
    kept_row = first_kept_row(cols, path[compaction_pos])
    for pos, row in enumerate(path[:compaction_pos]):
        if row == kept_row:
            first_kept_pos = pos
            break
    retained = path[first_kept_pos:compaction_pos]
    tail = [*retained, *path[compaction_pos + 1 :]]
    return PathFacts(path[-1], tail, len(retained), path[compaction_pos], model_row, settings)


def first_kept_row(cols: EntryColumns, compaction_row: int) -> int | None:
    """Row of a compaction's first kept entry (None when it names none in the file)."""
    kept = next(c for c in cols.compactions if c["index"] == compaction_row)
    return cols.index_of.get(kept["first_kept_entry_id"] or "")


def build_context(
    path: Sequence[int],
    cols: EntryColumns,
    read_rows: Callable[[Sequence[int]], list[dict[str, Any]]],
    *,
    child_usage: Mapping[int, int] | None = None,
    spec_dialect: bool = False,
) -> Context:
    """Context at the last row of ``path`` (rows root -> leaf).

    ``child_usage`` maps an assistant row to the ``child_usage_attributed`` row whose
    aggregated usage it carries. In the specification's dialect a tool call is an
    assistant message of its own, with no model: there an assistant message without a
    model leaves the model as it was.
    """
    facts = walk_path(path, cols, spec_dialect=spec_dialect)
    return context_of(facts, cols, read_rows, child_usage=child_usage)


def context_of(
    facts: PathFacts,
    cols: EntryColumns,
    read_rows: Callable[[Sequence[int]], list[dict[str, Any]]],
    *,
    child_usage: Mapping[int, int] | None = None,
) -> Context:
    """The context a leaf's path facts give (see :func:`build_context`)."""
    types = cols.types
    in_context = [row for row in facts.tail if types[row] in CONTEXT_TYPES]
    usage_rows = {row: child_usage[row] for row in in_context if child_usage and row in child_usage}
    wanted = [*in_context, *usage_rows.values(), *facts.settings.values()]
    if facts.compaction >= 0:
        wanted.append(facts.compaction)
    entries = dict(zip(wanted, read_rows(wanted), strict=True))

    def setting(kind: str, key: str, default: Any) -> Any:
        """The value the last such entry sets (the agent takes it as it is; prime_nb
        keeps a string, or a dict for git, and None for anything else)."""
        row = facts.settings.get(kind)
        if row is None:
            return default
        value = entries[row].get(key)
        return value if isinstance(value, dict if kind == "git_state" else str) else None

    def usage_of(row: int) -> dict[str, Any] | None:
        source = usage_rows.get(row)
        aggregate = entries[source].get("aggregateUsage") if source is not None else None
        return clone_usage(aggregate) if isinstance(aggregate, dict) else None

    messages: list[dict[str, Any]] = []
    if facts.compaction >= 0:
        retained: list[dict[str, Any]] = []
        after: list[dict[str, Any]] = []
        before = frozenset(facts.tail[: facts.split])
        for row in in_context:
            _append(retained if row in before else after, entries[row], usage_of(row))
        summary = to_context_message(entries[facts.compaction], retained=len(retained))
        assert summary is not None
        messages = [summary, *retained, *after]
    else:
        for row in in_context:
            _append(messages, entries[row], usage_of(row))
    model_row = facts.model_row
    return Context(
        messages,
        leaf_id=cols.ids[facts.leaf] if facts.leaf >= 0 else None,
        provider=cols.providers[model_row] if model_row >= 0 else None,
        model=cols.models[model_row] if model_row >= 0 else None,
        thinking_level=setting("thinking_level_change", "thinkingLevel", "off"),
        service_tier=setting("service_tier_change", "serviceTier", "default"),
        git=setting("git_state", "git", None),
        compaction_id=cols.ids[facts.compaction] if facts.compaction >= 0 else None,
    )
