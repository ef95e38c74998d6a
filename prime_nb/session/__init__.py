"""A loaded session: tables, the conversation tree, the graph and the model's context.

Layer 3, on top of ``prime_nb.format`` (lines and entries) and ``prime_nb.write`` (the
Session's ``append_*`` methods delegate there). Everything above (analysis, plots, the
widget, corpora) reads sessions through :class:`Session`.

- ``_session``: :class:`Session` and :func:`load`; ``refresh`` reads only appended bytes.
- ``_read``: :func:`read_columns`, the one way a file is read into columns (from the
  start, or resumed from an earlier :class:`ColumnsRead`).
- ``_columns``: one pass over the entries into columns (the per-entry hot path), with
  or without previews (the corpus's summary); ``_store``: usage and tool calls.
- ``_tree``: the tree as row indexes (parents, children, depth, active path).
- ``_index``: pointers over the tree (preorder spans, the entry of a kind in force).
- ``_tables``: the pandas tables built from the columns, on first use.
- ``_graph``, ``_graph_rows``: the networkx DiGraph, its node attributes read lazily.
- ``_context``: what the model saw at a leaf, as the agent rebuilds it.
- ``_records``: side tables of the rare bookkeeping entries (git, child usage, bash runs,
  custom data, branch summaries), read on first access; ``_lookups``: what reading a
  session needs from them without a table (session state, agent status, the rows that
  carry a sub-agent's usage). Tables and pandas load only when a table is asked for.
- ``_text``: plain text and previews of messages.
- ``_discovery``: the agent's session folder and the files in it.
- ``_given``: a Session where a helper above takes one (the Session, or a path).

Besides :class:`Session`, :func:`load` and the discovery functions, the names listed
(in ``__all__``) include the pieces the layers above build on (text and previews,
the tree index, the table schema, chat messages): they import them from here, never
from a private module.
"""

from ._columns import EntryColumns, table_time_ms, usage_tuple
from ._context import Context
from ._discovery import find_session_files, list_sessions, session_dir
from ._given import SessionLike, as_session
from ._index import CONTEXT_TYPES, TreeIndex
from ._messages import context_messages
from ._read import ColumnsRead, paused_gc, read_columns
from ._schema import TIME, dtype_of
from ._session import Session, fork_to_file, load
from ._store import view
from ._tables import empty_entries
from ._text import entry_text, message_text, preview
from ._tree import active_path_mask
from ._turns import check_options, to_json

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
    "as_session",
    "check_options",
    "context_messages",
    "dtype_of",
    "empty_entries",
    "entry_text",
    "find_session_files",
    "fork_to_file",
    "list_sessions",
    "load",
    "message_text",
    "paused_gc",
    "preview",
    "read_columns",
    "session_dir",
    "table_time_ms",
    "to_json",
    "usage_tuple",
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
