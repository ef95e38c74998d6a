"""`load_family` and the Family: sessions linked by forks and sub-agents, as one object.

Why: work spreads over files. A fork is a new file that copies its source's path; a
sub-agent is a new file (in a ``sub-xxxxxxxx`` folder) whose usage is also added to the
parent's assistant message. Adding the files' own totals counts the copied prefixes
twice and the sub-agents twice; a Family counts each once, and stitches the trees into
one graph so a question ("what did this fork start from?") is a graph walk.
"""

from __future__ import annotations

import stat
from collections import deque
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._names import shown_text
from .._paths import file_list, given_path
from ..format import not_regular
from ..session import Context, Session, find_session_files
from ._facts import SessionFacts, header_facts, loaded_facts
from ._stitch import Stitched, _Index, stitch

if TYPE_CHECKING:
    import networkx as nx

PathLike = str | Path


class Family:
    """Sessions linked by ``parentSession`` (forks and sub-agents), counted once.

    :attr:`sessions`, :attr:`links`, :attr:`problems`, :attr:`totals` and :attr:`graph`
    are built from the linked sessions (their columns: docs/families.md). Sessions are
    named by their header id; a second file with the same id by ``<id>@<file name>``.
    """

    def __init__(self, sessions: dict[str, Session | None], stitched: Stitched) -> None:
        self._sessions = sessions
        self._st = stitched

    # -- tables -------------------------------------------------------------------------
    @cached_property
    def sessions(self) -> pd.DataFrame:
        """One row per session, parents before children (see README's family columns)."""
        return self._st.sessions_frame()

    @cached_property
    def links(self) -> pd.DataFrame:
        """One row per link: parent session and entry, child session and root, kind."""
        return self._st.links_frame()

    @cached_property
    def problems(self) -> pd.DataFrame:
        """Family-level problems (each session's own line problems are in its table)."""
        return self._st.problems_frame()

    @property
    def totals(self) -> dict[str, Any]:
        """Entries, tokens and cost of the whole family, each entry and sub-agent once.

        ``naive_tokens``/``naive_cost`` are the plain sums of the files' own totals, for
        comparison: they count copied prefixes again and sub-agents twice.
        """
        return self._st.totals()

    @property
    def roots(self) -> list[str]:
        """The sessions without a (found) parent: one per family in a folder."""
        return [k for k in self._st.order if self._st.parent[k] is None]

    def __len__(self) -> int:
        return len(self._st.order)

    def __iter__(self) -> Any:
        return iter(self._st.order)

    def __repr__(self) -> str:
        totals = self.totals
        return (
            f"<Family {len(self)} sessions, {len(self.roots)} roots, "
            f"{totals['unique_entries']} unique entries, cost {totals['cost']:.4f}, "
            f"{len(self._st.problems)} problems>"
        )

    # -- sessions -----------------------------------------------------------------------
    def key(self, session: str | Path) -> str:
        """The family's name for a session given by name, header id, path or file name."""
        text = str(session)
        if text in self._st.facts:
            return text
        matches = [
            k
            for k, f in self._st.facts.items()
            if f.id == text or f.path == text or Path(f.path).name == text
        ]
        if not matches and Path(text).exists():
            resolved = Path(text).resolve()
            matches = [k for k, f in self._st.facts.items() if Path(f.path).resolve() == resolved]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise KeyError(
                shown_text(
                    f"{text}: no such session in this family; see family.sessions['session'] "
                    "for the names"
                )
            )
        raise KeyError(
            shown_text(f"{text}: names {len(matches)} sessions ({', '.join(matches)}); pass one")
        )

    def session(self, session: str | Path) -> Session:
        """The loaded :class:`~prime_nb.Session` (by name, header id, path or file name)."""
        key = self.key(session)
        loaded = self._sessions.get(key)
        if loaded is None:
            path = self._st.facts[key].path
            raise ValueError(shown_text(f"{path}: could not be loaded; see family.problems"))
        return loaded

    def context(self, session_id: str | Path, leaf_id: str | None = None) -> Context:
        """What the model saw at ``leaf_id`` of one session (default: its active leaf).

        A fork's file holds its copied prefix, so its context is whole without its source;
        a sub-agent's context is its own (the parent's is not sent to it).
        """
        return self.session(session_id).context(leaf_id)

    def copied(self, session_id: str | Path) -> frozenset[str]:
        """Ids of the entries a fork copied from its source (empty for other sessions)."""
        return frozenset(self._st.shared[self.key(session_id)])

    def lineage(self, session_id: str | Path) -> list[str]:
        """Session names from the family's root down to ``session_id``."""
        key = self.key(session_id)
        out = [key]
        while (parent := self._st.parent[out[-1]]) is not None:
            out.append(parent)
        return out[::-1]

    def outline(self) -> str:
        """The family as indented text, one line per session, then the totals and problems."""
        lines = []
        for row in self.sessions.itertuples(index=False):
            title = row.name if isinstance(row.name, str) else row.first_prompt
            title = " ".join(str(title).split())[:50] if isinstance(title, str) else "-"
            at = f" at {row.forked_from}" if isinstance(row.forked_from, str) else ""
            what = "error: " + str(row.error) if isinstance(row.error, str) else title
            indent = "  " * int(row.level)  # type: ignore[arg-type]
            lines.append(
                f"{indent}{row.kind}{at}  {row.session}  "
                f"{row.entries} entries ({row.shared_entries} copied)  "
                f"own ${row.own_cost:.4f}  {what}"
            )
        totals = self.totals
        lines.append(
            f"total: {totals['sessions']} sessions, {totals['unique_entries']:,} unique entries, "
            f"{totals['tokens']:,} tokens, ${totals['cost']:.4f} "
            f"(files summed: {totals['naive_tokens']:,} tokens, ${totals['naive_cost']:.4f})"
        )
        lines.extend(f"{p.path}: {p.kind}: {p.message}" for p in self.problems.itertuples())
        return "\n".join(lines)

    # -- graph --------------------------------------------------------------------------
    @cached_property
    def graph(self) -> nx.DiGraph:
        """Every session's tree, stitched: nodes ``(session, entry id)``, edge ``kind``
        ``tree`` inside a session, ``fork`` or ``subagent`` from the parent entry to the
        child session's root. Node attributes: session, entry, type, role, tokens, cost,
        shared (an entry a fork copied from its source)."""
        import networkx as nx  # only when the graph is asked for

        graph = nx.DiGraph()
        st = self._st
        for key in st.order:
            loaded = self._sessions.get(key)
            if loaded is None:
                continue
            entries = loaded.entries
            shared = st.shared[key]
            columns = zip(
                entries.index.tolist(),
                entries["parent_id"].tolist(),
                entries["type"].tolist(),
                entries["role"].tolist(),
                entries["total_tokens"].tolist(),
                entries["cost"].tolist(),
                strict=True,
            )
            for eid, parent, kind, role, tokens, cost in columns:
                graph.add_node(
                    (key, eid),
                    session=key,
                    entry=eid,
                    type=kind,
                    role=role if isinstance(role, str) else None,
                    tokens=0 if pd.isna(tokens) else int(tokens),
                    cost=0.0 if pd.isna(cost) else float(cost),
                    shared=eid in shared,
                )
                if isinstance(parent, str):
                    graph.add_edge((key, parent), (key, eid), kind="tree")
        for link in self.links.itertuples(index=False):
            source, target = (link.parent, link.parent_entry), (link.child, link.child_root)
            if source in graph and target in graph:
                graph.add_edge(source, target, kind=link.kind)
        return graph


