"""The corpus workers in a real notebook kernel, interrupted as Jupyter interrupts it.

Jupyter interrupts a kernel by signalling its whole process group, so the corpus's
workers are signalled too. The interrupted call must stop, and the next corpus call
must work all the same.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.manager import start_new_kernel
from research_sessions import branchy, compacted


class Kernel:
    """A python3 kernel of this interpreter, and a way to run code in it."""

    def __init__(self) -> None:
        self.manager, self.client = start_new_kernel(kernel_name="python3")

    def start(self, code: str) -> str:
        msg_id: str = self.client.execute(code)
        return msg_id

    def _messages(self, msg_id: str, timeout: float) -> Iterator[tuple[str, dict[str, Any]]]:
        """The kind and content of each message the cell ``msg_id`` sends, until
        ``timeout``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg: dict[str, Any] = self.client.get_iopub_msg(timeout=timeout)
            if msg["parent_header"].get("msg_id") == msg_id:
                yield msg["msg_type"], msg["content"]

    def wait(self, msg_id: str, timeout: float = 120) -> list[str]:
        """What the cell printed, returned or raised, once the kernel is idle again."""
        out: list[str] = []
        for kind, content in self._messages(msg_id, timeout):
            if kind == "error":
                out.append(f"{content['ename']}: {content['evalue']}")
            elif kind == "execute_result":
                out.append(content["data"]["text/plain"])
            elif kind == "status" and content["execution_state"] == "idle":
                return out
        raise TimeoutError(f"the cell did not finish in {timeout} s: {out}")

    def printed(self, msg_id: str, text: str, timeout: float = 120) -> None:
        """Return once the running cell has printed ``text``: it has reached the line
        after its ``print``. Fails if the cell ends first."""
        for kind, content in self._messages(msg_id, timeout):
            if kind == "stream" and text in content["text"]:
                return
            assert not (kind == "status" and content["execution_state"] == "idle"), (
                f"the cell ended before it printed {text!r}"
            )
        raise TimeoutError(f"the cell did not print {text!r} in {timeout} s")

    def run(self, code: str) -> list[str]:
        return self.wait(self.start(code))

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


@pytest.fixture
def kernel() -> Iterator[Kernel]:
    started = Kernel()
    try:
        yield started
    finally:
        started.close()


def test_an_interrupted_cell_leaves_the_next_corpus_call_working(
    kernel: Kernel, tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for k in range(6):
        (branchy if k % 2 else compacted)(corpus / f"s{k}.jsonl")
    call = f"len(load_corpus({str(corpus)!r}, workers=2, progress=False))"
    assert kernel.run(f"from prime_nb.corpus import load_corpus\n{call}") == ["6"]
    # another cell, interrupted
    sleeping = kernel.start("import time\nprint('asleep', flush=True)\ntime.sleep(60)")
    kernel.printed(sleeping, "asleep")
    kernel.manager.interrupt_kernel()
    assert any("KeyboardInterrupt" in line for line in kernel.wait(sleeping))
    assert kernel.run(call) == ["6"]
    # a corpus call interrupted while its workers read (each file made slow; a worker
    # that starts one leaves a file, and the interrupt waits for it)
    reading = tmp_path / "reading"
    slow = kernel.start(
        "import pathlib, time\n"
        "import prime_nb.corpus._local as local\n"
        "real = local.summarise\n"
        "def slow(path, parts):\n"
        f"    pathlib.Path({str(reading)!r}).touch()\n"
        "    time.sleep(5)\n"
        "    return real(path, parts)\n"
        "local.summarise = slow\n"
        "try:\n"
        f"    {call}\n"
        "finally:\n"
        "    local.summarise = real\n"
    )
    deadline = time.monotonic() + 120
    while not reading.exists():
        assert time.monotonic() < deadline, "no corpus worker began reading"
        time.sleep(0.01)
    began = time.monotonic()
    kernel.manager.interrupt_kernel()
    assert any("KeyboardInterrupt" in line for line in kernel.wait(slow))
    assert time.monotonic() - began < 10  # not every slow file waited for
    assert kernel.run(call) == ["6"]  # and the call after it, on new workers
