"""A session sent by ``to_otel`` to a real Phoenix server comes back whole: the same spans,
kinds, parents, entry ids and token counts, read with Phoenix's own client; and Phoenix's
UI, in Debian's Chromium, shows a hostile session's markup as text.

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
from typing import Any

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from session_matrix import shared_file

import prime_nb
from prime_nb.interop import to_otel

#: Debian's Chromium, as the browser tests drive it (tests/browser/browser.py)
CHROMIUM = os.environ.get("PRIME_NB_CHROMIUM", "/usr/bin/chromium")
#: no host name resolves but loopback's: a request the page makes for another host is
#: recorded (``test_phoenix_shows_a_hostile_sessions_markup_as_text``) and goes nowhere
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]

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


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The module's Phoenix server; its URL and its interpreter. Each test sends its
    spans to a project of its own."""
    python = phoenix_python()
    with phoenix_server(python, tmp_path_factory.mktemp("phoenix")) as url:
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


#: where the hostile session's links and images point: no host of this machine, so any
#: request for it is one the page must not make (the route below refuses it)
OUTSIDE = "https://outside.example"


def hostile_text(what: str) -> str:
    """Markup aimed at a page: a script, an image whose error runs script, a link, a
    ``javascript:`` link, Markdown's links, image and autolink to :data:`OUTSIDE`, HTML
    entities, ANSI colour codes and a right-to-left override."""
    return (
        f"<script>window.__pwned='{what}'</script>"
        f"<img src=x onerror=\"window.__pwned='{what}'\">"
        f'<a href="{OUTSIDE}/a-{what}">a-{what}</a>'
        f"<a href=\"javascript:window.__pwned='{what}'\">js-{what}</a>"
        f" [md-{what}]({OUTSIDE}/md-{what}) ![mi-{what}]({OUTSIDE}/mi-{what}.png)"
        f" [mj-{what}](javascript:window.__pwned=1) <{OUTSIDE}/auto-{what}>"
        f" &lt;i&gt; &amp; \x1b[31mANSI\x1b[0m \u202eRTL"
    )


#: the session's links and images in the page: any ``a`` or ``img`` (and ``area``,
#: ``iframe``...) naming :data:`OUTSIDE` or a ``javascript:`` URL
INJECTED = """() => [...document.querySelectorAll('[href], [src], [srcset]')]
  .map((e) => e.getAttribute('href') || e.getAttribute('src') || e.getAttribute('srcset'))
  .filter((u) => u.includes('outside.example') || /^\\s*javascript:/i.test(u))"""


#: spans of the trace to open (the start of their name in the trace's tree) and a text
#: each shows once open: its output
SPANS = [
    ("chat <script>", "a-text"),
    ("execute_tool <script>", "a-output"),
    ("compaction", "a-summary"),
]


def stored_spans(url: str, project: str, count: int) -> None:
    """Wait until Phoenix has stored ``count`` spans of ``project`` (its REST API)."""
    deadline = time.monotonic() + STORED
    while True:
        try:
            with urllib.request.urlopen(
                f"{url}/v1/projects/{project}/spans?limit={count + 10}", timeout=10
            ) as reply:
                if len(json.load(reply)["data"]) >= count:
                    return
        except (urllib.error.URLError, OSError, KeyError, ValueError):
            pass  # the project appears with its first stored span
        assert time.monotonic() < deadline, f"Phoenix stored no {count} spans of {project}"
        time.sleep(0.2)


def test_phoenix_shows_a_hostile_sessions_markup_as_text(
    phoenix: tuple[str, Path], tmp_path: Path
) -> None:
    """Phoenix's UI, on the trace with every kind of span, on those spans and on the
    session's turns, for a session whose texts, tool names, model and name hold markup:
    no script runs, no request leaves the machine, and no link or image of the
    session's is in the page. Phoenix draws an ``input.value`` or ``output.value`` that
    is not a JSON object as Markdown with its HTML (a session's turns, whatever the mime
    type): ``to_otel`` sends them as JSON objects. The views' Markdown switch, which a
    reader turns on, is Phoenix's own: it draws the session's HTML links then."""
    from hostile_session import hostile_session
    from playwright.sync_api import sync_playwright

    url, _ = phoenix
    project = "prime-nb-hostile"
    session = prime_nb.load(hostile_session(tmp_path / "hostile.jsonl", 9, hostile_text))
    exporter = InMemorySpanExporter()
    to_otel(session, exporter=exporter, leaf="all")
    sent = exporter.get_finished_spans()
    trace = next(f"{s.context.trace_id:032x}" for s in sent if s.name == "compaction" and s.context)
    to_otel(session, endpoint=url, project=project, leaf="all")
    stored_spans(url, project, len(sent))
    with urllib.request.urlopen(f"{url}/v1/projects/{project}", timeout=10) as reply:
        project_id = json.load(reply)["data"]["id"]

    outside: list[str] = []
    dialogs: list[str] = []
    seen: dict[str, list[str]] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(20_000)

            def request(made: Any) -> None:
                if not made.url.startswith((url, "data:", "blob:")):
                    outside.append(made.url)

            page.on("request", request)
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))

            def look(view: str) -> None:
                page.wait_for_timeout(100)  # what a view draws after its text
                seen[view] = page.evaluate(INJECTED)

            page.goto(f"{url}/projects/{project_id}/traces/{trace}", wait_until="commit")
            page.get_by_text("invoke_agent prime-agent").first.wait_for()
            page.get_by_text("a-user").first.wait_for()  # the agent's input
            look("the trace, its agent span")
            for name, shown in SPANS:
                page.get_by_text(name).first.click()
                page.get_by_text(shown).first.wait_for()
                look(f"the trace's span {name}")
            page.get_by_text("View Session").click()
            page.get_by_text("Turn 01").first.wait_for()
            page.get_by_text("a-text").first.wait_for()  # the last answer
            look("the session's turns")
            turns = page.inner_text("body")
            pwned = page.evaluate("window.__pwned")
        finally:
            browser.close()

    assert outside == [], "no request leaves the machine"
    assert dialogs == [] and pwned is None, "no script of the session runs"
    assert {view: found for view, found in seen.items() if found} == {}, (
        "no link or image of the session's is in the page"
    )
    markup = json.dumps(f'<a href="{OUTSIDE}/a-user">a-user</a>')[1:-1]  # as a JSON string
    assert markup in turns, "the turns show the markup as text"
