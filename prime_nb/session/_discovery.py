"""Where sessions in this format are kept, and a quick listing of them.

The agent keeps its sessions in its own folder; pi, whose session code the agent shares,
and OpenClaw (also Clawdbot and Moltbot), which embeds it, write the same format to
folders of their own. OpenClaw archives a session file when the user resets or deletes
the session, as ``<id>.jsonl.reset.<ISO time>`` or ``<id>.jsonl.deleted.<ISO time>``
beside the live ones. Discovery lists archived files by default (with an ``archived``
column): the session still ran, its spend was billed and its compactions happened, and
a reset starts a new session id, so no session is counted twice; leaving them out
(``include_archived=False``) drops a large, biased share of a real folder.

Every folder walk in the package lists through :func:`find_session_files`, so one policy
holds for all (``ls``, ``validate``, the corpus, the search, families, datasets, Scout):
a file found below a folder through a symlink that leads out of it (a linked file, or a
file in a linked folder) is left out, as ``grep -r`` leaves it, with a warning naming it,
unless ``follow_symlinks=True``. A link that stays inside, and a file named on its own,
are read as given.
"""

from __future__ import annotations

import contextlib
import os
import re
import warnings
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from .._names import shown_name, shown_text
from .._paths import given_path
from ..format import Problem, RawEntry, header_to_canonical, scan
from ._columns import table_time_ms
from ._text import content_text, preview

LISTING_COLUMNS = [
    "path",
    "id",
    "cwd",
    "name",
    "created",
    "modified",
    "entries",
    "first_user_message",
    "archived",
    "agent",
]

#: OpenClaw's archive of a session file: ``<id>.jsonl.reset.<ISO time>`` (the session
#: was reset: a new one started) or ``<id>.jsonl.deleted.<ISO time>`` (it was deleted);
#: the time as OpenClaw writes it, ``:`` as ``-`` (a compressed archive is no match)
ARCHIVED_NAME = re.compile(r"\.jsonl\.(reset|deleted)\.\d{4}-\d\d-\d\dT[0-9:.\-]+Z\Z")

#: OpenClaw's state folder under its old names, tried when ``~/.openclaw`` is absent
OPENCLAW_OLD_NAMES = (".clawdbot", ".moldbot", ".moltbot")


def archived_kind(path: str | os.PathLike[str]) -> str | None:
    """``"reset"`` or ``"deleted"`` for an OpenClaw archive of a session file, else None."""
    found = ARCHIVED_NAME.search(os.path.basename(os.fsdecode(path)))
    return found.group(1) if found else None


def session_dir() -> Path:
    """The agent's sessions folder, honouring its environment variables."""
    for variable in ("PRIME_AGENT_SESSION_DIR", "PRIME_AGENT_CODING_AGENT_SESSION_DIR"):
        value = os.environ.get(variable)
        if value:
            return Path(value).expanduser()
    agent_dir = os.environ.get("PRIME_AGENT_CODING_AGENT_DIR")
    if agent_dir:
        return Path(agent_dir).expanduser() / "sessions"
    return Path.home() / ".prime" / "agent" / "sessions"


