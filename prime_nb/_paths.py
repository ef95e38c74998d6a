"""Paths as callers give them: one path, a list of paths, or one clear error.

Why one module: a folder, a file and a list of files reach many entry points (``load``,
``list_sessions``, ``load_family``, ``family_of``, the corpus tables and their Dask
twins), and each must read them the same way and say the same thing when they are
something else.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TypeGuard

from ._names import real_name


def given_path(value: object, what: str, instead: str) -> str:
    """``value`` as a path, or one TypeError that says what was expected and what to call
    instead (``instead``), where ``Path(value)`` would only say which types it takes."""
    if isinstance(value, str | os.PathLike):
        return os.fsdecode(os.fspath(value))
    kind = type(value).__name__
    raise TypeError(f"{what} must be a path (a str or a Path), not {kind}; {instead}")


def is_path_list(value: object) -> TypeGuard[Iterable[str | os.PathLike[str]]]:
    """A collection of paths (a list, tuple, Series, generator...): not one path, and not
    bytes or a mapping, which iterate as something else."""
    return isinstance(value, Iterable) and not isinstance(value, str | os.PathLike | bytes | dict)


def file_list(files: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Files given as a list, or one path alone (one file, not the characters of its
    name); a name a table showed with ``\\xNN`` escapes is the file it names."""
    if isinstance(files, str | os.PathLike):
        files = [files]
    return [Path(real_name(os.fspath(f))) for f in files]  # shown names open their files


_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def is_url(name: str) -> bool:
    """``scheme://...``: a name fsspec reads (the Dask tables), not a local path."""
    return _URL.match(name) is not None
