"""Which files a corpus call reads: a folder searched with a pattern, or a list of files,
folders and URLs; and the folder its cache file is kept for. Every corpus table (pandas
and Dask), the search and the caches start from this listing.

A file found below a folder through a symlink that leads out of the folder (a linked
file, or a file in a linked folder) is left out, with a warning, unless
``follow_symlinks=True``, as ``grep -r`` leaves it: the policy of every folder walk,
kept in one place (``prime_nb.session.find_session_files``). A symlink that stays
inside the folder, and a file named on its own, are read as given.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple, cast

from .._paths import file_list, given_path, is_path_list, is_url
from ..session import find_session_files, session_dir


class Listed(NamedTuple):
    """The files of a corpus call, and the folders they were named from (the folder
    given; each folder of a list, and each listed file's own folder)."""

    paths: list[str]
    folders: list[str]


def found_below(
    folder: str | Path | None,
    pattern: str,
    follow_symlinks: bool = False,
    *,
    include_archived: bool = True,
) -> list[str]:
    """The files ``pattern`` finds below ``folder`` (a file: itself), without those that
    a symlink leads out of the folder unless ``follow_symlinks``, and without OpenClaw's
    archives (``<id>.jsonl.reset.<time>``) unless ``include_archived``."""
    # find_session_files says what is wrong with a bad folder, and leaves out (with a
    # warning) what a symlink leads out of the folder unless follow_symlinks
    found = find_session_files(
        folder, pattern, include_archived=include_archived, follow_symlinks=follow_symlinks
    )
    return [str(path) for path in found]


def listed(
    dir: str | Path | Iterable[str | Path] | None,
    pattern: str,
    files: Iterable[str | Path] | None,
    follow_symlinks: bool = False,
    *,
    include_archived: bool = True,
) -> Listed:
    """The files to read: those matching ``pattern`` below ``dir``, else those of a list
    (``files``, or a list where the folder goes: :func:`named_files`).

    A list where the folder goes is read as ``files``: the Dask tables take
    ``paths_or_dir`` there, and the same call should work on both. A folder's OpenClaw
    archives (``<id>.jsonl.reset.<time>``) are found unless ``include_archived`` is
    False (``find_session_files``)."""
    if is_path_list(dir):
        if files is not None:
            raise ValueError("give the files once: as the first argument or as files=, not both")
        return named_files(dir, pattern, follow_symlinks, include_archived=include_archived)
    folder = cast("str | Path | None", dir)
    if files is not None:
        if folder is not None:
            raise ValueError(
                f"give a folder or files=, not both (got the folder {str(folder)!r} "
                "and files=): the files alone are read as they are named"
            )
        return named_files(files, pattern, follow_symlinks, include_archived=include_archived)
    found = found_below(folder, pattern, follow_symlinks, include_archived=include_archived)
    root = session_dir() if folder is None else Path(given_path(folder, "dir", "")).expanduser()
    return Listed(found, [str(root)])


def named_files(
    items: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    pattern: str,
    follow_symlinks: bool = False,
    *,
    include_archived: bool = True,
) -> Listed:
    """The files a list names: a folder's found with ``pattern`` (sessions spread over
    several folders), anything else as given (a file, a URL the Dask tables read, or a
    name whose row will say what is wrong with it); each file once, in order, however
    many items name it."""
    paths: list[str] = []
    folders: list[str] = []
    seen: set[str] = set()
    for given in [items] if isinstance(items, str | os.PathLike) else items:
        name = os.fsdecode(os.fspath(given))
        if is_url(name):  # fsspec reads it (the Dask tables): a file, as given
            found: list[str] = [name]
        elif os.path.isdir(item := file_list(name)[0]):
            found = found_below(item, pattern, follow_symlinks, include_archived=include_archived)
            folders.append(str(item))
        else:
            found = [str(item)]
            folders.append(os.path.dirname(item))
        for path in found:
            key = path if is_url(path) else os.path.abspath(path)
            if key not in seen:
                seen.add(key)
                paths.append(path)
    return Listed(paths, folders)


def corpus_root(folders: list[str]) -> str:
    """The folder a corpus cache file is kept for: the folder given (the agent's sessions
    folder when none is), else the deepest folder that holds every folder and file
    given.

    Why the folders given, not the files found: a new sub-folder in a live sessions
    folder must not move the corpus to another cache file."""
    unique = {os.path.realpath(folder) for folder in set(folders)}  # a few, for many files
    return os.path.commonpath(list(unique)) if unique else ""
