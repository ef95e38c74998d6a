"""`load` and the Session: tables, graph and context of one session file."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

import numpy as np

from .. import write
from .._names import real_name, shown_name, shown_text
from .._paths import given_path, is_url
from ..errors import EntryNotFoundError, SessionFormatError
from ..format import (
    CURRENT_VERSION,
    Dialect,
    deep_enough,
    dialect_of_header,
    header_to_canonical,
    index_migrates,
    js_trim,
    open_regular,
    parse_line,
    to_current,
    trim_depth,
)
from . import _lookups as lookups
from ._columns import EntryColumns
from ._context import Context, ContextRead, build_context, read_context, with_child_usage
from ._index import TreeIndex
from ._messages import to_messages
from ._read import ColumnsRead, marks_of, not_found, read_columns, rewritten
from ._read import paused_gc as paused_gc  # where analysis and the widget import it
from ._store import view
from ._tree import Tree
from ._writing import SessionWrites

# The tables (``_tables``, ``_records``) are imported by the methods that build them:
# reading a session (the corpus's pass) builds none.
if TYPE_CHECKING:
    import networkx as nx
    import pandas as pd

_T = TypeVar("_T")

#: the header's camelCase keys in snake_case (the others keep their names)
HEADER_KEYS = {
    "parentSession": "parent_session",
    "branchedFrom": "branched_from",
    "rlmDepth": "rlm_depth",
    "modelId": "model_id",
    "thinkingLevel": "thinking_level",
}


#: decimals of the summary's cost: the float noise of a sum (``0.47247160000000005``)
#: goes, no billed fraction does (providers price a token in millionths of a dollar)
COST_DECIMALS = 10


class Session(SessionWrites):
    """One session file, loaded into columns; tables are built on first access."""

    #: the read the Session holds (its columns, tree, header, problems and scan state)
    _read: ColumnsRead

    def __init__(self, file: str | Path) -> None:
        # a name a table showed with \xNN escapes (not UTF-8) opens the file it names
        name = given_path(
            file,
            "a session",
            "name one .jsonl session file (many files: prime_nb.corpus.load_corpus(files=...))",
        )
        self.file = Path(real_name(name))
        try:
            self._read = read_columns(self.file)
        except FileNotFoundError:
            if is_url(name):  # the path mangled the URL: say it as it was given
                raise FileNotFoundError(not_found(name)) from None
            raise
        self._invalidate()

    # -- reading: ``read_columns`` does it (``_read``) -----------------------------------
    @classmethod
    def from_read(cls, read: ColumnsRead) -> Session:
        """A Session over a finished :func:`read_columns` read, without reading again
        (the corpus's rows): all but the tables work with a ``columns="summary"`` read."""
        session = cls.__new__(cls)
        session.file = read.file
        session._read = read
        session._invalidate()
        return session

    # the read's parts, by the names the Session's methods use
    @property
    def _cols(self) -> EntryColumns:
        return self._read.columns

    @property
    def _tree(self) -> Tree:
        return self._read.tree

    def refresh(self) -> int:
        """Read what was appended since the last read; return how many entries were added.

        Costs time in proportion to the new bytes. If the file was replaced or rewritten
        (the agent rewrites a file when it migrates it), the session is loaded again from
        scratch. Either way the result equals a fresh ``load()`` of the file; a refresh
        that fails (a new file whose header is not written yet, an I/O error) raises and
        leaves the session exactly as it was, so the next one can succeed.
        """
        before = len(self._cols)
        read = read_columns(self.file, state=self._read)
        if read.fresh:
            self._read = read
            self._invalidate()
            return len(self._cols) - before
        if not read.changed:
            return 0
        self._invalidate(keep_rows=read.rows_kept)
        return read.added

    def _invalidate(self, keep_rows: bool = False) -> None:
        """Drop cached tables; with ``keep_rows`` the entries table is extended, not rebuilt."""
        # the last table built is still a valid prefix, even after several refreshes
        previous = self.__dict__.get("entries", getattr(self, "_previous_entries", None))
        self._previous_entries: pd.DataFrame | None = previous if keep_rows else None
        for name, value in vars(Session).items():
            if isinstance(value, cached_property):
                self.__dict__.pop(name, None)

    # -- identity ------------------------------------------------------------------------
    @cached_property
    def _header_canonical(self) -> dict[str, Any]:
        assert self._read.header is not None
        return header_to_canonical(self._read.header)

    @property
    def header(self) -> dict[str, Any]:
        """The header with snake_case keys (id, cwd, timestamp, version, parent_session...)."""
        raw = self._header_canonical
        out = {HEADER_KEYS.get(k, k): v for k, v in raw.items() if k != "type"}
        out["version"] = self.version
        return out

    @property
    def dialect(self) -> Dialect:
        assert self._read.header is not None
        return dialect_of_header(self._read.header)

    @property
    def version(self) -> int:
        """The version on disk (a header without one is version 1)."""
        assert self._read.migrator is not None
        return self._read.migrator.version

    @property
    def loaded_version(self) -> int:
        """The version every entry is read as: the current one, as the agent migrates."""
        return CURRENT_VERSION

    @property
    def id(self) -> str | None:
        value = self._header_canonical.get("id")
        return str(value) if value is not None else None

    @property
    def name(self) -> str | None:
        """The display name, trimmed, as the agent reads it: the latest session_info
        entry wins, and one with an empty or missing name means no name."""
        name = self._cols.names[-1][1] if self._cols.names else None
        return js_trim(name) or None if name is not None else None

    @property
    def state(self) -> str | None:
        """``active``, ``archived`` or ``crash``: the last session_state entry the agent
        recognises (it reads ``sleep`` and ``hidden`` as archived); None if none."""
        return lookups.session_state(self._cols, self._read_rows)

    @property
    def agent_status(self) -> dict[str, Any] | None:
        """The latest agent_status in the file (``summary``, ``taskState``,
        ``basedOnMessageCount``), as the agent's session list shows it; None if none."""
        return lookups.agent_status(self._cols, self._read_rows)

    def agent_status_at(self, leaf_id: str | None = None) -> dict[str, Any] | None:
        """The agent_status nearest ``leaf_id`` on its branch (default: the active leaf),
        as the agent resumes that branch with it; None if the branch has none."""
        row = self._leaf_row if leaf_id is None else self._row(leaf_id)
        return lookups.agent_status(self._cols, self._read_rows, self._tree.path(row))

    @property
    def leaf_id(self) -> str | None:
        """The active leaf: the last entry in file order, the one the agent resumes."""
        return self._cols.ids[-1] if self._cols.ids else None

    def __len__(self) -> int:
        return len(self._cols)

    def __repr__(self) -> str:
        return (
            f"<Session {shown_text(str(self.name or self.id))} v{self.version} {self.dialect}: "
            f"{len(self)} entries, {len(self.leaves)} leaves, "
            f"{len(self.problems)} problems, file={shown_text(str(self.file))}>"
        )

    # -- tables --------------------------------------------------------------------------
    def _row(self, entry_id: str) -> int:
        row = self._cols.index_of.get(entry_id)
        if row is None:
            raise EntryNotFoundError(entry_id, self.file)
        return row

    @property
    def _leaf_row(self) -> int:
        return len(self._cols) - 1

    @cached_property
    def entries(self) -> pd.DataFrame:
        """One row per entry in file order, index ``id``."""
        from . import _tables as tables

        if self._read.kind != "full":
            raise ValueError(
                shown_text(
                    f"{self.file}: read with columns={self._read.kind!r}, which keeps no text "
                    "previews; load() the file for its entries table"
                )
            )
        previous, self._previous_entries = self._previous_entries, None
        with paused_gc():
            if previous is not None and len(previous) <= len(self._cols):
                return tables.extend_entries_frame(previous, self._cols, self._tree, self._leaf_row)
            return tables.entries_frame(self._cols, self._tree, self._leaf_row)

    @cached_property
    def messages(self) -> pd.DataFrame:
        """Entries that are messages (``message`` and ``custom_message``)."""
        frame = self.entries
        return frame[frame["type"].isin(("message", "custom_message"))]

    @cached_property
    def tool_calls(self) -> pd.DataFrame:
        from . import _tables as tables

        return tables.tool_calls_frame(self._cols, lambda rows: self._read_rows(rows, trim=False))

    @cached_property
    def compactions(self) -> pd.DataFrame:
        from . import _tables as tables

        return tables.compactions_frame(self._cols, self._tree, self._index)

    @cached_property
    def leaves(self) -> pd.DataFrame:
        from . import _tables as tables

        return tables.leaves_frame(self._cols, self._tree, self._leaf_row)

    @cached_property
    def problems(self) -> pd.DataFrame:
        """Every problem found, by line: bad lines, orphans, cycles, duplicate ids, links
        that name no entry..."""
        from . import _tables as tables

        return tables.problems_frame(self._read.all_problems())

    @cached_property
    def labels(self) -> dict[str, str]:
        """Label in force per entry id (the latest label entry for a target wins)."""
        from . import _tables as tables

        return {self._cols.ids[r]: v for r, v in tables.labels_by_row(self._cols).items()}

    @cached_property
    def label_table(self) -> pd.DataFrame:
        """The labels in force with when each was set: index ``id`` (the labelled entry),
        ``label``, ``label_entry_id``, ``timestamp`` (of the label entry that set it)."""
        from . import _records as records
        from . import _tables as tables

        return records.label_table(self._cols, tables.labels_by_row(self._cols))

    @cached_property
    def git_states(self) -> pd.DataFrame:
        """One row per git_state entry: ``repository``, ``commit``, ``branch``, ``git``.
        The state in force at a leaf is ``session.context(leaf).git``."""
        return self._record("git_table")

    @cached_property
    def child_usage(self) -> pd.DataFrame:
        """One row per child_usage_attributed entry: ``target_id``, ``origin``, the
        children's and the aggregate tokens and cost, and both usage dicts."""
        return self._record("child_usage_table")

    @cached_property
    def bash_runs(self) -> pd.DataFrame:
        """One row per bash run: ``command``, ``exit_code``, ``cancelled``,
        ``truncated``, ``exclude_from_context``, ``full_output_path``."""
        return self._record("bash_table")

    @cached_property
    def custom_entries(self) -> pd.DataFrame:
        """One row per ``custom`` entry (extension state): ``custom_type``, ``data``."""
        return self._record("custom_table")

    @cached_property
    def branch_summaries(self) -> pd.DataFrame:
        """One row per branch_summary: ``from_id``, ``summary``, ``details``, ``from_hook``."""
        return self._record("branch_summary_table")

    def _record(self, name: str) -> pd.DataFrame:
        """The side table ``_records.<name>`` builds (its entries read from disk)."""
        from . import _records

        table: pd.DataFrame = getattr(_records, name)(self._cols, self._tree, self._read_rows)
        return table

    @cached_property
    def _child_usage_targets(self) -> dict[int, int]:
        return lookups.child_usage_targets(self._cols, self._read_rows)

    @cached_property
    def _index(self) -> TreeIndex:
        """Pointers over the tree for the context and the compaction tables (``_index``)."""
        return TreeIndex(self._cols, self._tree, spec_dialect=self.dialect == "spec")

    @cached_property
    def graph(self) -> nx.DiGraph:
        from ._graph import session_graph

        with paused_gc():
            return session_graph(self.entries, self._tree)

    # -- tree navigation -----------------------------------------------------------------
    def path(self, leaf_id: str | None = None) -> list[str]:
        """Entry ids from the root down to ``leaf_id`` (default: the active leaf)."""
        row = self._leaf_row if leaf_id is None else self._row(leaf_id)
        return [self._cols.ids[r] for r in self._tree.path(row)] if row >= 0 else []

    def children(self, entry_id: str) -> list[str]:
        """Child ids of an entry, oldest first."""
        return [self._cols.ids[r] for r in self._tree.children[self._row(entry_id)]]

    # -- full entries --------------------------------------------------------------------
    def _read_rows(self, rows: Sequence[int], trim: bool = True) -> list[dict[str, Any]]:
        """Full canonical entries for rows, read from disk in file order (no rows: the file
        is not opened). ``trim``: cut nesting deeper than orjson writes (``False`` for a
        caller that trims the part it keeps, as the tool_calls table does)."""
        if not rows:
            return []
        cols = self._cols
        offsets, lengths = cols.offsets, cols.lengths
        out: dict[int, dict[str, Any]] = {}
        with open_regular(self.file) as fh, paused_gc():
            self._check_identity(fh)
            for row in sorted(set(rows), key=offsets.__getitem__):
                fh.seek(offsets[row])
                raw = fh.read(lengths[row]).rstrip(b"\n")
                obj, _ = parse_line(raw, cols.lines[row])
                if trim and obj is not None and deep_enough(raw):
                    obj, _ = trim_depth(obj)  # nesting orjson reads but cannot write
                out[row] = self._canonical(row, obj or {"type": cols.types[row]})
        return [out[row] for row in rows]

    def _canonical(self, row: int, obj: dict[str, Any]) -> dict[str, Any]:
        """A re-read line in the form the columns were built from (ids from the columns)."""
        entry = to_current(obj, self.dialect, self.version)
        if index_migrates(entry):
            entry.pop("firstKeptEntryIndex")
            kept = next(c for c in self._cols.compactions if c["index"] == row)
            entry["firstKeptEntryId"] = kept["first_kept_entry_id"]
        entry["id"] = self._cols.ids[row]
        parent = self._tree.parent[row]
        entry["parentId"] = self._cols.ids[parent] if parent >= 0 else None
        return entry

    def _check_identity(self, fh: IO[bytes]) -> None:
        """Offsets are only valid in the file they were read from."""
        read, stat = self._read, os.fstat(fh.fileno())
        if (stat.st_dev, stat.st_ino) != read.identity or (
            stat.st_size < read.end
            or rewritten(read, stat)
            or marks_of(fh.fileno(), read.end) != read.marks
        ):
            raise SessionFormatError(
                self.file,
                "the file was replaced on disk since it was loaded; call session.refresh()",
            )

    def read_entries(self, entry_ids: Sequence[str]) -> list[dict[str, Any]]:
        """Whole entries for many ids in one pass over the file (canonical, like ``entry``)."""
        return self._read_rows([self._row(entry_id) for entry_id in entry_ids])

    def entry(self, entry_id: str) -> dict[str, Any]:
        """The whole entry, canonical (Prime Agent's names, version 3), read from disk."""
        return self._read_rows([self._row(entry_id)])[0]

    def context(self, leaf_id: str | None = None) -> Context:
        """What the agent sends the model at ``leaf_id`` (default: the active leaf).

        Messages, model, thinking level and service tier as the agent's own
        ``buildSessionContext`` builds them, plus each message's ``entry_id`` and the git
        state in force (``.git``; the header's when no git_state is on the path). A v1
        header's ``provider``/``modelId``/``thinkingLevel`` do not count, as in the agent
        (they stay visible in ``session.header``). An id that is not in the session raises
        EntryNotFoundError, where the agent would quietly use the last entry.
        """
        return self._context_at(leaf_id, self._read_rows)

    def _context_at(
        self, leaf_id: str | None, read_rows: Callable[[Sequence[int]], list[dict[str, Any]]]
    ) -> Context:
        row = self._leaf_row if leaf_id is None else self._row(leaf_id)
        context = build_context(
            row, self._cols, read_rows, self._index, child_usage=self._child_usage_targets
        )
        if context.git is None and isinstance(self._header_canonical.get("git"), dict):
            context.git = self._header_canonical["git"]
        return context

    def context_reader(self) -> Callable[[str | None], Context]:
        """A function that gives what :meth:`context` gives, for many leaves: each entry
        is read from the file once for all its calls (and kept as long as the function
        is), where ``context`` reads every entry of the path again. For a dataset's
        rows, whose contexts share most of their entries. The contexts it gives share
        their messages' parts (content lists, blocks): copy one before changing it."""
        read: dict[int, dict[str, Any]] = {}

        def read_rows(rows: Sequence[int]) -> list[dict[str, Any]]:
            missing = [row for row in dict.fromkeys(rows) if row not in read]
            read.update(zip(missing, self._read_rows(missing), strict=True))
            return [read[row] for row in rows]

        return lambda leaf_id: self._context_at(leaf_id, read_rows)

    def _contexts_messages(self, rows: Sequence[int]) -> list[ContextRead]:
        """The messages of the context at each of ``rows`` without its settings, and the
        entries read for them, the row's own among them (what the compaction forensics
        count); a row below 0 (an empty session's leaf) has none."""
        cols, index, usage = self._cols, self._index, self._child_usage_targets
        return [
            read_context(row, cols, self._read_rows, index, usage, (row,)) if row >= 0 else ([], {})
            for row in rows
        ]

    def to_messages(
        self,
        leaf_id: str | None = None,
        format: str = "openai",
        images: str = "data_url",
        thinking: bool = True,
    ) -> list[dict[str, Any]]:
        """The context at ``leaf_id`` (default: the active leaf) as a provider's chat
        messages, ready to send or to store as a dataset row.

        ``format``: ``"openai"`` (Chat Completions: user, assistant with ``tool_calls``,
        ``tool`` results) or ``"anthropic"`` (Messages API: alternating user and
        assistant, ``tool_use`` and ``tool_result`` blocks). ``images``: ``"data_url"``
        keeps them (data URLs, base64 blocks), ``"drop"`` removes them. ``thinking``:
        keep the model's thinking or drop it. The rules (pairing of calls and results,
        failed turns, no system message): ``docs/datasets.md``.

        Raises ValueError for an unknown ``format`` or ``images``, EntryNotFoundError
        for an id not in the session.
        """
        return to_messages(self.context(leaf_id), format, images, thinking)

    def summary(self) -> dict[str, Any]:
        """Headline figures, for printing, for the CLI (a file name that is not UTF-8
        with ``\\xNN`` escapes, as JSON and terminals need) and for the corpus's row of
        the file. Counted from the columns, not the entries table: so a summary read
        (:meth:`from_read`, the corpus's pass) has them without building a table, and
        the corpus and the Session count them one way.

        ``input_tokens``, ``output_tokens``, ``cache_read_tokens`` and
        ``cache_write_tokens`` are summed over the turns, as the agent's footer shows
        them; ``tokens`` adds each turn's total, so the cached context counts again on
        every turn (what was processed, not the size of any context)."""
        cols = self._cols
        children = self._tree.children.counts()
        # input, output, cache read, cache write, total; a missing value is 0 in the column
        # (as the table's sum leaves it out)
        tokens = view(cols.usage.tokens, np.int64).reshape(-1, 5)
        cost = view(cols.usage.cost, np.float64)
        return {
            "file": shown_name(str(self.file)),
            "id": self.id,
            "name": self.name,
            "cwd": self.header.get("cwd"),
            "version": self.version,
            "loaded_version": self.loaded_version,
            "dialect": self.dialect,
            "entries": len(cols),
            "messages": sum(role is not None for role in cols.roles),
            "leaves": int((children == 0).sum()),
            "forks": int((children > 1).sum()),
            "compactions": len(cols.compactions),
            "tool_calls": len(cols.tool_calls),
            # the four parts apart, as the agent's footer shows them; "tokens" adds each
            # turn's total, so cached context read on every turn counts on every turn
            "input_tokens": int(tokens[:, 0].sum()),
            "output_tokens": int(tokens[:, 1].sum()),
            "cache_read_tokens": int(tokens[:, 2].sum()),
            "cache_write_tokens": int(tokens[:, 3].sum()),
            "tokens": int(tokens[:, 4].sum()),
            # summed as pandas sums a float column (NaN left out, numpy's pairwise sum),
            # then rounded to COST_DECIMALS: the float noise of the sum never shows
            "cost": round(float(np.where(np.isnan(cost), 0.0, cost).sum()), COST_DECIMALS),
            "problems": self._read.problem_count,
            "active_leaf": self.leaf_id,
            "current_version": CURRENT_VERSION,
        }

    def fork_to_file(self, leaf_id: str | None = None, dest: str | Path | None = None) -> Path:
        """Write the branch root -> ``leaf_id`` (default: the active leaf) to a new file.

        The Session reads the branch and the labels in force; the write layer writes them
        (``write_fork``; see :func:`fork_to_file`).
        """
        row = self._leaf_row if leaf_id is None else self._row(leaf_id)
        rows = self._tree.path(row) if row >= 0 else []
        targets = self._child_usage_targets
        path = with_child_usage(self._read_rows(rows), rows, targets, self._read_rows)
        labels = self.label_table
        set_at = {
            entry["id"]: entry.get("timestamp")
            for entry in self.read_entries(list(labels["label_entry_id"]))
        }
        in_force = [
            (entry_id, text, set_at[label_entry_id])
            for entry_id, text, label_entry_id in zip(
                labels.index, labels["label"], labels["label_entry_id"], strict=True
            )
        ]
        return write.write_fork(self.file, self.header.get("cwd"), path, in_force, dest)


def load(path: str | Path) -> Session:
    """Load a session file of any version and either dialect.

    One pass over the file builds the columns and the tree; tool-call arguments and full
    texts stay on disk until a table or a context asks for them.
    """
    return Session(path)


def fork_to_file(
    path: str | Path, leaf_id: str | None = None, dest: str | Path | None = None
) -> Path:
    """Write the branch root -> ``leaf_id`` to a new v3 session file, as the agent forks.

    The new file holds the entries on that path (label entries dropped, the others
    chained anew), then one label entry per label in force on the path, with the time
    that label was set, and its header names the source as ``parentSession`` and
    carries its ``rlmDepth``: the agent opens it as it is. Assistant messages that
    child-usage entries target are written with the aggregated usage, as the agent's
    fork writes them. ``dest`` defaults to the agent's naming in the source's folder (a
    folder as ``dest`` gets that name too). Returns the new file's path.

    One deliberate difference: the agent drops label entries from a fork without
    re-linking their children (which become orphans); prime_nb chains each entry to the
    one before it on the path, so the fork is one unbroken branch.
    """
    return Session(path).fork_to_file(leaf_id, dest)
