"""`to_atif`: a session's branches as ATIF trajectories (Harbor's Agent Trajectory
Interchange Format, v1.8), one JSON file per root-to-leaf path.

ATIF is linear, a session is a tree: so a file holds one path. How a path maps:

- a user message, an extension's message, a bash run: a ``user`` step;
- an assistant message: an ``agent`` step with its text, its thinking in
  ``reasoning_content``, its tool calls, the model and thinking level in force
  (``model_name``, ``reasoning_effort``) and its usage in ``metrics``: all input in
  ``prompt_tokens``, cache reads in ``cached_tokens``, cache writes in
  ``metrics.extra["cache_write_tokens"]``; a tool call written as an entry of its own
  (the specification's dialect) joins the assistant step before it;
- a tool result: an ``observation`` result of the step whose call it answers
  (``source_call_id``); a result no call on the path asked for is a ``system`` step;
- a compaction: a ``system`` step whose message is the summary, with
  ``extra["context_management"] = {"type": "compaction", "summary", ...}``, the
  convention Harbor's agents write and Inspect Scout reads;
- a branch summary: a ``system`` step with ``extra["branch_summary"]``;
- a sub-agent (from the session's family): a file of its own, referred to from the
  step that spawned it by ``subagent_trajectory_ref`` (a path beside the parent's file,
  the form Scout's ATIF importer follows).

Every leaf (``leaf="all"``): a trajectory is a path's complete history, and ATIF links
files only in a chain (``continued_trajectory_ref``, one continuation), so a fork cannot
be written as a reference and a shared prefix is in each file. Its steps say so: the
active path is written first, and in each later file a step whose entries an earlier
file already holds is ``is_copied_context`` (ATIF's mark for history copied from
another trajectory, which training pipelines leave out, and which ``final_metrics``
leaves out as Harbor's agents do), so each entry is an original step once.

Every step's ``extra["entry_id"]`` is the entry it came from; tool calls and results
carry theirs in their own ``extra``. Each file is validated by the ``atif`` package's
models, and by the checks it does not make (steps present, entry ids in path order).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import orjson

from .._names import shown_name, shown_text
from .._version import __version__
from ..session import Session, SessionLike, as_session, paused_gc
from ._extras import require
from ._path import Item, json_safe, path_items

if TYPE_CHECKING:
    from ..family import Family

SCHEMA_VERSION = "ATIF-v1.8"
AGENT_NAME = "prime-agent"
_UNSAFE = re.compile(r"[^A-Za-z0-9._@-]")


def _metrics(item: Item) -> dict[str, Any] | None:
    usage = item.usage
    if usage is None:
        return None
    out: dict[str, Any] = {
        "prompt_tokens": usage.input + usage.cache_read + usage.cache_write,
        "completion_tokens": usage.output,
        "cached_tokens": usage.cache_read,
        "extra": {"cache_write_tokens": usage.cache_write, "uncached_input_tokens": usage.input},
    }
    if usage.cost is not None:
        out["cost_usd"] = usage.cost
    return out


def _step_extra(item: Item, **more: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"entry_id": item.entry_id}
    if item.images:
        out["images_omitted"] = item.images
    out.update((k, v) for k, v in {**item.extra, **more}.items() if v is not None)
    return out


class _Steps:
    """The steps of one path, built item by item (calls paired with their results)."""

    def __init__(self) -> None:
        self.steps: list[dict[str, Any]] = []
        self.open: dict[str, Any] | None = None  # the agent step results still join
        self.pending: dict[str, list[str]] = {}  # call id in the file -> ids in the step
        self.by_entry: dict[str, dict[str, Any]] = {}

    def _add(self, step: dict[str, Any], item: Item) -> dict[str, Any]:
        step = {"step_id": len(self.steps) + 1, **step}
        if item.timestamp is not None:
            step["timestamp"] = item.timestamp
        self.steps.append(step)
        self.by_entry[item.entry_id] = step
        return step

    def _calls(self, step: dict[str, Any], item: Item) -> None:
        calls = step.setdefault("tool_calls", [])
        used = {c["tool_call_id"] for c in calls}
        for call in item.calls:
            final, n = call.id, 1
            while final in used:
                n += 1
                final = f"{call.id}#{n}"
            used.add(final)
            self.pending.setdefault(call.id, []).append(final)
            calls.append(
                {
                    "tool_call_id": final,
                    "function_name": call.name,
                    "arguments": json_safe(call.arguments),
                    "extra": {"entry_id": item.entry_id},
                }
            )

    def add(self, item: Item) -> None:
        if item.kind == "tool":
            self._result(item)
            return
        bare_call = item.calls and item.usage is None and not (item.text or item.thinking)
        if item.kind == "assistant" and bare_call and self.open is not None:
            self._calls(self.open, item)  # a tool call entry of its own joins its turn
            return
        self.open, self.pending = None, {}
        if item.kind == "assistant":
            step: dict[str, Any] = {"source": "agent", "message": item.text}
            if item.model:
                step["model_name"] = item.model
            if item.thinking_level:
                step["reasoning_effort"] = item.thinking_level
            if item.thinking:
                step["reasoning_content"] = item.thinking
            metrics = _metrics(item)
            if metrics is not None:
                step["metrics"] = metrics
            extra = _step_extra(item, provider=item.provider, stop_reason=item.stop_reason)
            step = self._add({**step, "extra": extra}, item)
            if item.calls:
                self._calls(step, item)
            self.open = step
        elif item.kind == "compaction":
            managed = {"type": "compaction", "summary": item.text, **json_safe(item.extra)}
            extra = {"entry_id": item.entry_id, "context_management": managed}
            self._add({"source": "system", "message": item.text, "extra": extra}, item)
        elif item.kind == "branch_summary":
            summary = {"summary": item.text, **json_safe(item.extra)}
            extra = {"entry_id": item.entry_id, "branch_summary": summary}
            self._add({"source": "system", "message": item.text, "extra": extra}, item)
        else:  # user, custom, bash: what the user (or an extension) put in
            extra = _step_extra(item)
            if item.kind != "user":
                extra["prime_kind"] = item.kind
            self._add({"source": "user", "message": item.text, "extra": json_safe(extra)}, item)

    def _result(self, item: Item) -> None:
        extra = _step_extra(item, tool_name=item.tool_name or None, is_error=item.is_error)
        finals = self.pending.get(item.call_id)
        if self.open is not None and finals:
            result = {"source_call_id": finals.pop(0), "content": item.text, "extra": extra}
            self.open.setdefault("observation", {"results": []})["results"].append(result)
            return
        # a result no call on the path asked for: kept, as a system event
        extra["tool_call_id"] = item.call_id
        observation = {"results": [{"content": item.text, "extra": {"entry_id": item.entry_id}}]}
        step = {"source": "system", "message": "", "observation": observation, "extra": extra}
        self._add(step, item)


def trajectory_steps(items: Iterable[Item]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The ATIF steps of a path's items, and each step by the entry id it came from."""
    steps = _Steps()
    for item in items:
        steps.add(item)
    return steps.steps, steps.by_entry


