"""Where the summary pass stopped in a file, as bytes: resume it when the file grows.

Why: a corpus of live sessions grows by appends. With the pass's columns, tree inputs,
problems, header, migration state and scan position kept, a grown file is read only
from where the last pass stopped: the restored session runs the loader's own
``refresh()``, exactly as an open Session catches up. JSON (orjson) keeps it readable
from any version of Python; NaN is written as null and read back as NaN.
"""

from __future__ import annotations

import math
from array import array
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from ..format._migrating import Migrator
from ..format._reading import Problem, ScanState, trim_depth
from ..session._columns import USAGE_KEYS, OddUsage
from ..session._session import paused_gc
from ..session._store import ToolCalls, UsageColumn
from ..session._tree import Tree
from ._summary import SummaryColumns, SummarySession

NAN = math.nan
_LISTS = (
    "ids",
    "parent_ids",
    "types",
    "roles",
    "lines",
    "offsets",
    "lengths",
    "providers",
    "models",
    "stops",
)


def _nan(value: Any) -> float:
    return NAN if value is None else float(value)


def _floats(values: list[float | None]) -> bytes:
    """A float column read back from JSON (null: NaN) as the bytes of a float64 array."""
    return np.array(values, dtype=np.float64).tobytes()


def _plain(column: Any) -> Any:
    """A column as orjson writes it: a typed array as a list, a list as it is."""
    return column.tolist() if isinstance(column, array) else column


def _odd_usage(value: list[Any]) -> OddUsage:
    """An odd usage row as the loader made it (``fields`` names the missing ones)."""
    odd = OddUsage((*value[:5], _nan(value[5])))
    odd.fields = tuple(k for k, v in zip(USAGE_KEYS, value[:5], strict=True) if v is None)
    return odd


def _usage_state(usage: UsageColumn) -> dict[str, Any]:
    """The usage column's own arrays (no tuple per row): tokens, cost, present, odd rows."""
    return {
        "tokens": usage.tokens.tolist(),
        "cost": usage.cost.tolist(),
        "present": list(usage.present),
        "odd": [[row, list(value)] for row, value in usage.odd.items()],
    }


def _usage_column(state: dict[str, Any]) -> UsageColumn:
    usage = UsageColumn()
    usage.tokens.extend(state["tokens"])
    usage.cost.frombytes(_floats(state["cost"]))
    usage.present.extend(state["present"])
    usage.odd = {row: _odd_usage(value) for row, value in state["odd"]}
    return usage


def _calls_state(calls: ToolCalls) -> dict[str, Any]:
    """The tool calls' columns; only the arguments the pass kept (the read tools')."""
    return {
        "call_ids": calls.call_ids,
        "names": calls.names,
        "rows": calls.rows.tolist(),
        "times": calls.times.tolist(),
        "blocks": calls.blocks.tolist(),
        "arguments": [[k, value] for k, value in calls.arguments.items()],
    }


def _tool_calls(state: dict[str, Any]) -> ToolCalls:
    calls = ToolCalls()
    calls.call_ids.extend(state["call_ids"])
    calls.names.extend(state["names"])
    calls.rows.extend(state["rows"])
    calls.times.frombytes(_floats(state["times"]))
    calls.blocks.extend(state["blocks"])
    calls.arguments = {k: value for k, value in state["arguments"]}
    return calls


def dump(session: SummarySession) -> bytes:
    """The state of a pass, enough to resume it with :func:`restore`."""
    cols, st, migrator = session.cols, session._state, session._migrator
    assert migrator is not None
    state = {
        "identity": list(session._identity),
        "scan": [st.offset, st.line, st.owes_newline, st.torn_tail],
        "header": session._raw_header,
        "migrator": [migrator.ids_by_index, migrator.previous_id],
        "problems": [list(p) for p in session._line_problems],
        "cols": {name: _plain(getattr(cols, name)) for name in _LISTS},
        "time_ms": cols.time_ms.tolist(),
        "usage": _usage_state(cols.usage),
        "compactions": cols.compactions,
        "label_events": cols.label_events,
        "names": cols.names,
        "tool_calls": _calls_state(cols.tool_calls),
        "tool_results": cols.tool_results,
        "first_user_text": cols.first_user_text,
    }
    try:
        return orjson.dumps(state)
    except TypeError:
        # nesting past what orjson writes (a read tool's arguments, the header, hundreds of
        # levels deep): cut there, in place, as the loader's tables cut it; the summary
        # reads only the top levels (a read's path, the header's fields)
        return orjson.dumps(trim_depth(state)[0])


def restore(path: str, blob: bytes) -> SummarySession:
    """A session as :func:`dump` left it (its tables unbuilt), ready for ``refresh()``."""
    state = orjson.loads(blob)
    session = SummarySession.__new__(SummarySession)
    session.file = Path(path)
    session._identity = tuple(state["identity"])
    offset, line, owes, torn = state["scan"]
    session._state = ScanState(offset, line, owes, torn)
    session._line_problems = [Problem(*p) for p in state["problems"]]
    session._raw_header = state["header"]
    migrator = Migrator(state["header"])
    migrator.ids_by_index, migrator.previous_id = state["migrator"]
    if migrator.version < 2:
        migrator.used = {i for i in migrator.ids_by_index if i is not None}
    session._migrator = migrator
    cols = SummaryColumns()
    cols.spec_times = migrator.dialect == "spec"
    for name in _LISTS:
        column = getattr(cols, name)
        column.extend(state["cols"][name])  # into the loader's own containers (arrays)
    cols.time_ms.frombytes(_floats(state["time_ms"]))
    cols.usage = _usage_column(state["usage"])
    cols.compactions = state["compactions"]
    cols.label_events = [tuple(e) for e in state["label_events"]]
    cols.names = [tuple(n) for n in state["names"]]
    cols.tool_calls = _tool_calls(state["tool_calls"])
    cols.tool_results = {k: (v[0], v[1], _nan(v[2])) for k, v in state["tool_results"].items()}
    cols.first_user_text = state["first_user_text"]
    cols.index_of = {entry_id: row for row, entry_id in enumerate(cols.ids)}
    session._cols = cols
    with paused_gc():
        session._tree = Tree.build(
            cols.ids, cols.parent_ids, cols.time_ms, cols.lines, cols.index_of
        )
    # the bytes refresh() compares to tell appends from a replaced file: the cache has
    # checked already that the file only grew, so they are read from it as it is now
    session._marks = session._read_marks()
    session._invalidate()
    return session
