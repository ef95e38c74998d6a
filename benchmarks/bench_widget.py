"""How fast the session widget draws, in headless Chromium, for 1k, 10k and 100k entries.

For each size: a synthetic session (``datasets.large_session_entries``) is written, loaded,
turned into the widget's up-front columns, and rendered by the real bundle in a page (the
export's stand-in model, so no kernel is involved). Measured in the page:

- first draw: from the view receiving the data (constructor) to its first full draw, and to
  the first frame after it;
- fit: drawing the whole tree at once (every node in view);
- pan: redraw after a pan (median of 30), at the first view and at fit-all;
- select: selecting an entry (ring, panel request) and redrawing (median of 20).

Each figure is also given as a ratio to a baseline measured in the same page and run:
JSON.parse of the same columns as JSON (for the first draw), and a bare canvas fill of n
rectangles (for redraws). Goals: 100k drawn in < 1.5 s, redraw < 50 ms, <= 40 bytes/entry.

    python benchmarks/bench_widget.py [--sizes 1000,10000,100000] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import prime_nb
from prime_nb.datasets import large_session_entries
from prime_nb.widget._data import SessionData
from prime_nb.widget._export import render_html, tree64

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1280, "height": 800}
GOAL_DRAW_MS = 1500.0
GOAL_REDRAW_MS = 50.0
GOAL_BYTES = 40.0

PAGE_JS = """
async () => {
  const dbg = document.querySelector('.pnb-root').pnbDebug;
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  while (dbg.timings.firstFrame < 0) await frame();
  const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const out = { firstDraw: dbg.timings.firstDraw, firstFrame: dbg.timings.firstFrame };
  const s0 = dbg.stats();
  out.drawnAtFirst = s0.lastDraw.nodes;
  const pans = [];
  for (let i = 0; i < 30; i++) pans.push(dbg.panBy(i % 2 ? 37 : -37, i % 3 ? 11 : -11));
  out.panFirst = median(pans);
  out.fit = dbg.fit();
  out.drawnAtFit = dbg.stats().lastDraw.nodes;
  const fitPans = [];
  for (let i = 0; i < 30; i++) fitPans.push(dbg.panBy(i % 2 ? 23 : -23, i % 3 ? 7 : -7));
  out.panFit = median(fitPans);
  const ids = dbg.visibleIds();
  const sel = [];
  for (let i = 0; i < 20; i++) sel.push(dbg.selectIndex(Math.floor((i * 7919) % s0.n)));
  out.select = median(sel);
  out.branchesRebuild = dbg.setView('branches');
  await frame();
  out.branchNodes = dbg.stats().nodes;
  out.shown = s0.shown;
  out.n = s0.n;
  out.idsShown = ids.length;
  return out;
}
"""

BASELINE_JS = """
([n, json]) => {
  const canvas = document.createElement('canvas');
  const dpr = window.devicePixelRatio || 1;
  canvas.width = 1280 * dpr; canvas.height = 720 * dpr;
  document.body.append(canvas);
  const ctx = canvas.getContext('2d', { alpha: false });
  const xs = new Float32Array(n), ys = new Float32Array(n);
  for (let i = 0; i < n; i++) { xs[i] = (i * 7919) % 1280; ys[i] = (i * 104729) % 720; }
  const fills = [];
  for (let r = 0; r < 9; r++) {
    const t0 = performance.now();
    ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, 1280, 720);
    ctx.fillStyle = '#2f6fe4';
    for (let i = 0; i < n; i++) ctx.fillRect(xs[i], ys[i], 3, 3);
    ctx.getImageData(0, 0, 1, 1);
    fills.push(performance.now() - t0);
  }
  const parses = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    JSON.parse(json);
    parses.push(performance.now() - t0);
  }
  canvas.remove();
  const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { fill: median(fills), parse: median(parses) };
}
"""


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def write_session(n: int, folder: Path) -> Path:
    path = folder / f"bench-{n}.jsonl"
    with open(path, "wb") as fh:
        for entry in large_session_entries(n, seed=0):
            fh.write(orjson.dumps(entry) + b"\n")
    return path


def upfront_bytes(tree: dict[str, Any]) -> int:
    """Bytes the `_tree` trait costs: binary buffers plus the JSON of the rest."""
    binary = sum(len(v) for v in tree.values() if isinstance(v, bytes))
    rest = {k: v for k, v in tree.items() if not isinstance(v, bytes)}
    return binary + len(orjson.dumps(rest))


def columns_json(data: SessionData) -> str:
    """The same columns as plain JSON (the JSON.parse baseline)."""
    import numpy as np

    tree = data.tree()
    return json.dumps(
        {
            "ids": data.ids,
            "parent": np.frombuffer(tree["parent"], "<i4").tolist(),
            "kind": list(tree["kind"]),
            "flags": list(tree["flags"]),
            "tokens": np.frombuffer(tree["tokens"], "<u4").tolist(),
            "time": [round(x, 3) for x in np.frombuffer(tree["time"], "<f4").tolist()],
        }
    )


def bench(n: int, folder: Path, browser: Any) -> dict[str, Any]:
    path = write_session(n, folder)
    t0 = time.perf_counter()
    session = prime_nb.load(path)
    data = SessionData(session)
    tree = data.tree()
    python_s = time.perf_counter() - t0
    html = folder / f"bench-{n}.html"
    html.write_text(render_html({"tree": tree64(tree)}, csp=False), "utf-8")
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(html.as_uri())
    page.wait_for_selector(".pnb-root[data-drawn]", timeout=120_000)
    result: dict[str, Any] = page.evaluate(PAGE_JS)
    result.update(page.evaluate(BASELINE_JS, [n, columns_json(data)]))
    page.close()
    result["bytes_per_entry"] = upfront_bytes(tree) / n
    result["python_s"] = python_s
    return result


def report(n: int, r: dict[str, Any]) -> list[str]:
    ok = lambda good: "ok" if good else "MISSED"  # noqa: E731
    redraw = max(r["panFirst"], r["panFit"], r["select"])
    return [
        f"{n:>7,} entries ({r['shown']:,} shown by the default filter, "
        f"{r['branchNodes']:,} nodes in the branch view)",
        f"  up front        {r['bytes_per_entry']:6.1f} bytes/entry   "
        f"goal <= {GOAL_BYTES:.0f}: {ok(r['bytes_per_entry'] <= GOAL_BYTES)}",
        f"  first draw      {r['firstDraw']:8.1f} ms   first frame {r['firstFrame']:8.1f} ms   "
        f"= {r['firstFrame'] / r['parse']:5.1f} x JSON.parse of the same columns "
        f"({r['parse']:.1f} ms)   goal < {GOAL_DRAW_MS:.0f} ms: "
        f"{ok(r['firstFrame'] < GOAL_DRAW_MS)}",
        f"  fit all         {r['fit']:8.1f} ms  ({r['drawnAtFit']:,} nodes drawn)   "
        f"= {r['fit'] / r['fill']:5.1f} x bare fill of {n:,} rects ({r['fill']:.1f} ms)",
        f"  pan redraw      {r['panFirst']:8.1f} ms at first view ({r['drawnAtFirst']:,} drawn), "
        f"{r['panFit']:.1f} ms at fit-all   = {r['panFit'] / r['fill']:5.1f} x bare fill",
        f"  select redraw   {r['select']:8.1f} ms   = {r['select'] / r['fill']:5.1f} x bare fill   "
        f"goal < {GOAL_REDRAW_MS:.0f} ms (worst redraw {redraw:.1f}): "
        f"{ok(redraw < GOAL_REDRAW_MS)}",
        f"  branch view     {r['branchesRebuild']:8.1f} ms to rebuild   "
        f"(python load + columns {r['python_s']:.2f} s)",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    results: dict[int, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        version = browser.version
        print(
            f"CPU: {cpu_name()}; Chromium {version} (headless, software raster); "
            f"viewport {VIEWPORT['width']}x{VIEWPORT['height']}"
        )
        for n in sizes:
            results[n] = bench(n, Path(tmp), browser)
            print("\n".join(report(n, results[n])), flush=True)
        browser.close()
    if args.json:
        args.json.write_text(
            json.dumps({"chromium": version, "cpu": cpu_name(), "results": results}, indent=2)
        )


if __name__ == "__main__":
    main()