def _variable(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


def openclaw_state_dir() -> Path:
    """OpenClaw's state folder, found as OpenClaw finds it: ``$OPENCLAW_STATE_DIR`` (or
    the older ``$CLAWDBOT_STATE_DIR``), else ``~/.openclaw``, else the first of its old
    names that exists."""
    for name in ("OPENCLAW_STATE_DIR", "CLAWDBOT_STATE_DIR"):
        if (given := _variable(name)) is not None:
            return given
    home = Path.home()
    if (home / ".openclaw").exists():
        return home / ".openclaw"
    return next((home / n for n in OPENCLAW_OLD_NAMES if (home / n).exists()), home / ".openclaw")


def session_folders() -> dict[str, Path]:
    """The folders that exist where agents write this format, by agent: ``"prime"``
    (:func:`session_dir`), ``"pi"`` (``$PI_CODING_AGENT_DIR/sessions``, default
    ``~/.pi/agent/sessions``) and ``"openclaw:<agent>"`` for each OpenClaw agent
    (``<state folder>/agents/<agent>/sessions``, :func:`openclaw_state_dir`). A folder
    named twice (two variables set alike) is listed once, under the first name.

    ``load_corpus(list(session_folders().values()))`` reads them all."""
    pi_dir = _variable("PI_CODING_AGENT_DIR") or Path.home() / ".pi" / "agent"
    candidates = [("prime", session_dir()), ("pi", pi_dir / "sessions")]
    agents = openclaw_state_dir() / "agents"
    with contextlib.suppress(OSError):
        for agent_dir in sorted(agents.iterdir()) if agents.is_dir() else []:
            candidates.append((f"openclaw:{agent_dir.name}", agent_dir / "sessions"))
    folders: dict[str, Path] = {}
    seen: set[str] = set()
    for name, folder in candidates:
        key = os.path.realpath(folder)
        if key not in seen and folder.is_dir():
            seen.add(key)
            folders[name] = folder
    return folders


#: how many left-out links a listing names one by one before it counts the rest
NAMED_LINKS = 5


def find_session_files(
    folder: str | Path | None = None,
    pattern: str = "**/*.jsonl",
    *,
    include_archived: bool = True,
    follow_symlinks: bool = False,
) -> list[Path]:
    """Session files below ``folder`` (sub-folders too: older releases nest by project;
    default: the agent's folder, :func:`session_dir`).

    With ``include_archived`` (the default) and a pattern ending in ``.jsonl``, OpenClaw's
    archives of session files match too (``<id>.jsonl.reset.<time>``,
    ``<id>.jsonl.deleted.<time>``: :func:`archived_kind`). A file reached through a
    symlink leading out of ``folder`` is left out, with a warning, unless
    ``follow_symlinks``: what a folder's listing reads stays inside the folder."""
    if Path(pattern).is_absolute():
        raise ValueError(
            f"pattern={pattern!r}: give a pattern below the folder, such as '**/*.jsonl' "
            "(pass the folder itself as the folder)"
        )
    if folder is None:
        root = session_dir()
    else:
        given = given_path(folder, "the folder", "name one folder (or one session file)")
        root = Path(given).expanduser()
    if not root.exists():
        raise FileNotFoundError(
            shown_text(
                f"{root}: no such folder; pass the folder that holds your .jsonl sessions "
                "(or set PRIME_AGENT_SESSION_DIR)"
            )
        )
    if root.is_file():
        return [root]
    found = [p for p in _glob(root, pattern) if p.is_file()]
    if include_archived and pattern.endswith(".jsonl"):
        archived = _glob(root, pattern + ".*")
        found += [p for p in archived if ARCHIVED_NAME.search(p.name) and p.is_file()]
    if not follow_symlinks:
        found = _inside(root, found)
    return sorted(found)


def _glob(root: Path, pattern: str) -> Iterator[Path]:
    """``root.glob(pattern)``, but a pattern starting ``**/`` walks the folders with a
    list instead of recursion: pathlib's recursive glob raises RecursionError below
    a folder nested a thousand deep, which a hostile folder may be. As pathlib's ``**``
    does, it enters no symlinked folder; a folder it cannot read is passed over."""
    rest = pattern[3:]
    if not pattern.startswith("**/") or "**" in rest:
        yield from root.glob(pattern)  # as deep as the pattern, no deeper
        return
    folders = [root]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(folder) as entries:
                found = list(entries)
        except OSError:
            continue
        for entry in found:
            path = folder / entry.name
            with contextlib.suppress(OSError):
                if entry.is_dir(follow_symlinks=False):
                    folders.append(path)
            if path.relative_to(root).match(rest):
                yield path


def _inside(root: Path, found: list[Path]) -> list[Path]:
    """``found`` without the files whose real path is outside ``root``; a warning names
    those left out (the first :data:`NAMED_LINKS`, then how many more)."""
    inside = os.path.join(os.path.realpath(root), "")
    parents: dict[Path, str] = {}  # each folder resolved once, not each file
    kept: list[Path] = []
    left: list[Path] = []
    for path in found:
        if path.parent not in parents:
            parents[path.parent] = os.path.join(os.path.realpath(path.parent), "")
        real = os.path.realpath(path) if path.is_symlink() else parents[path.parent] + path.name
        (kept if real.startswith(inside) else left).append(path)
    shown = shown_text(str(root))  # a folder's names may hold escape sequences
    for path in sorted(left)[:NAMED_LINKS]:
        warnings.warn(
            f"{shown_text(str(path))}: left out, a symlink leading outside {shown}; pass "
            "follow_symlinks=True (--follow-symlinks) to read it, or name the file",
            stacklevel=3,
        )
    if len(left) > NAMED_LINKS:
        warnings.warn(
            f"{shown}: {len(left) - NAMED_LINKS:,} more files left out, reached through "
            "symlinks leading outside the folder; pass follow_symlinks=True "
            "(--follow-symlinks) to read them",
            stacklevel=3,
        )
    return kept


def _peek(path: Path, agent: str | None = None) -> dict[str, Any]:
    """Header, entry count, name and first user message without building tables."""
    header: dict[str, Any] | None = None
    entries = 0
    name = first_user = None
    for item in scan(path):
        if isinstance(item, Problem):
            continue
        assert isinstance(item, RawEntry)
        obj = item.entry
        if header is None:
            if obj["type"] not in ("session", "header"):
                break
            header = header_to_canonical(obj)
            continue
        entries += 1
        if obj["type"] in ("session_info", "sessionInfo") and isinstance(obj.get("name"), str):
            name = obj["name"]
        elif first_user is None and obj["type"] == "message":
            message = obj.get("message")
            if isinstance(message, dict) and message.get("role") == "user":
                first_user = preview(content_text(message.get("content")))
    stat = path.stat()
    created = header.get("timestamp") if header else None
    return {
        "path": shown_name(str(path)),
        "id": header.get("id") if header else None,
        "cwd": header.get("cwd") if header else None,
        "name": name,
        "created": created,
        "modified": datetime.fromtimestamp(stat.st_mtime, tz=UTC),
        "entries": entries if header else None,
        "first_user_message": first_user,
        "archived": archived_kind(path),
        "agent": agent,
    }


def list_sessions(
    dir: str | Path | None = None, *, include_archived: bool = True, follow_symlinks: bool = False
) -> pd.DataFrame:
    """One row per session file below ``dir``, newest first; by default, below every
    folder of :func:`session_folders` (the agent's, pi's, OpenClaw's), with the
    ``agent`` each was found for (missing for a ``dir`` given).

    ``archived`` is ``"reset"`` or ``"deleted"`` for OpenClaw's archived session files,
    missing for live ones; ``include_archived=False`` leaves the archived files out.
    A file reached through a symlink leading out of its folder is left out, with a
    warning, unless ``follow_symlinks`` (:func:`find_session_files`).
    """
    if dir is None:
        folders = session_folders()
        if not folders:
            find_session_files(None)  # says where the agent's folder was looked for
        rows = [
            _peek(path, agent)
            for agent, folder in folders.items()
            for path in find_session_files(
                folder, include_archived=include_archived, follow_symlinks=follow_symlinks
            )
        ]
    else:
        found = find_session_files(
            dir, include_archived=include_archived, follow_symlinks=follow_symlinks
        )
        rows = [_peek(path) for path in found]
    frame = pd.DataFrame(rows, columns=LISTING_COLUMNS)
    if frame.empty:
        return frame
    frame["created"] = pd.to_datetime(
        frame["created"].map(table_time_ms), unit="ms", utc=True, errors="coerce"
    )
    frame["modified"] = pd.to_datetime(frame["modified"], utc=True)
    frame["entries"] = frame["entries"].astype("Int64")
    return frame.sort_values("modified", ascending=False).reset_index(drop=True)
