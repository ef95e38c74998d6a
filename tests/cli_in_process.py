"""``prime-nb`` run in the test's own interpreter, for tests about what it prints.

A subprocess costs a second of CPU to import prime_nb before the command even starts;
tests that check what a command prints and writes, not how the process behaves (exit on
a signal, a hang bounded by a timeout, the console script), run :func:`run_cli` instead:
the same ``main`` the console script calls, with stdout and stderr captured as a
subprocess's would be (warnings written to stderr as Python prints them, each once per
place, as in a fresh process). At least one test per command still runs it as a
process (tests/cli/test_cli.py, tests/redact/test_redact_corpus.py).
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import warnings
from pathlib import Path

from prime_nb.cli import main


def _stream() -> io.TextIOWrapper:
    """A text stream with a ``buffer`` (commands that write bytes use it), UTF-8."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="\n", write_through=True)


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    raw: bytes = stream.buffer.getvalue()  # type: ignore[attr-defined]
    return raw.decode("utf-8", "replace").replace("\r\n", "\n")


def run_cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """What ``subprocess.run([python, "-m", "prime_nb.cli", *args], capture_output=True,
    text=True)`` returns, from ``main`` in this process."""
    argv = [str(arg) for arg in args]
    out, err = _stream(), _stream()
    with contextlib.ExitStack() as stack:
        if cwd is not None:
            stack.enter_context(contextlib.chdir(cwd))
        caught = stack.enter_context(warnings.catch_warnings(record=True))
        warnings.resetwarnings()  # a fresh process's filters: each once per place, ...
        warnings.simplefilter("default")
        quiet = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)
        for category in quiet:  # ... but these, which it leaves out
            warnings.simplefilter("ignore", category)
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        try:
            code = main(argv)
        except SystemExit as stop:  # argparse's usage errors and --help
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
            if isinstance(stop.code, str):
                print(stop.code, file=err)
        for warning in caught:
            err.write(
                warnings.formatwarning(
                    warning.message, warning.category, warning.filename, warning.lineno
                )
            )
    return subprocess.CompletedProcess(["prime-nb", *argv], code, _text(out), _text(err))
