"""Exceptions that name the file and say what to do next."""

from __future__ import annotations

from pathlib import Path


class SessionFormatError(ValueError):
    """The file is not a Prime Agent session (no header, or not JSON Lines at all)."""

    def __init__(self, path: str | Path, reason: str) -> None:
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


class EntryNotFoundError(KeyError):
    """An entry id that the session does not contain."""

    def __init__(self, entry_id: str, path: str | Path | None = None) -> None:
        self.entry_id = entry_id
        where = f" in {path}" if path is not None else ""
        super().__init__(entry_id)
        self.message = (
            f"no entry with id {entry_id!r}{where}; "
            "see session.entries.index for the ids, or call session.refresh() "
            "if the agent appended it after loading"
        )

    def __str__(self) -> str:
        return self.message
