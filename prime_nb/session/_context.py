"""Rebuild what the model saw at a leaf, exactly as the agent builds its context.

This follows the agent's ``buildSessionContext`` field for field (checked against
sessions the agent wrote, in ``tests/session/test_agent_agreement.py``): the settings in
force, the last compaction on the path as a summary message, and the messages the agent
builds from ``custom_message`` and ``branch_summary`` entries (timestamps in Unix ms).
An assistant message that a ``child_usage_attributed`` entry targets carries the
aggregated usage, as the agent's loader puts it there.

Two additions of prime_nb's own: every message says which entry it came from
(``entry_id``), and the Context knows the git state in force (``git``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from .._names import shown_text
from ._columns import EntryColumns
from ._index import TreeIndex

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)
USAGE_KEYS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
COST_KEYS = ("input", "output", "cacheRead", "cacheWrite", "total")


class Context(list[dict[str, Any]]):
    """The messages sent to the model at one leaf, plus the settings in force there;
    ``provider`` and ``model`` are None when no model is known or the last assistant
    message named none (the agent's ``null`` and empty model)."""

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
        said = (
            f"Context({len(self)} messages at {self.leaf_id}, model={self.provider}/{self.model}, "
            f"thinking={self.thinking_level}, tier={self.service_tier}, "
            f"compaction={self.compaction_id})"
        )
        return shown_text(said)  # ids, provider and model are the session's text


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


def with_child_usage(
    entries: list[dict[str, Any]],
    rows: list[int],
    targets: dict[int, int],
    read_rows: Callable[[list[int]], list[dict[str, Any]]],
) -> list[dict[str, Any]]:
    """For a fork: assistant messages that child-usage entries target carry the aggregated
    usage, as in the agent's fork (its loader put the aggregate in the message before it
    forked): the attribution entry itself is rarely on the branch.

    ``rows`` are the entries' rows, ``targets`` the Session's map from a target row to the
    row of its child-usage entry, ``read_rows`` reads rows from the file.
    """
    hit = [row for row in rows if row in targets]
    sources = read_rows([targets[row] for row in hit])
    by_target = {row: s.get("aggregateUsage") for row, s in zip(hit, sources, strict=True)}
    out = []
    for row, entry in zip(rows, entries, strict=True):
        aggregate = by_target.get(row)
        if isinstance(aggregate, dict) and isinstance(entry.get("message"), dict):
            entry = {**entry, "message": {**entry["message"], "usage": clone_usage(aggregate)}}
        out.append(entry)
    return out


def _copy(entry: dict[str, Any], out: dict[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    for key in keys:
        if key in entry:
            out[key] = entry[key]
    return out


def to_context_message(
    entry: dict[str, Any], retained: int = 0, usage: dict[str, Any] | None = None
) -> dict[str, Any] | None:
    """The message an entry contributes to the context, or None; ``retained``: a
    compaction's ``retainedMessageCount``; ``usage``: a child-usage entry's aggregate."""
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


def build_context(
    leaf: int,
    cols: EntryColumns,
    read_rows: Callable[[Sequence[int]], list[dict[str, Any]]],
    index: TreeIndex,
    *,
    child_usage: Mapping[int, int] | None = None,
) -> Context:
    """Context at row ``leaf`` (-1: an empty session).

    ``child_usage`` maps an assistant row to the ``child_usage_attributed`` row whose
    aggregated usage it carries. In the specification's dialect a tool call is an
    assistant message of its own, with no model: there an assistant message without a
    model leaves the model as it was (``index`` was built knowing the dialect). The
    settings, the compaction and the messages are found by ``index``'s pointers.
    """
    if leaf < 0:
        return Context(
            [],
            leaf_id=None,
            provider=None,
            model=None,
            thinking_level="off",
            compaction_id=None,
        )
    model_row = int(index.model_at[leaf])
    provider = cols.providers[model_row] if model_row >= 0 else None
    model = cols.models[model_row] if model_row >= 0 else None
    settings = {kind: int(at[leaf]) for kind, at in index.setting_at.items() if at[leaf] >= 0}
    messages, entries = read_context(leaf, cols, read_rows, index, child_usage, settings.values())

    def setting(kind: str, key: str, default: Any) -> Any:
        """The value the last such entry sets (the agent takes it as it is; prime_nb
        keeps a string, or a dict for git, and None for anything else)."""
        row = settings.get(kind)
        if row is None:
            return default
        value = entries[row].get(key)
        return value if isinstance(value, dict if kind == "git_state" else str) else None

    compaction = int(index.compaction_at[leaf])
    return Context(
        messages,
        leaf_id=cols.ids[leaf],
        provider=provider,
        model=model,
        thinking_level=setting("thinking_level_change", "thinkingLevel", "off"),
        service_tier=setting("service_tier_change", "serviceTier", "default"),
        git=setting("git_state", "git", None),
        compaction_id=cols.ids[compaction] if compaction >= 0 else None,
    )


#: a context's messages and the entries read for them, by row
ContextRead = tuple[list[dict[str, Any]], dict[int, dict[str, Any]]]


def read_context(
    leaf: int,
    cols: EntryColumns,
    read_rows: Callable[[Sequence[int]], list[dict[str, Any]]],
    index: TreeIndex,
    child_usage: Mapping[int, int] | None,
    also: Iterable[int],
) -> ContextRead:
    """The context's messages at ``leaf``, and the entries read for them, with the rows
    ``also`` read in the same pass over the file (the settings' entries)."""
    compaction = int(index.compaction_at[leaf])
    start_depth = 0
    if compaction >= 0:
        start_depth = int(index.depth[compaction]) + 1  # the kept entry is not above: none kept
        kept = index.compaction_of[compaction]["first_kept_entry_id"]
        kept_row = cols.index_of.get(kept) if isinstance(kept, str) else None
        if kept_row is not None and index.strictly_above(kept_row, compaction):
            start_depth = int(index.depth[kept_row])
    in_context = index.context_rows(leaf, start_depth, skip=compaction)
    usage_rows = {row: child_usage[row] for row in in_context if child_usage and row in child_usage}
    wanted = [*in_context, *usage_rows.values(), *also]
    if compaction >= 0:
        wanted.append(compaction)
    entries = dict(zip(wanted, read_rows(wanted), strict=True))

    def usage_of(row: int) -> dict[str, Any] | None:
        source = usage_rows.get(row)
        aggregate = entries[source].get("aggregateUsage") if source is not None else None
        return clone_usage(aggregate) if isinstance(aggregate, dict) else None

    messages: list[dict[str, Any]] = []
    if compaction >= 0:
        retained: list[dict[str, Any]] = []
        after: list[dict[str, Any]] = []
        cut = index.depth[compaction]
        for row in in_context:
            _append(retained if index.depth[row] < cut else after, entries[row], usage_of(row))
        summary = to_context_message(entries[compaction], retained=len(retained))
        assert summary is not None
        messages = [summary, *retained, *after]
    else:
        for row in in_context:
            _append(messages, entries[row], usage_of(row))
    return messages, entries
