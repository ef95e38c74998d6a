"""The README's examples run: its ``>>>`` blocks are one doctest, in order.

The tour reads the demo session as it ships; the write-back section writes to a copy of
it (in a temporary folder of the test's). A README example that names an id the demo
lacks, or prints what the code no longer prints, fails here, at its README line.
"""

from __future__ import annotations

import doctest
import re
import tempfile
from pathlib import Path

import pytest
from conftest import REPO

README = REPO / "README.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)


def readme_examples() -> str:
    """The README with every line outside its ``>>>`` Python blocks blank (so doctest's
    line numbers are the README's, and a closing fence is no expected output)."""
    text = README.read_text("utf-8")
    kept = ["" for _ in text.splitlines()]
    for block in BLOCK.finditer(text):
        if not block.group(1).lstrip().startswith(">>>"):
            continue
        first = text.count("\n", 0, block.start(1))
        for n, line in enumerate(block.group(1).splitlines()):
            kept[first + n] = line
    return "\n".join(kept) + "\n"


def test_the_readme_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    examples = readme_examples()
    assert "append_fork" in examples and "Flaky sniffer" in examples
    test = doctest.DocTestParser().get_doctest(examples, {}, "README.md", str(README), 0)
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    report: list[str] = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
    assert runner.tries > 20
    (copy,) = [p for p in tmp_path.rglob("demo-session.jsonl")]
    assert len(list(copy.parent.glob("*.jsonl"))) == 2  # the copy and its fork, nothing else
