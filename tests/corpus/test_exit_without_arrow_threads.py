"""A cached search, then a cached ``load_corpus``, then exit: the process exits 0.

Why it could abort: the corpus cache's Parquet reads ran on Arrow's thread pools
(``pre_buffer`` on the I/O pool, ``use_threads`` on the CPU pool), over buffers read from
a Python file. A pool thread could free the last of them after the call returned; if the
interpreter was finalising by then, the buffer's release (it needs the GIL) ended the
thread inside C++ and the process aborted ("terminate called without an active
exception"), about 1 process in 15-100 on a loaded machine. The cache now reads on the
calling thread, so no Arrow pool thread is ever started by the corpus: the test checks
that directly (every native thread is one that importing the package started), and runs
the reproduction in forked processes that each exit through the interpreter's
finalisation.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import header, msg, write_lines

#: processes forked, two at a time, each on a new cache of its own
FORKED = 6

CHILD = """
import os, sys, threading, warnings
warnings.simplefilter("ignore")
from prime_nb.corpus import load_corpus, search

def native_threads():
    return len(os.listdir("/proc/self/task")) - len(threading.enumerate())

folder, caches = sys.argv[1], sys.argv[2]
imported = native_threads()

def run(cache):
    assert len(search(folder, "needle", workers=1, cache=cache)) == 3
    assert len(load_corpus(folder, workers=1, progress=False, cache=cache)) == 3
    assert len(load_corpus(folder, workers=1, progress=False, cache=cache)) == 3  # cached

codes = []
for start in range(0, %(forked)d, 2):
    pids = []
    for k in (start, start + 1):
        pid = os.fork()
        if pid == 0:  # the child runs and falls off the end: a normal finalisation
            run(os.path.join(caches, str(k)))
            break
        pids.append(pid)
    else:
        codes += [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in pids]
        continue
    break
else:
    run(os.path.join(caches, "parent"))
    print(json.dumps({"codes": codes, "imported": imported, "after": native_threads()}))
""".replace("import os,", "import json, os,")


def test_cached_search_then_load_exits_cleanly_with_no_arrow_pool_thread(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    for k in range(3):
        write_lines(
            folder / f"s{k}.jsonl", [header(id=f"s{k}"), msg(f"u{k}", None, "user", "a needle")]
        )
    done = subprocess.run(
        [sys.executable, "-c", CHILD % {"forked": FORKED}, str(folder), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["codes"] == [0] * FORKED, done.stderr[-2000:]
    # no thread of Arrow's pools: only those the imports started (BLAS, the allocator's)
    assert said["after"] <= said["imported"], said
