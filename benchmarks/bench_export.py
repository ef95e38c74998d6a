"""export_html at 1k, 10k and 100k entries: time, page size, peak memory, the page's draw.

For each size a session is generated (``sessiongen.large_session_entries``, seed 0) and
exported ``--repeat`` times, each in a fresh process that has loaded it first:

- time: ``export_html`` alone (best run), against a bare read of the same file in the same
  process (each line parsed with orjson, the bytes gzipped at level 1: the least any
  export that reads and compresses the file does);
- page size, against the file;
- peak RSS while exporting (the kernel's peak counter is reset after the load): of the
  whole process, and what the export added to the loaded session, both against the file;
- the page in headless Chromium, from navigation start: its first frame and the first
  frame with the tree's text column; then the first entry opened (a chunk of entries
  decoded) and a second one, and the first search (the search texts decoded).

Goals at 100k entries (issue 13): export < 5 s, page <= the file, peak < 3 x the file,
drawn in < 2 s.

    python benchmarks/bench_export.py [--sizes 1000,10000,100000] [--repeat 3]
        [--code DIR]   export with the prime_nb of another checkout (figures before a change)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import orjson
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).parent))
sys.path.append(str(Path(__file__).resolve().parents[1]))  # the session generators
from machine import describe

from sessiongen import large_session_entries

CHROMIUM = os.environ.get("PRIME_NB_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
VIEWPORT = {"width": 1280, "height": 800}
GOAL_N = 100_000
GOAL_EXPORT_S = 5.0
GOAL_PAGE_RATIO = 1.0
GOAL_PEAK = 3.0
GOAL_DRAW_MS = 2000.0

CHILD = """
import sys, time, zlib, json
import orjson
import prime_nb
from prime_nb.widget import export_html

def status(key):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return 0

path, out = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
with open(path, "rb") as fh:
    raw = fh.read()
for line in raw.splitlines():
    orjson.loads(line)
z = zlib.compressobj(1, zlib.DEFLATED, 31)
packed = z.compress(raw) + z.flush()
bare = time.perf_counter() - t0
del raw, packed
session = prime_nb.load(path)
session.entries
before = status("VmRSS")
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")  # the peak (VmHWM) counts from here
t0 = time.perf_counter()
export_html(session, out, progress=False)
took = time.perf_counter() - t0
print(json.dumps({"bare_s": bare, "export_s": took, "rss_before": before,
                  "rss_peak": status("VmHWM")}))
"""

#: times in the page, from navigation start, recorded by the page itself (an init script)
WATCH = """
window.__t = {};
const watch = () => {
  const dbg = document.querySelector('.pnb-root')?.pnbDebug;
  if (dbg && !window.__t.frame && dbg.timings.firstFrame >= 0)
    window.__t.frame = dbg.timings.start + dbg.timings.firstFrame;
  if (dbg && !window.__t.text && dbg.stats().lines > 0) window.__t.text = performance.now();
  if (!window.__t.text) requestAnimationFrame(watch);
};
requestAnimationFrame(watch);
"""

PARTS_JS = """
async () => {
  const ask = document.getElementById('pnb-app').pnbAsk;
  const n = document.querySelector('.pnb-root').pnbDebug.stats().n;
  if (!ask) return {};
  const out = {};
  let t0 = performance.now();
  await ask({ what: 'entry', index: Math.floor(n / 2) });
  out.entry = performance.now() - t0;
  t0 = performance.now();
  await ask({ what: 'entry', index: Math.floor(n / 2) + 1 });
  out.entryAgain = performance.now() - t0;
  t0 = performance.now();
  out.hits = (await ask({ what: 'search', query: 'retry' })).indices.length;
  out.search = performance.now() - t0;
  return out;
}
"""


def write_session(n: int, folder: Path) -> Path:
    path = folder / f"bench-{n}.jsonl"
    with open(path, "wb") as fh:
        for entry in large_session_entries(n, seed=0):
            fh.write(orjson.dumps(entry) + b"\n")
    return path


def export_once(path: Path, out: Path, code: Path) -> dict[str, Any]:
    """One export in a fresh process that loaded the session first (see CHILD)."""
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), str(out)],
        capture_output=True,
        text=True,
        check=True,
        cwd=code,  # a script run with -c has its working folder first on its path
        env={**os.environ, "PYTHONPATH": str(code)},
    )
    return dict(json.loads(child.stdout.strip().splitlines()[-1]))


def open_page(browser: Any, html: Path) -> dict[str, Any]:
    """The page's first frame and text (ms from navigation start), then its parts."""
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(WATCH)
    page = context.new_page()
    page.goto(html.as_uri(), timeout=300_000)
    page.wait_for_function("() => window.__t.text > 0", timeout=300_000)
    result: dict[str, Any] = page.evaluate("() => window.__t")
    result.update(page.evaluate(PARTS_JS))
    context.close()
    return result


