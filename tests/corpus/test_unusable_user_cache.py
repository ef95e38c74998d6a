"""The user's cache folder (``cache=True``) that cannot hold a cache: read-only (a
read-only mount; as another user, a folder without write permission) or below a file.
The corpus and the search work uncached, the same rows as ``cache=False``, and say so
once a process; a folder the caller named stays an error (tests/corpus/test_cache.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest
from conftest import header, msg, write_lines

from prime_nb.corpus import _cache, load_corpus, search


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("corpus")
    for k in range(2):
        write_lines(folder / f"s{k}.jsonl", [header(id=f"s{k}"), msg("u", None, "user", "needle")])
    return folder


def test_a_user_cache_below_a_file_reads_uncached_and_says_so_once(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    monkeypatch.setattr(_cache, "_said_unusable", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = load_corpus(corpus, workers=1, progress=False, cache=True)
        hits = search(corpus, "needle", workers=1, cache=True)
        again = load_corpus(corpus, workers=1, progress=False, cache=True)
    said = [str(w.message) for w in caught]
    assert len(said) == 1, said
    assert said[0].startswith(f"{blocker / 'prime-nb' / 'corpus'}: cannot hold the corpus cache")
    assert "a file of that name is in the way" in said[0]
    assert "read without a cache" in said[0]
    uncached = load_corpus(corpus, workers=1, progress=False)
    pd.testing.assert_frame_equal(table, uncached)
    pd.testing.assert_frame_equal(again, uncached)
    pd.testing.assert_frame_equal(hits, search(corpus, "needle", workers=1))
    assert blocker.read_text() == "x"


#: run in a process of its own, with the user's cache folder read-only
READ_ONLY = """
import json, sys, warnings
from prime_nb.corpus import load_corpus, search
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    rows = len(load_corpus(sys.argv[1], workers=1, progress=False, cache=True))
    hits = len(search(sys.argv[1], "needle", workers=1, cache=True))
print(json.dumps({"rows": rows, "hits": hits, "said": [str(w.message) for w in caught]}))
"""


def _can_mount() -> bool:
    """Whether this process may mount in a namespace of its own (root, with the right)."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = ["unshare", "-m", "sh", "-c", "mount -t tmpfs -o ro tmpfs /mnt"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


def _read_only_run(corpus: Path, cache_home: Path) -> subprocess.CompletedProcess[str]:
    """The script with ``cache_home`` read-only: a read-only tmpfs mount in a mount
    namespace of its own as root (whom permissions do not stop); else permissions, or
    for a root that may not mount, a folder of /proc (where nothing can be made)."""
    env = dict(os.environ, XDG_CACHE_HOME=str(cache_home))
    run = [sys.executable, "-c", READ_ONLY, str(corpus)]
    if _can_mount():
        mount = f'mount -t tmpfs -o ro tmpfs {cache_home} && exec "$@"'
        run = ["unshare", "-m", "sh", "-c", mount, "sh", *run]
    elif os.geteuid() != 0:
        cache_home.chmod(0o555)
    else:
        env["XDG_CACHE_HOME"] = "/proc/self/fdinfo"
    return subprocess.run(run, capture_output=True, text=True, env=env, timeout=120, check=False)


def test_a_read_only_user_cache_reads_uncached(corpus: Path, tmp_path: Path) -> None:
    cache_home = tmp_path / "cache-home"
    cache_home.mkdir()
    done = _read_only_run(corpus, cache_home)
    cache_home.chmod(0o755)
    assert done.returncode == 0, done.stderr[-2000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert (said["rows"], said["hits"]) == (2, 2)
    (message,) = said["said"]
    assert "cannot hold the corpus cache (" in message
    assert "read without a cache" in message
    assert list(cache_home.iterdir()) == []
