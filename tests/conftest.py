"""Shared test helpers: the real fixtures and a way to write session files by hand."""

from __future__ import annotations

import gc
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    import prime_nb

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
BROWSER_TESTS = REPO / "tests" / "browser"
#: put first on the path of every Python the tests start (tests/subprocess_site)
SUBPROCESS_SITE = REPO / "tests" / "subprocess_site"


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    assert FIXTURES.is_dir(), f"the fixtures are checked in under tests/fixtures: {FIXTURES}"
    return FIXTURES


def write_lines(
    path: Path, lines: Iterable[dict[str, Any] | bytes | str], end: bytes = b"\n"
) -> Path:
    """Write objects as JSON lines, bytes/str verbatim (each followed by ``end``)."""
    with open(path, "wb") as fh:
        for line in lines:
            if isinstance(line, dict):
                fh.write(json.dumps(line).encode() + end)
            elif isinstance(line, str):
                fh.write(line.encode() + end)
            else:
                fh.write(line + end)
    return path


def header(version: int | None = 3, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": "session",
        "id": "sess-1",
        "timestamp": "2026-01-05T10:00:00.000Z",
        "cwd": "/tmp/project",
    }
    if version is not None:
        out["version"] = version
    out.update(extra)
    return out


def msg(
    entry_id: str, parent: str | None, role: str, text: str = "", minute: int = 0, **extra: Any
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": role, "timestamp": 0}
    if role == "user":
        message["content"] = text
    elif role == "assistant":
        message["content"] = [{"type": "text", "text": text}]
        message.update(
            {
                "provider": "anthropic",
                "model": "claude-x",
                "stopReason": "stop",
                "usage": {
                    "input": 10,
                    "output": 5,
                    "cacheRead": 0,
                    "cacheWrite": 0,
                    "totalTokens": 15,
                    "cost": {"total": 0.01},
                },
            }
        )
    else:
        message["content"] = [{"type": "text", "text": text}]
    message.update(extra)
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": f"2026-01-05T10:{minute:02d}:00.000Z",
        "message": message,
    }


def pytest_configure(config: pytest.Config) -> None:
    """Each xdist worker's end in the summary (tests/worker_ends.py); jsonschema's IRI
    grammars left unbuilt here and in every Python the tests start (the workers, the
    servers and kernels: tests/subprocess_site/sitecustomize.py says why)."""
    from worker_ends import register

    register(config)
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[assignment]
    path = os.environ.get("PYTHONPATH", "")
    if str(SUBPROCESS_SITE) not in path.split(os.pathsep):
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SUBPROCESS_SITE), path]))


#: the test file whose first test froze the heap last (``pytest_runtest_setup``)
_frozen_at: list[Path] = []


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """The browser modules share one Chromium while they run one after another
    (tests/browser/browser.py); it ends before any other test, whose asyncio would trip
    on Playwright's event loop.

    Before each file's first test, once the last file's fixtures are gone, what is left
    is collected and frozen (``gc.freeze``): the modules imported, the collected tests,
    the caches and session fixtures are moved out of the collector's generations, so
    that its full collections, which a test's allocations set off, walk only what was
    made since, not the whole heap of a long run each time. Only the collector's scans
    change: objects are freed as before, but for cycles among the frozen, which outlive
    their file."""
    shared = sys.modules.get("browser")
    if shared is not None and BROWSER_TESTS not in item.path.parents:
        shared.stop_shared_chromium()
    if _frozen_at[-1:] != [item.path]:
        _frozen_at[:] = [item.path]
        gc.collect()
        gc.freeze()


def pytest_unconfigure(config: pytest.Config) -> None:
    shared = sys.modules.get("browser")
    if shared is not None:
        shared.stop_shared_chromium()


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook; the floors' venv has no xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile`` hands out the costly files first and the session-matrix
    files test by test (tests/xdist_spread.py)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist_spread import SpreadScheduling

    return SpreadScheduling(config, log)


@pytest.fixture(scope="session")
def dask_cluster() -> Iterator[Any]:
    """A local Dask cluster of two single-threaded worker processes, as a laptop's would
    have, started once per pytest process for every module of the Dask tables (its
    workers' start is the costly part; tests/xdist_spread.py sends those modules to one
    worker). distributed is imported here, by its users."""
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    ) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def client(dask_cluster: Any) -> Iterator[Any]:
    """A client of the run's Dask cluster for the tests of the Dask tables: the default
    client while the module runs, closed at its end, so that no other module's test
    runs against it."""
    from distributed import Client

    with Client(dask_cluster) as dask_client:
        yield dask_client


@pytest.fixture(scope="module")
def matrix_session() -> Iterator[Callable[[str], prime_nb.Session]]:
    """``matrix_session(name)``: matrix session ``name`` loaded once per test module from
    its shared file (``session_matrix.shared_file``), so that the tables and contexts it
    computes lazily are computed once for all the checks of a module. Only for tests
    that read it: one that changes a Session or its file loads its own. A session that
    fails to load raises the same error each time it is asked for."""
    from session_matrix import shared_file

    import prime_nb  # here, not at the top: some tests check what a bare import loads

    loaded: dict[str, prime_nb.Session | Exception] = {}

    def get(name: str) -> prime_nb.Session:
        if name not in loaded:
            try:
                loaded[name] = prime_nb.load(shared_file(name))
            except Exception as error:
                loaded[name] = error
        value = loaded[name]
        if isinstance(value, Exception):
            raise value
        return value

    yield get
    loaded.clear()