def _files(
    folders: Iterable[Path], pattern: str, include_archived: bool = True, follow: bool = False
) -> list[Path]:
    seen: dict[Path, Path] = {}
    for folder in folders:
        if folder.is_dir():
            for path in find_session_files(
                folder, pattern, include_archived=include_archived, follow_symlinks=follow
            ):
                seen.setdefault(path.resolve(), path)
    return sorted(seen.values())


def default_folders(session_file: Path) -> list[Path]:
    """Where a session's relatives live when the agent wrote them: its own folder, and the
    ``session-artifacts`` folder beside it (sub-agents sit in ``<id>/sub-xxxxxxxx/``);
    for a sub-agent's file, the folder that holds ``session-artifacts`` (and its parents)."""
    folders = [session_file.parent, session_file.parent.parent / "session-artifacts"]
    for ancestor in session_file.parents:
        if ancestor.name == "session-artifacts":
            folders.append(ancestor.parent)
            break
    return folders


def _recorded_parent(facts: SessionFacts) -> Path | None:
    """The parentSession path as written, if that file exists (relative: from the child)."""
    if not facts.parent_session or not facts.parent_session.endswith(".jsonl"):
        return None
    written = Path(facts.parent_session)
    target = written if written.is_absolute() else Path(facts.path).parent / written
    try:
        return target if target.is_file() else None
    except OSError:
        return None


