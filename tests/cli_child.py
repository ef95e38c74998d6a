"""``prime-nb`` commands run in one child process, one after another, each bounded by a
timeout: for tests whose command may hang (a FIFO waited on, /dev/zero read), so a hang
fails the test instead of stopping the suite, without paying a new interpreter and its
import of prime_nb for every command.

The child runs each command as :func:`cli_in_process.run_cli` does (the same ``main``,
output captured as a subprocess's would be, in the given folder). A command that hangs
or kills the child fails its test; the next command starts a new child.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

SERVE = """
import json, os, sys
from cli_in_process import run_cli
answers = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)  # what a command prints outside run_cli's capture goes to stderr
for line in sys.stdin:
    args, cwd = json.loads(line)
    done = run_cli(*args, cwd=cwd)
    answers.write(json.dumps([done.returncode, done.stdout, done.stderr]) + "\\n")
    answers.flush()
"""


class CliChild:
    """One child that runs the commands it is given in turn (see the module)."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.process: subprocess.Popen[bytes] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(TESTS), *filter(None, [env.get("PYTHONPATH")])])
        return subprocess.Popen(
            [sys.executable, "-c", SERVE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )

    def run(self, *args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
        """What ``prime-nb *args`` run in ``cwd`` returns; a failed test if it hangs for
        the timeout or the child dies."""
        if self.process is None or self.process.poll() is not None:
            self.process = self._start()
        process = self.process
        assert process.stdin is not None and process.stdout is not None
        argv = [str(arg) for arg in args]
        process.stdin.write(json.dumps([argv, str(cwd)]).encode() + b"\n")
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout], [], [], self.timeout)
        if not ready:
            self.stop()
            pytest.fail(f"prime-nb {' '.join(argv)} hung for {self.timeout} s")
        line = process.stdout.readline()
        if not line:
            code = process.wait(self.timeout)
            self.process = None
            pytest.fail(f"prime-nb {' '.join(argv)}: the child exited ({code})")
        code, out, err = json.loads(line)
        return subprocess.CompletedProcess(["prime-nb", *argv], code, out, err)

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def close(self) -> None:
        """The child ends when its input does."""
        if self.process is not None and self.process.stdin is not None:
            self.process.stdin.close()
            self.process.wait(self.timeout)
            self.process = None
