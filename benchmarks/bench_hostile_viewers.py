"""Scout's own viewer, shown what ``to_scout`` exported of a hostile session, in Chromium.

The session (``tests/hostile_session.py``) holds in every shown string HTML aimed at a
local listener (a link, an image, a styled span, a style sheet, a ``javascript:`` link)
and Markdown (a link, an image, an autolink). ``to_scout`` writes it to a Scout
database; ``scout view`` (from the installed package, on 127.0.0.1) serves it; headless
Chromium opens the transcript list and the first transcript. A line says how many
links and images on the page lead to the listener, how many requests reached it, and
how many requests left loopback, dialogs and page errors there were.

Extra arguments go to ``scout view`` (e.g. ``--no-trust-content``). ``--before
CHECKOUT`` exports with that checkout's ``prime_nb`` too.

Usage: python benchmarks/bench_hostile_viewers.py [--before CHECKOUT] [-- SCOUT ARGS]
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from machine import describe

ROOT = Path(__file__).resolve().parents[1]

CHROMIUM = os.environ.get("PRIME_NB_CHROMIUM", "/usr/bin/chromium")

#: run with a checkout's prime_nb: writes the hostile session's transcripts to a database
EXPORT = r"""
import sys, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, sys.argv[1] + "/tests")
from pathlib import Path
from hostile_session import hostile_session, markup
from prime_nb.interop import to_scout
bait, folder = int(sys.argv[2]), Path(sys.argv[3])
base = f"http://127.0.0.1:{bait}"

def made(what):
    return markup(bait, what) + (
        f" ![md]({base}/md-img-{what}) [md]({base}/md-link-{what}) <{base}/auto-{what}>"
    )

print(len(to_scout(hostile_session(folder / "hostile.jsonl", bait, made), folder / "db")))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def listener() -> tuple[int, list[str]]:
    """A server on loopback that records the paths asked of it."""
    asked: list[str] = []

    class Record(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    port = free_port()
    server = http.server.HTTPServer(("127.0.0.1", port), Record)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return port, asked


def look(db: Path, bait: int, asked: list[str], scout_args: list[str]) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    port = free_port()
    scout = Path(sys.executable).with_name("scout")
    command = [str(scout), "view", "-T", str(db), "--port", str(port), "--no-browser"]
    server = subprocess.Popen([*command, "--display", "plain", *scout_args], cwd=db.parent)
    seen: dict[str, Any] = {"left loopback": [], "dialogs": [], "errors": []}
    try:
        for _ in range(240):
            try:
                socket.create_connection(("127.0.0.1", port), 0.5).close()
                break
            except OSError:
                time.sleep(0.5)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page()
            local = ("http://127.0.0.1:", "data:", "blob:")
            page.on(
                "request",
                lambda r: (
                    seen["left loopback"].append(r.url) if not r.url.startswith(local) else None
                ),
            )

            def dialog(shown: Any) -> None:
                seen["dialogs"].append(shown.message)
                shown.dismiss()

            page.on("dialog", dialog)
            page.on("pageerror", lambda e: seen["errors"].append(str(e)))
            page.goto(f"http://127.0.0.1:{port}/", wait_until="networkidle")
            page.get_by_role("row").nth(1).click(timeout=30_000)
            page.wait_for_load_state("networkidle")
            time.sleep(2)
            hrefs = page.eval_on_selector_all("a[href]", "e => e.map(a => a.href)")
            srcs = page.eval_on_selector_all("[src]", "e => e.map(a => a.src)")
            seen["links to the listener"] = sum(f":{bait}/" in h for h in hrefs)
            seen["javascript: links"] = sum(h.startswith("javascript:") for h in hrefs)
            seen["images from the listener"] = sum(f":{bait}/" in s for s in srcs)
            seen["requests it got"] = list(asked)
            browser.close()
    finally:
        server.terminate()
        server.wait(30)
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="a checkout to export with too")
    parser.add_argument("scout_args", nargs="*", help="more arguments of scout view")
    args = parser.parse_args()
    print(describe())
    checkouts = {"now": ROOT} | ({"before": args.before.resolve()} if args.before else {})
    for name, checkout in checkouts.items():
        bait, asked = listener()
        with tempfile.TemporaryDirectory() as tmp:
            env = {**os.environ, "PYTHONPATH": str(checkout)}
            subprocess.run(
                [sys.executable, "-c", EXPORT, str(checkout), str(bait), tmp],
                check=True,
                env=env,
                cwd=checkout,
            )
            seen = look(Path(tmp) / "db", bait, asked, args.scout_args)
        print(f"{name:6}  {json.dumps(seen)}", flush=True)


if __name__ == "__main__":
    main()
