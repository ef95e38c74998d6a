"""`to_scout`: sessions as an Inspect Scout transcript database, each message's id its
entry id.

Scout runs scanners (grep patterns, questions to an LLM) over thousands of transcripts
and returns DataFrames whose rows cite the messages they found (``message_references``,
each with the message's ``id``). Building Scout's transcripts directly, with every
message's id set to the entry it came from, keeps that link: a hit is an entry of a
file, and ``prime_nb.show(row)`` opens it (Scout's own ATIF and Phoenix importers give
messages new random ids, so their hits cannot be traced back).

One transcript per active path by default: the session as the agent resumes it, each
message once. Every leaf (``leaves="all"``) is there for studying abandoned branches; a
shared prefix is then in several transcripts, so a scanner pays for it and finds it once
per leaf. Scout cannot do otherwise: a scanner reads one transcript's messages, and a
transcript cannot refer to another's. What it can do is say so: the active path comes
first, and each later transcript names the earlier one it forked from (``forked_from``)
and how many of its first messages that one holds (``shared_messages``); since message
ids are entry ids, a finding in a shared message has the same ``entry_id`` each time.

A path's messages are its whole history, compactions included: a compaction is the
user message with its summary that the model read (``session.context(leaf)`` is what
the model saw at the end, not this).

The session and the leaf become the database's columns (Scout stores each metadata key
as one): ``file``, ``session_id``, ``leaf_id``, ``is_active_leaf``, ``session_name``,
``cwd``, ``entries``, ``compactions``, ``cost``, ``forked_from``, ``shared_messages``.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Coroutine, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal, TypeVar

from .._names import shown_name
from .._paths import is_path_list
from ..session import Session, find_session_files, load, paused_gc
from ._extras import require
from ._path import Item, json_safe, path_items

_T = TypeVar("_T")
#: what a transcript id may hold: Scout names files after it
_UNSAFE = re.compile(r"[^A-Za-z0-9._:@-]")
SOURCE_TYPE = "prime-agent"
#: the agent's wording around summaries, as the model read them
COMPACTION_PREFIX = (
    "The conversation history before this point was compacted into the following summary:"
    "\n\n<summary>\n"
)
BRANCH_PREFIX = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)

SessionsOrFolder = Session | str | os.PathLike[str] | Iterable[Session | str | os.PathLike[str]]


def run_async(make: Coroutine[Any, Any, _T]) -> _T:
    """Run a coroutine to the end, also where an event loop already runs (a notebook)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make)
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, make).result()


def sessions_of(given: SessionsOrFolder, follow_symlinks: bool = False) -> Iterator[Session]:
    """Sessions one at a time: a Session, a file, a folder (every session below it), or
    a list of any of these; a folder's files are loaded one by one, never all at once.
    A file reached through a symlink leading out of a folder is left out, with a
    warning, unless ``follow_symlinks``."""
    items: Iterable[Any] = given if is_path_list(given) else [given]
    for item in items:
        if isinstance(item, Session):
            yield item
            continue
        path = Path(os.fspath(item))
        if path.is_dir():
            found = find_session_files(path, follow_symlinks=follow_symlinks)
            yield from (load(p) for p in found)
        else:
            yield load(path)


def _message(item: Item, inspect: Any) -> Any:
    """One Scout chat message of an item, its id the entry's."""
    model, tool = inspect.model, inspect.tool
    if item.kind == "assistant":
        content: Any = item.text
        if item.thinking:
            parts = [model.ContentReasoning(reasoning=item.thinking)]
            content = [*parts, model.ContentText(text=item.text)] if item.text else parts
        calls = [
            tool.ToolCall(id=c.id, function=c.name, arguments=json_safe(c.arguments))
            for c in item.calls
        ]
        return model.ChatMessageAssistant(
            id=item.entry_id, content=content, tool_calls=calls or None, model=item.model
        )
    if item.kind == "tool":
        error = tool.ToolCallError("unknown", item.text) if item.is_error else None
        return model.ChatMessageTool(
            id=item.entry_id,
            content=item.text,
            tool_call_id=item.call_id or None,
            function=item.tool_name or None,
            error=error,
        )
    text = item.text
    if item.kind == "compaction":
        text = COMPACTION_PREFIX + text + "\n</summary>"
    elif item.kind == "branch_summary":
        text = BRANCH_PREFIX + text + "</summary>"
    return model.ChatMessageUser(id=item.entry_id, content=text)


def transcript_id(*parts: str) -> str:
    """A transcript id of ids from a file: characters Scout cannot name a file with are
    ``_`` (the columns keep the ids as they are)."""
    return _UNSAFE.sub("_", ":".join(parts))[:200]