def step_entries(step: dict[str, Any]) -> set[str]:
    """Every entry a step names: its own, its tool calls', its results'."""
    named = {step["extra"]["entry_id"]}
    named.update(call["extra"]["entry_id"] for call in step.get("tool_calls", ()))
    for result in (step.get("observation") or {}).get("results", ()):
        entry_id = (result.get("extra") or {}).get("entry_id")
        if entry_id is not None:
            named.add(entry_id)
    return named


def mark_copied(steps: Sequence[dict[str, Any]], written: set[str]) -> None:
    """Mark ``is_copied_context`` on each step whose entries are all in ``written`` (an
    earlier trajectory of the export holds them), then add the steps' entries to it."""
    named = [step_entries(step) for step in steps]
    for step, entries in zip(steps, named, strict=True):
        if entries <= written:
            step["is_copied_context"] = True
    for entries in named:
        written |= entries


def _final_metrics(steps: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The totals of the steps not marked ``is_copied_context`` (as Harbor's own agents
    count them), so totals added over an export's files count each step once."""
    steps = [s for s in steps if not s.get("is_copied_context")]
    metrics = [s["metrics"] for s in steps if "metrics" in s]
    costs = [m["cost_usd"] for m in metrics if "cost_usd" in m]
    out: dict[str, Any] = {
        "total_prompt_tokens": sum(m["prompt_tokens"] for m in metrics),
        "total_completion_tokens": sum(m["completion_tokens"] for m in metrics),
        "total_cached_tokens": sum(m["cached_tokens"] for m in metrics),
        "total_steps": len(steps),
        "extra": {
            "total_cache_write_tokens": sum(m["extra"]["cache_write_tokens"] for m in metrics)
        },
    }
    if costs:
        out["total_cost_usd"] = sum(costs)
    return out


def check_trajectory(doc: dict[str, Any], path_ids: Sequence[str], where: str) -> None:
    """What ATIF's models leave unchecked: steps present, each naming an entry of the
    path, in the path's order. Raises ValueError naming ``where``."""
    steps = doc["steps"]
    if not steps:
        raise ValueError(
            shown_text(
                f"{where}: the path holds no message, so the trajectory would have no steps; "
                "choose a leaf below a message"
            )
        )
    order = {eid: n for n, eid in enumerate(path_ids)}
    last = -1
    for n, step in enumerate(steps, start=1):
        eid = (step.get("extra") or {}).get("entry_id")
        if step["step_id"] != n or eid not in order or order[eid] <= last:
            raise ValueError(
                shown_text(
                    f"{where}: step {n} (entry {eid!r}) is out of the path's order; report it"
                )
            )
        last = order[eid]


def _json_bytes(doc: dict[str, Any]) -> bytes:
    """The trajectory as indented JSON (the standard library for integers beyond 64 bits,
    which orjson does not write)."""
    try:
        return orjson.dumps(doc, option=orjson.OPT_INDENT_2)
    except TypeError:
        return json.dumps(doc, indent=2, ensure_ascii=False).encode()


def _file_name(session: Session, leaf_id: str) -> str:
    stem = session.file.name.removesuffix(".jsonl")
    return _UNSAFE.sub("_", f"{stem}.{leaf_id}")[:150] + ".json"


class _Writer:
    """Writes the trajectories of one export: the paths asked for, and the sub-agents
    their steps spawned (each sub-agent's file once)."""

    def __init__(self, folder: Path, family: Family | None) -> None:
        self.folder = folder
        self.family = family
        self.written: list[Path] = []
        self.subagent_files: dict[str, Path] = {}
        self.models = require("atif", "atif", "prime_nb.interop.to_atif")
        #: the entries the export's earlier paths hold (None: one path, nothing copied)
        self.shared: set[str] | None = None

    def validate(self, doc: dict[str, Any]) -> None:
        """Raise if ATIF's models refuse ``doc``: the document with its first step, then
        each step in a document of its own (numbered 1, as a one-step document must be),
        so the models of one step at a time are held, not a whole path's beside its
        dictionaries. What the models check across steps (ids 1..n) ``check_trajectory``
        has checked."""
        trajectory = self.models.Trajectory
        steps = doc["steps"]
        for step in steps:
            trajectory.model_validate({**doc, "steps": [{**step, "step_id": 1}]})

    def unique(self, path: Path) -> Path:
        """``path``, or ``<stem>-2.json``... when this export already wrote that name
        (two leaf ids that differ only in characters a file name cannot hold)."""
        taken = set(self.written) | set(self.subagent_files.values())
        final, n = path, 1
        while final in taken:
            n += 1
            final = path.with_name(f"{path.stem}-{n}.json")
        return final

    def _subagents(self, session: Session) -> dict[str, list[str]]:
        """Spawning entry id -> the family's names of the sub-agents it started."""
        if self.family is None:
            return {}
        try:
            me = self.family.key(str(session.file))
        except KeyError:
            return {}
        out: dict[str, list[str]] = {}
        for link in self.family.links.itertuples(index=False):
            if link.kind == "subagent" and link.parent == me and isinstance(link.parent_entry, str):
                out.setdefault(link.parent_entry, []).append(str(link.child))
        return out

    def write(self, session: Session, leaf_id: str, dest: Path, seen: frozenset[str]) -> Path:
        """Write the path to ``leaf_id`` to ``dest`` (the collector paused: a path's
        steps are many small objects that live until the file is written)."""
        with paused_gc():
            return self._write(session, leaf_id, dest, seen)

    def _write(self, session: Session, leaf_id: str, dest: Path, seen: frozenset[str]) -> Path:
        path_ids = session.path(leaf_id)
        steps, by_entry = trajectory_steps(path_items(session, leaf_id))
        for entry_id, children in self._subagents(session).items():
            step = by_entry.get(entry_id)
            if step is None or step["source"] != "agent":
                continue  # spawned on another branch
            for child in children:
                if child in seen:
                    continue
                ref = self._subagent(child, seen)
                if ref is not None:
                    step.setdefault("observation", {"results": []})["results"].append(ref)
        if self.shared is not None and not seen:  # a path of the session, not a sub-agent
            mark_copied(steps, self.shared)
        models = [s["model_name"] for s in steps if "model_name" in s]
        session_id = session.id or shown_name(session.file.name.removesuffix(".jsonl"))
        doc: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "session_id": session_id,
            "trajectory_id": f"{session_id}:{leaf_id}",
            "agent": {"name": AGENT_NAME, "version": "unknown"},
            "steps": steps,
            "final_metrics": _final_metrics(steps),
            "extra": json_safe(
                {
                    "source_file": shown_name(session.file.name),
                    "leaf_id": leaf_id,
                    "is_active_leaf": leaf_id == session.leaf_id,
                    "session_name": session.name,
                    "cwd": session.header.get("cwd"),
                    "session_version": session.version,
                    "exported_by": f"prime_nb {__version__}",
                }
            ),
        }
        if models:
            doc["agent"]["model_name"] = models[0]
        check_trajectory(doc, path_ids, f"{session.file} at {leaf_id}")
        self.validate(doc)
        dest.write_bytes(_json_bytes(doc))
        self.written.append(dest)
        return dest

    def _subagent(self, child: str, seen: frozenset[str]) -> dict[str, Any] | None:
        """The observation result that refers to a sub-agent's file (written once)."""
        assert self.family is not None
        try:
            sub = self.family.session(child)
        except ValueError:
            return None  # its file could not be loaded: family.problems says why
        if sub.leaf_id is None or not sub.path(sub.leaf_id):
            return None
        target = self.subagent_files.get(child)
        if target is None:
            target = self.unique(self.folder / ("subagent-" + _file_name(sub, sub.leaf_id)))
            self.subagent_files[child] = target
            try:
                self.write(sub, sub.leaf_id, target, seen | {child})
            except ValueError:
                del self.subagent_files[child]
                return None  # a sub-agent with no message: nothing to refer to
        ref = {"trajectory_path": target.name, "session_id": sub.id, "extra": {"session": child}}
        return {"subagent_trajectory_ref": [json_safe(ref)]}


