"""A loaded session: tables, the conversation tree, the graph and the model's context.

Layer 3, on top of ``prime_nb.format`` (lines and entries) and ``prime_nb.write`` (the
Session's ``append_*`` methods delegate there). Everything above (analysis, plots, the
widget, corpora) reads sessions through :class:`Session`.

- ``_session``: :class:`Session` and :func:`load`; ``_read``: :func:`read_columns`, the
  one way a file is read into columns (from the start, or resumed from a read).
- ``_columns``, ``_store``: one pass over the entries into columns; ``_tree``, ``_index``:
  the tree as row indexes, and pointers over it.
- ``_tables``, ``_schema``, ``_records``: the pandas tables, built on first use;
  ``_lookups``: what reading needs from bookkeeping entries without a table.
- ``_graph``, ``_graph_rows``: the networkx DiGraph, its node attributes read lazily.
- ``_context``, ``_turns``, ``_messages``: what the model saw at a leaf, as chat messages.
- ``_text``, ``_discovery``, ``_given``: previews; the folders agents keep sessions in
  and OpenClaw's archived files; a Session or a path where a helper takes one.

``__all__`` also lists the pieces the layers above build on (previews, the tree index,
the schema, chat messages): they import them from here, never from a private module.
"""

from ._columns import EntryColumns, table_time_ms, usage_tuple
from ._context import Context
from ._discovery import (
    archived_kind,
    find_session_files,
    list_sessions,
    openclaw_state_dir,
    session_dir,
    session_folders,
)
from ._given import SessionLike, as_session
from ._index import CONTEXT_TYPES, TreeIndex
from ._messages import context_messages
from ._read import ColumnsRead, paused_gc, read_columns
from ._schema import TIME, dtype_of
from ._session import Session, fork_to_file, load
from ._store import view
from ._tables import empty_entries, utc_times
from ._text import content_text, context_message_text, entry_text, message_text, one_line, preview
from ._tree import active_path_mask
from ._turns import arguments_object, check_options, to_json

__all__ = [
    "CONTEXT_TYPES",
    "TIME",
    "ColumnsRead",
    "Context",
    "EntryColumns",
    "Session",
    "SessionLike",
    "TreeIndex",
    "active_path_mask",
    "archived_kind",
    "arguments_object",
    "as_session",
    "check_options",
    "content_text",
    "context_message_text",
    "context_messages",
    "dtype_of",
    "empty_entries",
    "entry_text",
    "find_session_files",
    "fork_to_file",
    "list_sessions",
    "load",
    "message_text",
    "one_line",
    "openclaw_state_dir",
    "paused_gc",
    "preview",
    "read_columns",
    "session_dir",
    "session_folders",
    "table_time_ms",
    "to_json",
    "usage_tuple",
    "utc_times",
    "view",
]


def __getattr__(name: str) -> object:
    """Say what replaced a removed name, rather than only that it is missing."""
    if name == "frame_mismatches":
        raise ImportError(
            "prime_nb.session.frame_mismatches was removed: only tests used it. Compare "
            "frame.dtypes with dtype_of(spec) of each column of your schema instead",
            name=name,
            path=__file__,
        )
    raise AttributeError(f"module 'prime_nb.session' has no attribute {name!r}")
