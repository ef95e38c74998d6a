"""Artefacts that several test modules need, built once per test run.

A 100k-entry session file, or its exported page, takes seconds to make; modules that
each made their own paid for it again on every worker. :func:`built_once` makes one in
a folder shared by the run's workers (pytest's base temporary folder, the parent of
each xdist worker's own), under a lock so that a second worker waits for the first
rather than building it too, and moves it into place with an atomic rename, so a
reader never sees half a file. Nothing outlives the run: the product is never tested
against what an older checkout made. A script that runs pytest more than once on one
checkout (``.ci/test``: the main phase, then the ``alone`` one) may name one folder for
all its runs in ``PRIME_NB_BUILT_ONCE``, and removes it when it ends; there each
artefact's key also holds a digest of the code that builds it (``prime_nb``, its widget
bundle and ``sessiongen``), so a folder kept past an edit is never read.

Only for tests that read the artefact: one that changes a file makes its own copy.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import pytest

#: a folder that several pytest runs of one checkout share (see the module docstring)
SHARED_ENV = "PRIME_NB_BUILT_ONCE"


def shared_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's folder for shared artefacts: the same for every xdist worker, and for
    every run of a script that names one in ``PRIME_NB_BUILT_ONCE``."""
    named = os.environ.get(SHARED_ENV)
    if named:
        folder = Path(named) / _code_digest()
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # pytest-N/popen-gwK: pytest-N is the run's
    folder = base / "built-once"
    folder.mkdir(exist_ok=True)
    return folder


_DIGEST: list[str] = []


def _code_digest() -> str:
    """A digest of every file under ``prime_nb`` and ``sessiongen`` (the widget bundle
    included): what the artefacts are built from."""
    if not _DIGEST:
        root = Path(__file__).resolve().parents[1]
        digest = hashlib.sha256()
        for package in ("prime_nb", "sessiongen"):
            for path in sorted((root / package).rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts:
                    digest.update(f"{path.relative_to(root)}\n".encode() + path.read_bytes())
        _DIGEST.append(digest.hexdigest()[:16])
    return _DIGEST[0]


def built_once(
    tmp_path_factory: pytest.TempPathFactory,
    key: str,
    name: str,
    build: Callable[[Path], object],
) -> Path:
    """The file ``name`` that ``build(path)`` writes at ``path``, built once per run for
    ``key`` (a text naming what is built and from what: the same key, the same file).
    The file keeps its name (a page may show it), in a folder of its own."""
    folder = shared_folder(tmp_path_factory)
    digest = hashlib.sha256(f"{key}\n{name}".encode()).hexdigest()[:16]
    final = folder / digest
    with open(folder / f"{digest}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not final.is_dir():
            partial = folder / f"{digest}.{os.getpid()}.partial"
            partial.mkdir()
            build(partial / name)
            os.replace(partial, final)
    return final / name