def transcript_of(
    session: Session,
    leaf_id: str,
    inspect: Any,
    scout: Any,
    held: dict[str, str] | None = None,
) -> Any:
    """The Scout transcript of one path of ``session``. ``held``: the transcript id of
    each entry that an earlier transcript of the session holds (updated here)."""
    items = list(path_items(session, leaf_id))
    held = {} if held is None else held
    shared = 0
    while shared < len(items) and items[shared].entry_id in held:
        shared += 1
    forked_from = held[items[shared - 1].entry_id] if shared else None
    usage = [i.usage for i in items if i.usage is not None]
    costs = [u.cost for u in usage if u.cost is not None]
    models = [i.model for i in items if i.model]
    first = next((i.timestamp for i in items if i.timestamp), None)
    session_id = session.id or shown_name(session.file.name.removesuffix(".jsonl"))
    metadata = {
        "file": shown_name(str(session.file.resolve())),
        "session_id": session_id,
        "leaf_id": leaf_id,
        "is_active_leaf": leaf_id == session.leaf_id,
        "session_name": session.name,
        "cwd": session.header.get("cwd"),
        "entries": len(session.path(leaf_id)),
        "compactions": sum(i.kind == "compaction" for i in items),
        "cost": sum(costs) if costs else None,
        "forked_from": forked_from,
        "shared_messages": shared,
    }
    tid = transcript_id(session_id, leaf_id)
    for item in items[shared:]:
        held.setdefault(item.entry_id, tid)
    # session text is untrusted: Scout's viewer shows it as plain text, so no Markdown
    # link or image in it becomes a link (the viewer renders trusted text's Markdown)
    untrusted = {"trust_content": False} if "trust_content" in scout.Transcript.model_fields else {}
    return scout.Transcript(
        **untrusted,
        transcript_id=tid,
        source_type=SOURCE_TYPE,
        source_id=session_id,
        source_uri=shown_name(str(session.file.resolve())),
        date=first,
        agent=SOURCE_TYPE,
        model=models[-1] if models else None,
        message_count=len(items),
        total_tokens=sum(u.input + u.output + u.cache_read + u.cache_write for u in usage),
        messages=[_message(i, inspect) for i in items],
        metadata=json_safe(metadata),
    )


def _transcripts(
    sessions: Iterable[Session], leaves: str, inspect: Any, scout: Any, ids: set[str]
) -> Iterator[Any]:
    for session in sessions:
        if session.leaf_id is None:
            continue  # an empty session has no path
        chosen = [str(x) for x in session.leaves.index] if leaves == "all" else [session.leaf_id]
        chosen.sort(key=lambda leaf_id: leaf_id != session.leaf_id)  # the active path first
        held: dict[str, str] = {}
        for leaf_id in chosen:
            with paused_gc():  # a path's messages: many small objects, all kept
                transcript = transcript_of(session, leaf_id, inspect, scout, held)
            base, n = transcript.transcript_id, 1
            while transcript.transcript_id in ids:  # the same session id in two files
                n += 1
                transcript.transcript_id = f"{base}#{n}"
            ids.add(transcript.transcript_id)
            yield transcript


class _Inspect:
    """inspect_ai's message and tool types (imported with the extra)."""

    def __init__(self) -> None:
        self.model = require("inspect_ai.model", "scout", "prime_nb.interop.to_scout")
        self.tool = require("inspect_ai.tool", "scout", "prime_nb.interop.to_scout")


def to_scout(
    sessions_or_folder: SessionsOrFolder,
    db: str | Path,
    *,
    leaves: Literal["active", "all"] = "active",
    follow_symlinks: bool = False,
) -> list[str]:
    """Write the sessions as transcripts into the Scout database at ``db`` (a folder,
    made if missing; transcripts already there stay).

    ``sessions_or_folder``: a Session, a session file, a folder (every session below
    it), or a list of these. ``leaves``: ``"active"`` one transcript per session (its
    active path), ``"all"`` one per leaf, the active path first (a later one's
    ``forked_from`` and ``shared_messages`` say which earlier transcript holds its first
    messages, and how many). Each transcript's id is
    ``<session id>:<leaf id>``; each message's id is its entry id. Empty sessions have
    no path and give no transcript. A file reached through a symlink leading out of a
    folder given is left out, with a warning, unless ``follow_symlinks``. Each
    transcript is marked untrusted (``trust_content=False``): Scout's viewer shows
    session text as plain text, never its Markdown links and images.

    Returns the ids of the transcripts written. Raises ImportError without the
    ``scout`` extra, ValueError for another ``leaves``.
    """
    if leaves not in ("active", "all"):
        raise ValueError(f"leaves must be 'active' or 'all', not {leaves!r}")
    scout = require("inspect_scout", "scout", "prime_nb.interop.to_scout")
    inspect = _Inspect()
    Path(db).mkdir(parents=True, exist_ok=True)
    ids: set[str] = set()
    written: list[str] = []

    async def insert() -> None:
        async with scout.transcripts_db(str(db)) as database:
            batch: list[Any] = []
            for transcript in _transcripts(
                sessions_of(sessions_or_folder, follow_symlinks), leaves, inspect, scout, ids
            ):
                batch.append(transcript)
                written.append(transcript.transcript_id)
                if len(batch) >= 100:
                    await database.insert(batch, commit=False)
                    batch = []
            if batch:
                await database.insert(batch, commit=False)
            await database.commit()

    run_async(insert())
    return written
