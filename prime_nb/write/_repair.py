"""A copy of a session file with its glued lines split: ``{...}{...}`` made two lines.

A writer that stops between an entry and its newline leaves the next entry on the same
line, and the agent (like the loader) drops that line whole: in real files this lost a
compaction. The copy holds every other byte as it was, and each glued line as its
values, one a line, each as written; the agent then reads them all. It is a new file:
the source is never changed (it may be the only copy, and a running agent may append to
it), and an existing file is replaced only when asked (``force=True``), never the source.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from ..errors import SessionWriteError
from ..format import glued_spans, open_regular
from ._appending import fsync_dir, normalise
from ._upgrade import PathLike, _seal, _temp_beside

__all__ = ["Repair", "repair_file"]


@dataclass
class Repair:
    """What :func:`repair_file` did: the copy's path (None when nothing needed repair,
    so nothing was written) and, per glued line of the source, its number and how many
    lines it became."""

    source: Path
    path: Path | None
    split: list[tuple[int, int]] = field(default_factory=list)

    @property
    def entries(self) -> int:
        """How many values the split lines held (each a line of the copy now)."""
        return sum(count for _, count in self.split)


def split_line(raw: bytes) -> list[bytes] | None:
    """The values of a glued line (without its line end), each as written; None for a
    line that parses as it is, or that is not glued values."""
    body = raw[:-1] if raw.endswith(b"\r") else raw
    try:
        orjson.loads(body)
        return None
    except orjson.JSONDecodeError:
        pass
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return None
    spans = glued_spans(text)
    if spans is None:
        return None
    return [text[start:end].encode("utf-8") for start, end, _ in spans]


def repair_file(source: PathLike, dest: PathLike, *, force: bool = False) -> Repair:
    """Write a copy of ``source`` at ``dest`` with every glued line split; returns what
    was split. When no line is glued, nothing is written (``Repair.path`` is None).

    Raises SessionWriteError when ``dest`` is the source itself (even with ``force``),
    a folder, or (without ``force``) a file that exists.
    """
    src = normalise(source)
    out = normalise(dest)
    _check_destination(src, out, force)
    repair = Repair(src, None)
    with open_regular(src) as fh:
        mode = os.fstat(fh.fileno()).st_mode & 0o777
        for number, raw in enumerate(fh, start=1):
            pieces = split_line(raw.removesuffix(b"\n"))
            if pieces is not None:
                repair.split.append((number, len(pieces)))
        if not repair.split:
            return repair
        fh.seek(0)
        glued = {number for number, _ in repair.split}
        with _temp_beside(out, ".tmp") as (copy, tmp):
            for number, raw in enumerate(fh, start=1):
                pieces = split_line(raw.removesuffix(b"\n")) if number in glued else None
                if pieces is None:
                    copy.write(raw)
                    continue
                end = b"\r\n" if raw.endswith(b"\r\n") else b"\n"
                copy.write(end.join(pieces) + (end if raw.endswith(b"\n") else b""))
            _seal(copy, mode)
            _check_destination(src, out, force)  # again: something may have appeared
            os.replace(tmp, out)
    fsync_dir(out.parent)
    repair.path = out
    return repair


def _check_destination(source: Path, dest: Path, force: bool) -> None:
    if not os.path.lexists(dest):
        return
    same = False
    try:
        same = os.path.samefile(dest, source)
    except OSError:
        same = False
    if same:
        reason = "is the file being repaired; the repair writes a new file, choose another one"
    elif os.path.isdir(dest):
        reason = "is a folder; name the new file to write"
    elif not force:
        reason = "exists; pass --force (force=True) to overwrite it, or choose another file"
    else:
        return
    raise SessionWriteError(dest, reason, errno=errno.EEXIST)