def _leaves(session: Session, leaf: str | None) -> list[str]:
    if leaf == "all":  # the active path first: its steps are the originals
        leaves = [str(x) for x in session.leaves.index]
        active = session.leaf_id
        return sorted(leaves, key=lambda x: x != active)
    if leaf is None:
        if session.leaf_id is None:
            raise ValueError(
                shown_text(
                    f"{session.file}: the session has no entries, so no path to write; "
                    "pass a session with messages"
                )
            )
        return [session.leaf_id]
    session.path(leaf)  # raises EntryNotFoundError for an id not in the session
    return [leaf]


def to_atif(
    session: SessionLike,
    dest: str | Path,
    *,
    leaf: str | Literal["all"] | None = None,
    family: Family | bool | None = None,
    follow_symlinks: bool = False,
) -> list[Path]:
    """Write ATIF trajectories of ``session`` (a Session or a path) into ``dest``.

    ``leaf``: ``None`` writes the active path, ``"all"`` one file per leaf, an entry id
    the path to that entry. ``dest`` is a folder (made if missing), each file named
    ``<session file>.<leaf id>.json``; with one path, a ``dest`` ending in ``.json`` is
    that file. With ``"all"`` the active path comes first, and a later path's steps that
    an earlier file holds are marked ``is_copied_context``. ``family``: where sub-agents
    are found (default, or ``True``: ``load_family`` of the session's file, with
    ``follow_symlinks``; ``False``: none).
    Sub-agents' files are written beside, as ``subagent-<file>.<leaf>.json``, and the
    returned paths include them.

    Returns the written paths. Raises ImportError without the ``atif`` extra,
    EntryNotFoundError for an unknown leaf, ValueError for an empty session or a path
    with no message (``leaf="all"`` skips such leaves: their files would be empty).
    """
    loaded = as_session(session, "to_atif")
    target = Path(dest)
    one_file = leaf != "all" and target.suffix == ".json"
    folder = target.parent if one_file else target
    leaves = _leaves(loaded, leaf)
    if family is None or family is True:
        from ..family import load_family

        found: Family | None = load_family(loaded.file, follow_symlinks=follow_symlinks)
    elif family is False:
        found = None
    else:
        from ..family import Family as FamilyType

        if not isinstance(family, FamilyType):
            raise TypeError(
                f"to_atif: family is {type(family).__name__}; pass a Family (load_family), "
                "True or None to find the session's, or False for none"
            )
        found = family
    writer = _Writer(folder, found)
    if leaf == "all":
        writer.shared = set()
    folder.mkdir(parents=True, exist_ok=True)
    mains: list[Path] = []
    for leaf_id in leaves:
        name = target if one_file else writer.unique(folder / _file_name(loaded, leaf_id))
        try:
            mains.append(writer.write(loaded, leaf_id, name, frozenset()))
        except ValueError:
            if leaf != "all":
                raise
    return [*mains, *writer.subagent_files.values()]
