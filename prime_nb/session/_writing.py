"""The Session's write-back methods: each hands the write to :mod:`prime_nb.write`,
which works on the file as it is on disk at that moment, then reads what it appended.

Apart from ``_session.py`` because writing is one idea of its own: these methods need
only the file's path and ``refresh``, never the tables.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from contextlib import suppress
from pathlib import Path
from typing import Any, TypeVar

from .. import write

_T = TypeVar("_T")


class SessionWrites:
    """Append entries to the session's file and read them back (``Session`` mixes it in)."""

    file: Path

    def refresh(self) -> int:
        raise NotImplementedError  # Session reads what was appended

    def _write(self, call: Callable[[], _T]) -> _T:
        try:
            result = call()
        except BaseException:
            with suppress(Exception):
                self.refresh()  # part of a fork may have been written
            raise
        self.refresh()
        return result

    def append_message(
        self, parent_id: str | None, message: Mapping[str, Any], *, fsync: bool = True
    ) -> str:
        """Append a message under ``parent_id`` (a fork if it already has children)."""
        return self._write(lambda: write.append_message(self.file, parent_id, message, fsync=fsync))

    def append_fork(
        self,
        from_id: str,
        messages: Iterable[Mapping[str, Any]],
        *,
        keep_leaf: bool = False,
        fsync: bool = True,
    ) -> list[str]:
        """Append a chain of messages starting at ``from_id``; returns their ids. It
        becomes the active leaf unless ``keep_leaf=True`` (see ``write.append_fork``)."""
        return self._write(
            lambda: write.append_fork(
                self.file, from_id, messages, keep_leaf=keep_leaf, fsync=fsync
            )
        )

    def append_branch_summary(
        self,
        parent_id: str | None,
        summary: str,
        from_id: str | None = None,
        details: Any = None,
        *,
        fsync: bool = True,
    ) -> str:
        """Append a summary of an abandoned branch under ``parent_id``."""
        return self._write(
            lambda: write.append_branch_summary(
                self.file, parent_id, summary, from_id, details, fsync=fsync
            )
        )

    def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str,
        tokens_before: int,
        parent_id: str | None = None,
        details: Any = None,
        tokens_after: int | None = None,
        *,
        fsync: bool = True,
    ) -> str:
        """Append a compaction (parent: the active leaf unless given)."""
        return self._write(
            lambda: write.append_compaction(
                self.file,
                summary,
                first_kept_entry_id,
                tokens_before,
                parent_id,
                details,
                tokens_after,
                fsync=fsync,
            )
        )

    def append_label(self, target_id: str, label: str | None, *, fsync: bool = True) -> str:
        """Label an entry (``None`` clears the label)."""
        return self._write(lambda: write.append_label(self.file, target_id, label, fsync=fsync))

    def set_name(self, name: str, *, fsync: bool = True) -> str:
        """Name the session (appends a session_info entry)."""
        return self._write(lambda: write.append_session_name(self.file, name, fsync=fsync))

    append_session_name = set_name

    def upgrade(self, backup: bool = True) -> Path:
        """Rewrite a version 1/2 file as version 3 (keeping a backup), then reload it."""
        return self._write(lambda: write.upgrade_file(self.file, backup))
