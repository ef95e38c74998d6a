"""Bring entries of any version to version 3, as the agent does on load.

One difference from the agent: version 1 ids are derived from the session id and
the entry's position, so the same file always loads with the same ids.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from typing import Any

from ._dialect import dialect_of_header, header_to_canonical, to_canonical

CURRENT_VERSION = 3
#: in ``Migrator.ids_by_index``: a JSON object line without a string ``type``
TYPELESS = "\0typeless"


def derive_id(session_id: str, index: int, salt: int = 0) -> str:
    """A stable 8-hex-char id for the entry at ``index`` of a version 1 file."""
    key = f"{session_id}\0{index}\0{salt}".encode()
    return hashlib.blake2b(key, digest_size=4).hexdigest()


def to_current(
    entry: dict[str, Any], dialect: str, version: int, iso_times: bool = True
) -> dict[str, Any]:
    """Dialect names and version 3 roles, in place (ids are the Migrator's business).

    ``iso_times``: see :func:`to_canonical` (the loader keeps spec times in ms)."""
    if dialect == "spec":
        to_canonical(entry, iso_times)
    if version < 3:
        message = entry.get("message")
        if isinstance(message, dict) and message.get("role") == "hookMessage":
            message["role"] = "custom"
    return entry


def index_migrates(entry: dict[str, Any]) -> bool:
    """Does the v1 migration turn this entry's ``firstKeptEntryIndex`` into an id?

    Only a compaction's, and only a number: the agent tests ``typeof === "number"``,
    so a string (``"3"``), a boolean or null is left in the entry as it is, and so is
    the entry's own ``firstKeptEntryId``, if any (a v1 file's ids are all new, so it
    names nothing: nothing is kept, as with no id)."""
    kept = entry.get("firstKeptEntryIndex")
    return (
        entry.get("type") == "compaction"
        and isinstance(kept, int | float)
        and not isinstance(kept, bool)
    )


def header_version(header: dict[str, Any]) -> tuple[int, str | None]:
    """The header's version, read as the agent's JavaScript compares it, and why it
    could not be read (None when it could).

    Whole floats (``3.0``) and numeric strings (``"3"``) are that number; a whole number
    below 1 or past the current version is read as the agent reads it, and reported
    (:func:`_out_of_range`). Anything
    else is reported and read as the current version: rewriting ids because of a
    version we cannot read would flatten the tree, as the agent also leaves it be. The
    loader and the writers both read it here, so that a file the loader reads with its
    ids is one the writers append to.
    """
    value = header.get("version", 1)
    if value.__class__ is int:
        return int(value), _out_of_range(int(value))
    if value is None:  # "version": null reads as absent, as in the agent (`?? 1`)
        return 1, None
    number: float | None = None
    if isinstance(value, float):
        number = value
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    if number is not None and number.is_integer() and 1 <= number <= 1000:
        return int(number), _out_of_range(int(number))
    return CURRENT_VERSION, (
        f"header version {value!r} is not a version number; read as version "
        f"{CURRENT_VERSION}, ids kept as written"
    )


def _out_of_range(version: int) -> str | None:
    """Why a whole version is odd, though read as the agent reads it: one below 1 is
    migrated as version 1 (its ids replaced), one past the current is read as current
    (entries of a newer agent may be read otherwise than it meant)."""
    if version < 1:
        return f"header version {version} is below 1; read as version 1, ids made from the lines"
    if version > CURRENT_VERSION:
        return (
            f"header version {version} is newer than prime_nb reads ({CURRENT_VERSION}); "
            f"read as version {CURRENT_VERSION}"
        )
    return None


class Migrator:
    """Per-file migration state: feed entries in file order to ``apply``."""

    def __init__(self, header: dict[str, Any]) -> None:
        #: why the header's version could not be read (then the ids are left as they are)
        self.version, self.problem = header_version(header)
        self.dialect = dialect_of_header(header)
        self.session_id = str(header.get("id") or header.get("sessionId") or "")
        self.used: set[str] = set()
        #: ids by entry index (header = 0), for v1 ``firstKeptEntryIndex``: every JSON
        #: object line counts, as in the agent's list (typeless lines, second headers).
        #: Only version 1 needs them, so later versions keep none: their migration is
        #: the same for every entry, which lets a big file be read in chunks at once
        self.ids_by_index: list[str | None] = [None]
        self.previous_id: str | None = None

    def fresh_id(self, index: int) -> str:
        salt = 0
        while (candidate := derive_id(self.session_id, index, salt)) in self.used:
            salt += 1
        return candidate

    def skip(self, typeless: bool) -> None:
        """Count a JSON object line that is no entry: one without a string ``type``
        (``typeless``), or a second header. The agent counts both in a v1 compaction's
        ``firstKeptEntryIndex``, so the index must count them too."""
        if self.version < 2:
            self.ids_by_index.append(TYPELESS if typeless else None)

    def _kept_id(self, kept: Any, index: int, own_id: str) -> str | None:
        """The id a v1 ``firstKeptEntryIndex`` names, as the agent resolves it.

        An index at a typeless line names the next entry: the agent keeps from the
        typeless line, which adds no message, so the same messages are kept. The
        compaction's own index names the compaction itself, as in the agent (it has
        its id by then): no entry before it has that id, so nothing is kept.
        """
        if isinstance(kept, float) and kept.is_integer():
            kept = int(kept)  # JSON 3.0 is the number 3 to the agent
        if isinstance(kept, bool) or not isinstance(kept, int) or not 0 < kept <= index:
            return None
        if kept == index:
            return own_id
        for candidate in self.ids_by_index[kept:index]:
            if candidate != TYPELESS:
                return candidate
        return None

    def apply(self, entry: dict[str, Any], iso_times: bool = True) -> dict[str, Any]:
        """Migrate one entry in place (dialect, ids, roles); return it. ``iso_times``:
        see :func:`prime_nb.format._dialect.to_canonical`."""
        to_current(entry, self.dialect, self.version, iso_times)
        if self.version < 2:
            index = len(self.ids_by_index)
            entry_id = self.fresh_id(index)
            entry["id"] = entry_id
            entry["parentId"] = self.previous_id
            if index_migrates(entry):
                kept = entry.pop("firstKeptEntryIndex")
                entry["firstKeptEntryId"] = self._kept_id(kept, index, entry_id)
            self.used.add(entry_id)
            self.previous_id = entry_id
            self.ids_by_index.append(entry_id)
        return entry

    @property
    def is_identity(self) -> bool:
        """Whether :meth:`apply` leaves every entry as it is (a version 3 file in the
        agent's own dialect), so that a reader may skip calling it."""
        return self.version >= 3 and self.dialect != "spec"


def migrate(entries: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Migrate a list of dicts (header first) to canonical version 3; input is not changed."""
    import copy

    if isinstance(entries, str | bytes | os.PathLike):
        raise TypeError(
            "migrate takes a session's entries (a list of dicts, header first), not a path; "
            "for a file, prime_nb.load(path) migrates as it reads, and "
            "prime_nb.upgrade_file(path) rewrites the file as version 3"
        )
    items = [copy.deepcopy(e) for e in entries]
    for number, item in enumerate(items):
        if not isinstance(item, dict):
            raise TypeError(f"migrate: entry {number} is of type {type(item).__name__}, not a dict")
    if not items:
        return []
    header = items[0]
    if header.get("type") not in ("session", "header"):
        raise ValueError("the first entry must be the session header (type 'session' or 'header')")
    migrator = Migrator(header)
    out = [header_to_canonical(header)]
    out[0]["version"] = CURRENT_VERSION
    out.extend(migrator.apply(entry) for entry in items[1:])
    return out