def family_files(
    target: Path,
    folders: list[Path],
    pattern: str,
    include_archived: bool = True,
    follow_symlinks: bool = False,
) -> list[Path]:
    """The files of ``target``'s family among ``folders`` (plus recorded parents that
    exist, and their folders), found from headers alone so that only the family loads;
    archived files among them unless ``include_archived`` is False; files reached through
    a symlink leading out of a folder only with ``follow_symlinks``."""
    folders = list(folders)
    headers: dict[str, SessionFacts] = {str(target): header_facts(target)}
    searched: set[Path] = set()
    while True:
        for folder in folders:
            if folder not in searched:
                searched.add(folder)
                for path in _files([folder], pattern, include_archived, follow_symlinks):
                    if str(path) not in headers:
                        headers[str(path)] = header_facts(path)
        # a recorded parent that exists outside the folders: search where it lives too
        more: list[Path] = []
        for facts in list(headers.values()):
            recorded = _recorded_parent(facts)
            if recorded is not None and str(recorded) not in headers:
                headers[str(recorded)] = header_facts(recorded)
                more.extend(f for f in default_folders(recorded) if f not in searched)
        if not more:
            break
        folders = more
    unique: dict[Path, SessionFacts] = {}
    for facts in headers.values():
        unique.setdefault(Path(facts.path).resolve(), facts)
    keyed = {str(i): f for i, f in enumerate(unique.values())}
    index = _Index(keyed)
    # the files linked to the target, either way, at any depth: a breadth-first walk over
    # parent links (no networkx graph: nothing here builds one unless asked for)
    linked: dict[str, set[str]] = {key: set() for key in keyed}
    for key, facts in keyed.items():
        if facts.parent_session:
            for other in index.candidates(facts)[0]:
                linked[key].add(other)
                linked[other].add(key)
    start = next(k for k, f in keyed.items() if Path(f.path).resolve() == target.resolve())
    seen = {start}
    queue = deque([start])
    while queue:
        for other in linked[queue.popleft()]:
            if other not in seen:
                seen.add(other)
                queue.append(other)
    return [Path(keyed[k].path) for k in sorted(seen, key=int)]


def load_family(
    path_or_dir: PathLike,
    *,
    search: PathLike | Iterable[PathLike] | None = None,
    pattern: str = "**/*.jsonl",
    include_archived: bool = True,
    follow_symlinks: bool = False,
) -> Family:
    """Load a session's family (a file), or every family below a folder.

    For a file, its folder, the agent's ``session-artifacts`` folder beside it (see
    :func:`default_folders`) and the folders in ``search`` are searched, reading headers
    only; just the sessions linked to the file, at any depth, are loaded (how a
    ``parentSession`` is resolved: docs/families.md). For a folder, every session below it.
    Archived files (OpenClaw's ``<id>.jsonl.reset.<time>``, ``<id>.jsonl.deleted.<time>``)
    are searched too unless ``include_archived`` is False. A file reached through a
    symlink leading out of a folder searched is left out, with a warning, unless
    ``follow_symlinks`` (:func:`prime_nb.session.find_session_files`).

    Raises FileNotFoundError when ``path_or_dir`` does not exist, SessionFormatError when
    it is neither a file nor a folder (a FIFO, a device: reading one would wait forever).
    Unreadable files do not raise: they are rows with ``error`` and rows of
    :attr:`Family.problems`.
    """
    given = given_path(
        path_or_dir, "load_family's target", "for exactly these files use prime_nb.family_of(files)"
    )
    target = Path(given).expanduser()
    if not target.exists():
        raise FileNotFoundError(
            shown_text(
                f"{target}: no such session file or folder; pass a .jsonl session or the "
                "folder that holds a family"
            )
        )
    mode = target.stat().st_mode
    if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
        raise not_regular(target, mode)
    extra = [search] if isinstance(search, str | Path) else list(search or [])
    folders = [Path(p).expanduser() for p in extra]
    for folder in folders:
        if not folder.is_dir():
            raise NotADirectoryError(
                shown_text(f"{folder}: search must name folders; this is not one")
            )
    if target.is_dir():
        return family_of(_files([target, *folders], pattern, include_archived, follow_symlinks))
    around = [*default_folders(target), *folders]
    files = family_files(target, around, pattern, include_archived, follow_symlinks)
    everything = family_of(files)
    # headers alone over-approximate (every candidate of an ambiguous link): keep the
    # file's own family as the stitching decided it
    st = everything._st
    mine = st.family[everything.key(str(target))]
    keep = [k for k in st.order if st.family[k] == mine]
    if len(keep) == len(st.order):
        return everything
    return _stitched([(st.facts[k], everything._sessions.get(k)) for k in keep])


def family_of(files: PathLike | Iterable[PathLike]) -> Family:
    """The Family of exactly these session files (no search; one path alone is one file)."""
    # a file that fails to load: no session, and why in its facts
    return _stitched([loaded_facts(path)[::-1] for path in file_list(files)])


def _stitched(pairs: list[tuple[SessionFacts, Session | None]]) -> Family:
    """The Family of these facts and their loaded sessions."""
    stitched = stitch([facts for facts, _ in pairs])
    by_path = {facts.path: session for facts, session in pairs}
    return Family({k: by_path[f.path] for k, f in stitched.facts.items()}, stitched)
