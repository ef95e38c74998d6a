"""Exceptions that name the file and say what to do next.

A file's name and a session's text may hold newlines, escape sequences and invisible
characters: each message shows them through :func:`prime_nb._names.shown_text`, so that
it is one line that steers no terminal and hides nothing. The attributes (``path``,
``reason``, ``entry_id``) keep the values as they were given.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ._names import shown_text


def _said(path: str | os.PathLike[str], reason: str) -> str:
    """``path: reason``, as a message shows them."""
    return shown_text(f"{os.fspath(path)}: {reason}")


class SessionFormatError(ValueError):
    """The file is not a Prime Agent session (no header, or not JSON Lines at all)."""

    def __init__(self, path: str | Path, reason: str) -> None:
        self.path = Path(path)
        self.reason = reason
        super().__init__(_said(self.path, reason))


class EntryNotFoundError(KeyError):
    """An entry id that the session does not contain."""

    def __init__(self, entry_id: str, path: str | Path | None = None) -> None:
        self.entry_id = entry_id
        where = f" in {shown_text(os.fspath(path))}" if path is not None else ""
        super().__init__(entry_id)
        self.message = (
            f"no entry with id {shown_text(repr(entry_id))}{where}; "
            "see session.entries.index for the ids, or call session.refresh() "
            "if the agent appended it after loading"
        )

    def __str__(self) -> str:
        return self.message


class UpgradeRequiredError(SessionFormatError):
    """Appending to a version 1 file (entries without ids) is refused."""


class InvalidEntryError(ValueError):
    """A new entry was refused before any byte was written (bad message, content...)."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        self.path = Path(path)
        self.reason = reason
        super().__init__(_said(self.path, f"{reason}; nothing was written"))


class SessionWriteError(OSError):
    """Writing to a session file failed; what was already in the file is intact.

    ``written`` lists the ids of entries of the same call that did reach the file
    (a fork written line by line can fail half way).
    """

    def __init__(
        self,
        path: str | Path,
        reason: str,
        *,
        errno: int | None = None,
        written: list[str] | None = None,
    ) -> None:
        super().__init__(_said(Path(path), reason))
        self.path = Path(path)
        self.reason = reason
        self.written = list(written or [])
        if errno is not None:
            self.errno = errno

    def __str__(self) -> str:
        return _said(self.path, self.reason)


class EntryLostError(SessionWriteError):
    """Entries this process had written were dropped when another program replaced the
    file, and cannot be written again (their parent is gone). ``entries`` holds them."""

    def __init__(self, path: str | Path, reason: str, entries: list[dict[str, Any]]) -> None:
        super().__init__(path, reason)
        self.entries = entries


class TornLineWarning(UserWarning):
    """The file ended in an incomplete line; the new entry was written on a fresh line."""


class DatasetTooLargeError(ValueError):
    """A file's dataset rows would hold more messages than ``max_messages`` allows
    (``prime_nb.datasets.from_sessions``): each row holds its whole context, so the rows
    of a deep branch grow as the square of its depth. Raised before any row is built."""


__all__ = [
    "DatasetTooLargeError",
    "EntryLostError",
    "EntryNotFoundError",
    "InvalidEntryError",
    "SessionFormatError",
    "SessionWriteError",
    "TornLineWarning",
    "UpgradeRequiredError",
]


def __dir__() -> list[str]:
    """The exceptions alone: what a notebook lists after ``errors.``."""
    return sorted(__all__)
