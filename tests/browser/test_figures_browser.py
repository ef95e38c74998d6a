"""Every figure of ``prime_nb.plots`` drawn in Chromium from a hostile session (its name,
ids, tool names, models and texts hold a link, an image and a styled span pointing at a
local server): 0 requests, 0 injected links or elements, the markup shown as text.

plotly.js is the plotly package's own bundled file, loaded from disk: never a CDN. Every
request the page makes is routed (and recorded); a local server counts any that got
through. Each trace's first points are hovered, so the hover labels are drawn too.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import plotly
import plotly.io as pio
import pytest
from browser import chromium_fixture, page_fixture  # noqa: F401
from hostile_session import hostile_session
from playwright.sync_api import Page, Route

import prime_nb
from prime_nb import plots

#: plotly.js as the plotly package ships it
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
#: what counts as drawn markup: links, images, embedded HTML, styles fetching a URL (the
#: mode bar's own plotly logo link left out)
INJECTED = """gd => [
    ...gd.querySelectorAll('a, img, image, foreignObject, [href], [style*="url("]')
].filter(e => !e.closest('.modebar')).map(e => e.outerHTML.slice(0, 200))"""
#: each trace's first three points hovered, one after another, and each hover's label.
#: Plotly draws a hover at once only when the plot's last one was 50 ms ago or more
#: (``Fx.hover``'s throttle reads ``Date.now``), else 50 ms later: for each hover its
#: clock reads a minute later than at the hover before, so each hover is drawn at once,
#: with no pause between two.
HOVER_EACH = """gd => {
    const labels = [];
    gd.calcdata.forEach((points, curve) => {
        const trace = gd._fullData[curve];
        for (let k = 0; k < Math.min(3, points.length); k++) {
            const now = Date.now;
            const shift = (window.__pnbHoverShift = (window.__pnbHoverShift || 0) + 60000);
            Date.now = () => now.call(Date) + shift;
            try {
                Plotly.Fx.hover(gd, [{curveNumber: curve, pointNumber: k}],
                                trace.xaxis + trace.yaxis);
            } finally {
                Date.now = now;
            }
            const layer = gd.querySelector('.hoverlayer');
            labels.push(layer ? layer.textContent : '');
        }
    });
    return labels;
}"""


class _Counting(http.server.BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        type(self).hits.append(self.path)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[tuple[int, list[str]]]:
    """A local server the markup points at, and the paths asked of it."""
    hits: list[str] = []
    handler = type("Handler", (_Counting,), {"hits": hits})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1], hits
    finally:
        httpd.shutdown()
        httpd.server_close()


def _page(tmp_path: Path, session: prime_nb.Session) -> Path:
    """One page with every figure, plotly.js from the package's file."""
    parts = [
        pio.to_html(make(session), include_plotlyjs=False, full_html=False, div_id=name)
        for name, make in ((name, getattr(plots, name)) for name in plots.__all__)
    ]
    page = tmp_path / "figures.html"
    page.write_text(
        '<!doctype html><html><head><meta charset="utf-8">'
        f'<script src="{PLOTLY_JS.as_uri()}"></script></head><body>'
        + "".join(parts)
        + "</body></html>",
        encoding="utf-8",
    )
    return page


def test_hostile_figures_draw_no_link_and_make_no_request(
    page: Page, tmp_path: Path, server: tuple[int, list[str]]
) -> None:
    port, reached = server
    session = prime_nb.load(hostile_session(tmp_path / "s.jsonl", port))
    routed: list[str] = []

    def route(request: Route) -> None:
        url = request.request.url
        if url.startswith("file:"):
            request.continue_()
        else:
            routed.append(url)
            request.abort()

    page.route("**/*", route)
    page.goto(_page(tmp_path, session).as_uri())
    page.wait_for_function(
        f"document.querySelectorAll('.js-plotly-plot').length === {len(plots.__all__)}"
    )
    injected: dict[str, list[str]] = {}
    hovered: dict[str, list[str]] = {}
    for name in plots.__all__:
        gd = page.locator(f"#{name}").element_handle()
        assert gd is not None
        hovered[name] = page.evaluate(HOVER_EACH, gd)
        found = page.evaluate(INJECTED, gd)
        if found:
            injected[name] = found
    page.wait_for_timeout(500)  # any request the drawing started has been made by now
    assert all(any(hovered[name]) for name in plots.__all__)  # hover labels were drawn
    assert injected == {}
    assert routed == [] and reached == []
    # the markup is shown, as text: in the titles and in the hovers
    titles = page.locator(".gtitle").all_text_contents()
    assert len(titles) == len(plots.__all__)
    assert all(f'<a href="http://127.0.0.1:{port}/link-name">' in t for t in titles)
    assert any("link-tool" in text for text in hovered["tool_usage"])
    assert any("link-id-a4" in text for text in hovered["context_timeline"])
