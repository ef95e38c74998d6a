"""Where the summary pass stopped in a file, as bytes: resume it when the file grows.

Why: a corpus of live sessions grows by appends. With the pass's columns, tree inputs,
problems, header, migration state and scan position kept, a grown file is read only
from where the last pass stopped: the restored session runs the loader's own
``refresh()``, exactly as an open Session catches up. JSON (orjson) keeps it readable
from any version of Python; NaN is written as null and read back as NaN.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import orjson

from ..format._migrating import Migrator
from ..format._reading import Problem, ScanState, trim_depth
from ..session._columns import USAGE_KEYS, OddUsage
from ..session._session import paused_gc
from ..session._store import ON_DISK, ToolCallRow, ToolCalls, UsageColumn
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


def _usage(value: list[Any] | None) -> Any:
    """A usage row as the loader made it (an ``OddUsage`` where a field is missing)."""
    if value is None:
        return None
    usage = (*value[:5], _nan(value[5]))
    if None not in usage[:5]:
        return usage
    odd = OddUsage(usage)
    odd.fields = tuple(k for k, v in zip(USAGE_KEYS, usage[:5], strict=True) if v is None)
    return odd


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
        "cols": {name: list(getattr(cols, name)) for name in _LISTS},
        "time_ms": list(cols.time_ms),
        "usage": [tuple(u) if u is not None else None for u in cols.usage],  # OddUsage too
        "compactions": cols.compactions,
        "label_events": cols.label_events,
        "names": cols.names,
        # arguments left on disk (all but the read tools') are stored as missing
        "tool_calls": [
            [*call[:2], None if call.arguments is ON_DISK else call.arguments, *call[3:]]
            for call in cols.tool_calls
        ],
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
    cols.time_ms.extend(_nan(t) for t in state["time_ms"])
    cols.usage = UsageColumn(_usage(u) for u in state["usage"])
    cols.compactions = state["compactions"]
    cols.label_events = [tuple(e) for e in state["label_events"]]
    cols.names = [tuple(n) for n in state["names"]]
    cols.tool_calls = ToolCalls(
        ToolCallRow(c[0], c[1], c[2], c[3], _nan(c[4]), *c[5:]) for c in state["tool_calls"]
    )
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
