"""Which secret-detection engine finds what: recall, over-redaction and speed on the corpus.

Each engine that imports (prime_nb's own rules always; detect-secrets, betterleaks,
kingfisher when installed) reads every kind of secret of the test corpus as a session
shows it, percent-encoded and hex-encoded, and every config or command look-alike. A
kind counts as found when every string that must vanish overlaps something the engine
reports. Run it in a venv that has the engines::

    PYTHONPATH=. python benchmarks/bench_redact_engines.py

Prints one row per engine and form, then the kinds each engine misses.
"""

from __future__ import annotations

import random
import sys
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "redact"))

from more_secrets import LOOKALIKES
from secret_corpus import KINDS
from secret_kinds import Planted

Engine = Callable[[str], list[str]]
SEEDS = (1, 2, 3)


def ours() -> Engine:
    from prime_nb.redact import default_rules
    from prime_nb.redact._scrub import Scrubber

    scrubber = Scrubber(default_rules([]))

    def scan(text: str) -> list[str]:
        return [text[s.start : s.end] for s in scrubber.spans(text)]

    return scan


def detect_secrets_engine() -> Engine:
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import default_settings

    def scan(text: str) -> list[str]:
        with default_settings():
            return [str(s.secret_value) for line in text.split("\n") for s in scan_line(line)]

    return scan


def betterleaks_engine() -> Engine:
    import betterleaks

    def scan(text: str) -> list[str]:
        return [f.match.value or f.match.full for f in betterleaks.scan_string(text)]

    return scan


def kingfisher_engine() -> Engine:
    import kingfisher_sdk

    scanner = kingfisher_sdk.Scanner()

    def scan(text: str) -> list[str]:
        scanner.reset_dedup()
        return [str(f.secret) for f in scanner.scan(text)]

    return scan


ENGINES: dict[str, Callable[[], Engine]] = {
    "prime_nb rules": ours,
    "detect-secrets": detect_secrets_engine,
    "betterleaks": betterleaks_engine,
    "kingfisher": kingfisher_engine,
}
FORMS: dict[str, Callable[[str], str]] = {
    "plain": lambda t: t,
    "url-encoded": lambda t: "GET /cb?state=" + urllib.parse.quote(t, safe="") + " 302",
    "hex-encoded": lambda t: "$ xxd -p note.bin\n" + t.encode().hex(),
}


def covered(item: Planted, text: str, found: list[str]) -> bool:
    """Every string that must vanish, as ``text`` writes it, overlaps a finding."""
    for whole in item.whole:
        forms = [whole, urllib.parse.quote(whole, safe=""), whole.encode().hex()]
        shown = [w for w in forms if w in text]
        if shown and not any(
            w in f or (f in w and len(f) >= min(len(w), 8)) for w in shown for f in found if f
        ):
            return False
    return True


def main() -> None:
    items = [make(random.Random(seed)) for seed in SEEDS for make in KINDS]
    sample = "\n".join(item.snippet for item in items)
    print(f"{len(KINDS)} kinds x {len(SEEDS)} seeds, {len(LOOKALIKES)} look-alikes")
    print(f"{'engine':16} {'form':12} {'recall':>8} {'look-alikes hit':>16} {'KB/s':>8}")
    for name, make_engine in ENGINES.items():
        try:
            t0 = time.perf_counter()
            scan = make_engine()
            scan("warm up")
            setup = time.perf_counter() - t0
        except ImportError:
            print(f"{name:16} not installed")
            continue
        missed: set[str] = set()
        for form, encode in FORMS.items():
            texts = [encode(item.snippet) for item in items]
            found = [covered(i, t, scan(t)) for i, t in zip(items, texts, strict=True)]
            if form == "plain":
                missed = {item.kind for item, ok in zip(items, found, strict=True) if not ok}
                hit = sum(bool(scan(text)) for text in LOOKALIKES)
                t0 = time.perf_counter()
                scan(sample)
                speed = f"{len(sample) / 1024 / (time.perf_counter() - t0):8.0f}"
            else:
                hit, speed = -1, ""
            shown = f"{hit}/{len(LOOKALIKES)}" if hit >= 0 else ""
            print(f"{name:16} {form:12} {sum(found) / len(items):8.1%} {shown:>16} {speed:>8}")
        print(
            f"{'':16} setup {setup:.1f} s; misses {len(missed)} kinds: {', '.join(sorted(missed))}"
        )


if __name__ == "__main__":
    main()
