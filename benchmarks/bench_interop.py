"""Each export of ``prime_nb.interop`` on a 100 MB session, against loading it.

A session is generated (``sessiongen.write_large_session``, the ``big`` shape, seed 0).
Each export runs ``--repeat`` times, each in a fresh process that loads the file first
(the export's packages, ``atif``, Inspect and OpenTelemetry, are imported before any
timing: their import is a fixed cost of seconds, not a cost of the session):

- baseline: ``prime_nb.load`` of the file (the load every export starts from);
- ``to_atif`` of the active path, without and with the family lookup (``family=False``,
  the default ``load_family``, which loads the family's files again);
- ``to_scout`` of the active path (one transcript into a new database);
- ``compaction_probes`` (one transcript per compaction);
- ``to_otel`` of the active path into an OTLP protobuf file (the spans built, encoded
  and written as a receiver would be sent them).

Printed per export: its time (best run) and its ratio to the load of the same process,
what it wrote (bytes, against the file), and the process's peak RSS against the file.

``--path N``: how an export's memory grows with the path it writes. Sessions of one path
(the ``linear`` shape: user, a call, its result, a reply) of N/4, N/2 and N entries; per
export, the peak RSS the export itself adds above the loaded session (the kernel's peak
is reset after the load) and that per entry of the path.

    python benchmarks/bench_interop.py [--size MB] [--repeat N] [--path ENTRIES]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
sys.path.append(str(Path(__file__).resolve().parents[1]))  # the session generators
from machine import describe

from sessiongen import write_large_session, write_shape

EXPORTS = {
    "to_atif (active path, no family)": "to_atif(session, out / 'atif', family=False)",
    "to_atif (active path, family looked up)": "to_atif(session, out / 'atif')",
    "to_scout (active path)": "to_scout(session, out / 'scout')",
    "compaction_probes": "compaction_probes(session, out / 'probes')",
    "to_otel (active path, a .pb file)": "to_otel(session, path=out / 'traces.pb')",
}

CHILD = """
import json, os, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[4])
from sessiongen import use_local_tokenizer
use_local_tokenizer()
import atif, inspect_ai.model, inspect_ai.tool, inspect_scout  # imported before timing
import opentelemetry.sdk.trace, opentelemetry.exporter.otlp.proto.http.trace_exporter
import prime_nb
from prime_nb.interop import compaction_probes, to_atif, to_otel, to_scout

def status(key):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key):
                return int(line.split()[1]) * 1024
    return 0

path, out = sys.argv[1], Path(sys.argv[2])
t0 = time.perf_counter()
session = prime_nb.load(path)
load_s = time.perf_counter() - t0
load_peak, loaded = status("VmHWM:"), status("VmRSS:")
with open("/proc/self/clear_refs", "w") as fh:  # the peak from here on is the export's
    fh.write("5")
t0 = time.perf_counter()
eval(sys.argv[3])
export_s = time.perf_counter() - t0
export_peak = status("VmHWM:")
size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
print(json.dumps({
    "load_s": load_s, "export_s": export_s, "bytes": size,
    "peak": max(load_peak, export_peak), "added": max(0, export_peak - loaded),
}))
"""


def run_once(path: Path, call: str, repo: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as out:
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, str(path), out, call, str(repo)],
            capture_output=True,
            text=True,
            timeout=1800,
            env={"XDG_DATA_HOME": out, "PATH": "/usr/bin:/bin", "PYTHONPATH": str(repo)},
        )
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def path_growth(entries: int, repeat: int, repo: Path) -> None:
    """The memory each export adds for paths of ``entries`` / 4, / 2 and whole."""
    sizes = [entries // 4, entries // 2, entries]
    print(f"memory an export adds above the loaded session, by path length ({repeat} runs, least)")
    print("| export | " + " | ".join(f"{n:,} entries" for n in sizes) + " | per entry |")
    print("|---|" + "---|" * (len(sizes) + 1))
    with tempfile.TemporaryDirectory() as tmp:
        files = [write_shape(Path(tmp) / f"path{n}.jsonl", "linear", n) for n in sizes]
        for name, call in EXPORTS.items():
            if "family looked up" in name or "probes" in name:
                continue  # the same path as without the family; probes have no path
            added = [min(run_once(f, call, repo)["added"] for _ in range(repeat)) for f in files]
            slope = (added[-1] - added[0]) / (sizes[-1] - sizes[0])
            cells = " | ".join(f"{a / 2**20:.1f} MB" for a in added)
            print(f"| {name} | {cells} | {slope / 1024:.1f} KB |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=100, help="session size in MB")
    parser.add_argument("--repeat", type=int, default=3, help="runs per export (best kept)")
    parser.add_argument(
        "--path", type=int, metavar="ENTRIES", help="measure memory by path length instead"
    )
    args = parser.parse_args()
    repo = Path(__file__).resolve().parents[1]
    print(describe())
    if args.path:
        path_growth(args.path, args.repeat, repo)
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = write_large_session(Path(tmp) / "big.jsonl", args.size * 2**20)
        file_bytes = path.stat().st_size
        print(f"session: {file_bytes / 2**20:.0f} MB (big shape, seed 0)")
        print("| export | time | / load | written / file | peak RSS / file |")
        print("|---|---|---|---|---|")
        for name, call in EXPORTS.items():
            runs = [run_once(path, call, repo) for _ in range(args.repeat)]
            best = min(runs, key=lambda r: r["export_s"])
            print(
                f"| {name} | {best['export_s']:.2f} s | {best['export_s'] / best['load_s']:.2f} x"
                f" | {best['bytes'] / file_bytes:.2f} | {best['peak'] / file_bytes:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
