"""The README's short tour runs as written: each ``>>>`` line and the output it shows.

Why a test of its own: the tour is the first code a user copies, and the job that
checks the lowest supported versions runs it (``.ci/test-floors``), so a figure or a
repr that a version of pandas prints otherwise is caught there.
"""

from __future__ import annotations

import doctest
import re

from conftest import REPO

#: the first Python block after the tour's heading
TOUR = re.compile(r"^## A short tour\n.*?^```python\n(.*?)^```", re.M | re.S)


def test_the_readme_tour_runs_as_written() -> None:
    found = TOUR.search((REPO / "README.md").read_text("utf-8"))
    assert found is not None, "README.md has no '## A short tour' with a python block"
    test = doctest.DocTestParser().get_doctest(found.group(1), {}, "README tour", "README.md", 0)
    assert len(test.examples) >= 8
    flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    runner = doctest.DocTestRunner(optionflags=flags)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
