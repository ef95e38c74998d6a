"""A loaded session: tables, the conversation tree, the graph and the model's context.

Layer 3, on top of ``prime_nb.format`` (lines and entries) and ``prime_nb.write`` (the
Session's ``append_*`` methods delegate there). Everything above (analysis, plots, the
widget, corpora) reads sessions through :class:`Session`.

- ``_session``: :class:`Session` and :func:`load`; ``refresh`` reads only appended bytes.
- ``_read``: :func:`read_columns`, the one way a file is read into columns (from the
  start, or resumed from an earlier :class:`ColumnsRead`); ``_summary_columns``: the
  lighter column set the corpus reads.
- ``_columns``: one pass over the entries into columns (the per-entry hot path).
- ``_store``: the columns' compact containers (typed arrays, usage, tool calls).
- ``_tree``, ``_children``: the tree as arrays (parents, children, depth, leaves, active
  path); each row's children in two compressed arrays.
- ``_read_runs``: rows read back from disk in runs of nearby bytes, a read per run.
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
- ``_fork``: ``fork_to_file``, one branch to a new file (needs the tree, so it is here).
"""

from ._context import Context
from ._discovery import find_session_files, list_sessions, session_dir
from ._read import ColumnsRead, read_columns
from ._session import Session, fork_to_file, load
from ._tables import empty_entries

__all__ = [
    "ColumnsRead",
    "Context",
    "Session",
    "empty_entries",
    "find_session_files",
    "fork_to_file",
    "list_sessions",
    "load",
    "read_columns",
    "session_dir",
]
