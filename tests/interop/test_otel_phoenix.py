"""A session sent by ``to_otel`` to a real Phoenix server comes back whole: the same spans,
kinds, parents, entry ids and token counts, read with Phoenix's own client.

Phoenix runs from its own virtual environment (``.venv-phoenix``, made by ``.ci/setup``;
``PRIME_NB_PHOENIX_PYTHON`` names another interpreter that has ``arize-phoenix``): its
pins (an older ``anthropic``, a pytest plugin that imports for seconds) do not fit the
test environment, and the server is a process of its own anyway. Without it the test
fails and says how to make it. The server listens on loopback on free ports, keeps its
database in a temporary folder and has its telemetry and external resources off.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from session_matrix import shared_file

import prime_nb
from prime_nb.interop import to_otel

REPO = Path(__file__).resolve().parents[2]
#: a compaction on each of two paths, tool calls with results: every kind of span
SESSION = "comp-on2-off0-forks1-v3-prime"
PROJECT = "prime-nb-test"
#: seconds Phoenix may take to answer on a busy machine, and to store what it was sent
STARTUP = 300.0
STORED = 60.0

#: run by Phoenix's interpreter: the project's spans, polled until ``count`` are stored.
#: The client is its own distribution (arize-phoenix-client) in the ``phoenix`` namespace;
#: the server's ``phoenix/__init__`` loads the whole server (seconds of CPU) and the
#: client needs none of it, so ``phoenix`` is entered as a bare package first
READ_BACK = """
import importlib.util, json, sys, time, types
found = importlib.util.find_spec("phoenix")
package = types.ModuleType("phoenix")
package.__path__ = list(found.submodule_search_locations)
sys.modules["phoenix"] = package
from phoenix.client import Client

url, project, count, patience = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
client = Client(base_url=url)
deadline = time.monotonic() + patience
while True:
    try:
        spans = client.spans.get_spans(project_identifier=project, limit=count + 100)
    except Exception:  # the project appears with its first stored span
        spans = []
    if len(spans) >= count or time.monotonic() > deadline:
        break
    time.sleep(0.5)
print(json.dumps([
    {
        "trace_id": s["context"]["trace_id"],
        "span_id": s["context"]["span_id"],
        "parent_id": s.get("parent_id"),
        "kind": s["span_kind"],
        "entry_id": s["attributes"].get("prime_nb.entry_id"),
        "tokens": s["attributes"].get("llm.token_count.total"),
    }
    for s in spans
]))
"""


def phoenix_python() -> Path:
    given = os.environ.get("PRIME_NB_PHOENIX_PYTHON")
    python = Path(given) if given else REPO / ".venv-phoenix" / "bin" / "python"
    if not python.exists():
        pytest.fail(
            f"{python}: no Python with Phoenix to test against; run .ci/setup (it makes "
            ".venv-phoenix with arize-phoenix) or set PRIME_NB_PHOENIX_PYTHON",
            pytrace=False,
        )
    return python


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=5) as reply:
            return bool(reply.status == 200)
    except (urllib.error.URLError, OSError):
        return False


@contextlib.contextmanager
def phoenix_server(python: Path, folder: Path) -> Iterator[str]:
    """A Phoenix server run by ``python``, its database and log in ``folder``; its URL.
    If it does not start, the failure says why (its log's tail); however it ended, the
    teardown stops what is left of it and never raises for a process already gone."""
    port = free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(folder / "phoenix"),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(free_port()),
        "PHOENIX_TELEMETRY_ENABLED": "false",
        "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
    }
    log = folder / "phoenix.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [str(python), "-m", "phoenix.server.main", "serve"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its workers go with it
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP
        while not answers(url):
            if server.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text(errors="replace")[-2000:] or "(its log is empty)"
                pytest.fail(
                    f"{url}: Phoenix did not start (exit {server.poll()}); its log ends:\n{tail}",
                    pytrace=False,
                )
            time.sleep(0.5)
        yield url
    finally:
        stop_group(server)


def stop_group(server: subprocess.Popen[bytes]) -> None:
    """``server`` and its process group ended: TERM, then KILL after 30 s. A group
    already gone (the server exited and its workers with it) is no error."""
    for sent in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, sent)
        try:
            server.wait(timeout=30)
            return
        except subprocess.TimeoutExpired:
            continue
    server.wait()


@pytest.fixture
def phoenix(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A Phoenix server of this test's own; its URL and its interpreter."""
    python = phoenix_python()
    with phoenix_server(python, tmp_path) as url:
        yield url, python


def test_a_phoenix_that_exits_at_once_fails_with_its_log(tmp_path: Path) -> None:
    """The server exits before it answers (a port taken, a broken install): the test
    fails saying so with the log's tail, and the teardown does not raise
    ProcessLookupError for the process group already gone."""
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\necho 'phoenix: address already in use' >&2\nexit 3\n")
    python.chmod(0o755)
    with (
        pytest.raises(pytest.fail.Exception, match="Phoenix did not start") as failed,
        phoenix_server(python, tmp_path),
    ):
        pytest.fail("the server answered")  # pragma: no cover - it cannot
    said = str(failed.value)
    assert "Phoenix did not start (exit 3)" in said
    assert "address already in use" in said
    assert failed.value.__context__ is None


def test_phoenix_stores_every_span_with_its_kind_and_entry(phoenix: tuple[str, Path]) -> None:
    url, python = phoenix
    session = prime_nb.load(shared_file(SESSION))
    exporter = InMemorySpanExporter()
    to_otel(session, exporter=exporter, leaf="all")
    sent = exporter.get_finished_spans()
    expected = sorted(
        (
            f"{s.context.trace_id:032x}",
            f"{s.context.span_id:016x}",
            f"{s.parent.span_id:016x}" if s.parent else None,
            str((s.attributes or {})["openinference.span.kind"]),
            str((s.attributes or {})["prime_nb.entry_id"]),
            (s.attributes or {}).get("llm.token_count.total"),
        )
        for s in sent
        if s.context is not None
    )
    kinds = {kind for *_, kind, _, _ in expected}
    assert kinds == {"AGENT", "LLM", "TOOL", "CHAIN"}, "the session has every kind of span"

    traces = to_otel(session, endpoint=url, project=PROJECT, leaf="all")
    assert len(traces) == len(session.leaves) == 2

    done = subprocess.run(
        [str(python), "-c", READ_BACK, url, PROJECT, str(len(expected)), str(STORED)],
        capture_output=True,
        text=True,
        timeout=STORED + 120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    stored = sorted(
        (s["trace_id"], s["span_id"], s["parent_id"], s["kind"], s["entry_id"], s["tokens"])
        for s in json.loads(done.stdout)
    )
    assert len(stored) == len(expected)
    assert stored == expected, "Phoenix keeps each span's ids, parent, kind, entry, tokens"