def bench(n: int, folder: Path, browser: Any, code: Path, repeat: int) -> dict[str, Any]:
    path = write_session(n, folder)
    out = folder / f"bench-{n}.html"
    runs = [export_once(path, out, code) for _ in range(repeat)]
    pages = [open_page(browser, out) for _ in range(repeat)]
    median = lambda key: statistics.median(p[key] for p in pages)  # noqa: E731
    result: dict[str, Any] = {
        "file": path.stat().st_size,
        "html": out.stat().st_size,
        "export_s": min(r["export_s"] for r in runs),
        "bare_s": min(r["bare_s"] for r in runs),
        "rss_before": min(r["rss_before"] for r in runs),
        "rss_peak": max(r["rss_peak"] for r in runs),
        "added": max(r["rss_peak"] - r["rss_before"] for r in runs),
        "frame": median("frame"),
        "text": median("text"),
    }
    if "entry" in pages[0]:
        result.update({k: median(k) for k in ("entry", "entryAgain", "search", "hits")})
    return result


def report(n: int, r: dict[str, Any]) -> list[str]:
    """The figures of one size; a goal's verdict from 100k entries on (the goals' size)."""
    ok = lambda good: ("ok" if good else "MISSED") if n >= GOAL_N else "-"  # noqa: E731
    mib = 2**20
    size = r["html"] / r["file"]
    peak = r["rss_peak"] / r["file"]
    added = r["added"] / r["file"]
    lines = [
        f"{n:>7,} entries, file {r['file'] / mib:.1f} MiB",
        f"  export_html  {r['export_s']:7.2f} s   = {r['export_s'] / r['bare_s']:5.1f} x a bare "
        f"parse + gzip of the file ({r['bare_s']:.2f} s)   goal < {GOAL_EXPORT_S:.0f} s: "
        f"{ok(r['export_s'] < GOAL_EXPORT_S)}",
        f"  page size    {r['html'] / mib:7.1f} MiB = {size:5.2f} x the file   goal <= "
        f"{GOAL_PAGE_RATIO:.0f} x: {ok(size <= GOAL_PAGE_RATIO)}",
        f"  peak RSS     {r['rss_peak'] / mib:7.0f} MiB = {peak:5.2f} x the file, of which the "
        f"loaded session {r['rss_before'] / mib:.0f} MiB and the export {r['added'] / mib:.0f} "
        f"MiB = {added:.2f} x   goal < {GOAL_PEAK:.0f} x: {ok(peak < GOAL_PEAK)} (whole), "
        f"{ok(added < GOAL_PEAK)} (the export's own)",
        f"  page         first frame {r['frame']:5.0f} ms, with text {r['text']:5.0f} ms from "
        f"navigation start   goal < {GOAL_DRAW_MS:.0f} ms: {ok(r['text'] < GOAL_DRAW_MS)}",
    ]
    if "entry" in r:
        lines.append(
            f"  page parts   first entry {r['entry']:.0f} ms, next {r['entryAgain']:.1f} ms; "
            f"first search {r['search']:.0f} ms ({r['hits']:,.0f} hits)"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=3, help="runs per size (best, median)")
    parser.add_argument("--code", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    args = parser.parse_args()
    commit = subprocess.run(
        ["git", "-C", str(args.code), "log", "-1", "--format=%h %s"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    print(describe())
    print(f"export_html of commit {commit[:100] or '(not a git checkout)'}")
    results: dict[int, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        print(f"Chromium {browser.version} (headless, software raster)")
        for n in (int(s) for s in args.sizes.split(",")):
            results[n] = bench(n, Path(tmp), browser, args.code, args.repeat)
            print("\n".join(report(n, results[n])), flush=True)
        browser.close()
    if args.json:
        args.json.write_text(json.dumps({"commit": commit, "results": results}, indent=2))


if __name__ == "__main__":
    main()
