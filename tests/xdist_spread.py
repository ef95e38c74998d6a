"""How ``pytest -n 2 --dist loadfile`` spreads this suite over its workers.

pytest-xdist's ``loadfile`` hands out whole test files (a module's fixtures, a browser, a
Jupyter server, a 100k-entry export, are made once), the files with the most tests
first. Here that order left the slow browser files, which hold few tests, for the end,
each on one worker while the other sat idle. :class:`SpreadScheduling` keeps files as
the units but hands out the browser files first, one after another on each worker (they
share one Chromium while they do), and the costly ones first (``COSTS``, seconds on one
core, from ``--durations=0``), and splits the session-matrix files, whose tests share nothing
costly, into one unit per test, last, to even out the two workers' ends. The files that
use the run's JupyterLab (``tests/browser/servers.shared_lab``, one per worker) go out
together as one unit (``GROUPS``), so that one worker starts it, not both; so do the
files that import Inspect Scout, so that one worker pays its import, and the files that
use the run's Dask cluster, so that one worker starts it.

The tests run as they would with ``loadfile``: only the order they are handed out in
and which worker runs a matrix case change. ``COSTS`` only orders; a file missing from
it counts a tenth of a second per test.
"""

from __future__ import annotations

from collections import OrderedDict

from xdist.scheduler import LoadScopeScheduling

#: files whose tests are independent cases (no costly module fixture): one unit per test
SPLIT = frozenset(
    {
        "tests/test_public_matrix.py",
        "tests/datasets/test_from_sessions.py",
        "tests/session/test_index.py",
        "tests/session/test_refresh_matrix.py",
    }
)

#: files that go to one worker together, as one unit named by the value
LAB = "tests/browser: the files that use the run's JupyterLab"
GROUPS = {
    file: LAB
    for file in (
        "tests/browser/test_fit_jupyterlab_browser.py",
        "tests/browser/test_widget_jupyterlab.py",
        "tests/browser/test_family_jupyterlab.py",
        "tests/browser/test_widget_notebook7.py",
        "tests/browser/test_widget_offline.py",
    )
}
#: files that import Inspect Scout (seconds of import on each worker that runs one)
SCOUT = "tests/interop: the files that import Inspect Scout"
GROUPS.update(
    {
        file: SCOUT
        for file in (
            "tests/interop/test_scout.py",
            "tests/interop/test_scout_untrusted.py",
            "tests/interop/test_names_not_utf8.py",
            "tests/interop/test_folder_links_readers.py",
            "tests/cli/test_cli_convert.py",
        )
    }
)

#: files that use the run's Dask cluster (tests/conftest.py ``dask_cluster``, one per
#: worker that asks): one worker starts it
DASK = "tests/corpus: the files that use the Dask cluster"
GROUPS.update(
    {
        file: DASK
        for file in (
            "tests/corpus/test_corpus_dask.py",
            "tests/corpus/test_corpus_retention.py",
            "tests/corpus/test_families.py",
        )
    }
)

#: the files that take longest, and the split files' costliest tests, in seconds on one
#: idle core (``--durations=0`` summed per file, or of the test); only the order they
#: start in follows from them
COSTS: dict[str, float] = {
    LAB: 90,
    "tests/browser/test_whole_session_browser.py": 46,
    "tests/browser/test_transcript_browser.py": 10,
    "tests/redact/test_redact_corpus.py": 19,
    "tests/browser/test_branches_fit_browser.py": 20,
    "tests/browser/test_lod_browser.py": 14,
    "tests/redact/test_rule_needs.py": 18,
    "tests/corpus/test_corpus_search.py": 17,
    "tests/browser/test_export_browser.py": 30,
    SCOUT: 20,
    DASK: 7,
    "tests/browser/test_static_renders.py": 10,
    "tests/browser/test_widget_marimo.py": 15,
    "tests/notebooks/test_notebooks.py": 25,
    "tests/cli/test_cli.py": 9,
    "tests/redact/test_redact.py": 11,
    "tests/cli/test_cli_redact.py": 3,
    "tests/corpus/test_summary.py": 11,
    "tests/test_bench_scaling.py": 10,
    "tests/analysis/test_schemas.py": 10,
    "tests/session/test_messages.py": 10,
    "tests/corpus/test_search_index_damage.py": 9,
    "tests/browser/test_demo_browser.py": 11,
    "tests/browser/test_tree_view_browser.py": 9,
    "tests/browser/test_figures_browser.py": 7,
    "tests/analysis/test_compare_runs.py": 9,
    "tests/interop/test_otel_phoenix.py": 28,
    "tests/interop/test_atif_harbor.py": 4,
    # the split files' costliest cases (each handed out before the others of its kind)
    "tests/datasets/test_from_sessions.py::test_every_unit_over_the_matrix"
    "[fixture-large-session.jsonl]": 5,
    "tests/test_public_matrix.py::test_corpus_functions_over_the_whole_matrix": 4,
    "tests/datasets/test_from_sessions.py::test_every_unit_over_the_matrix"
    "[fixture-before-compaction.jsonl]": 2,
    "tests/session/test_index.py::test_every_entry_of_the_matrix[fixture-large-session.jsonl]": 2,
    "tests/test_public_matrix.py::test_every_public_function_survives"
    "[fixture-before-compaction.jsonl]": 2,
}

#: a file missing from COSTS: seconds per test
PER_TEST = 0.1

#: the browser files go out before the others, so that each worker runs its share of
#: them one after another, on the one Chromium they share (tests/browser/browser.py)
BROWSER = "tests/browser"


def unit_of(nodeid: str) -> str:
    """A test's unit of work: its file, its file's group, or itself in a ``SPLIT`` file."""
    file = nodeid.split("::", 1)[0]
    return nodeid if file in SPLIT else GROUPS.get(file, file)


def ordered_units(collection: list[str]) -> OrderedDict[str, dict[str, bool]]:
    """The units of ``collection``: the browser files first, then the others, each
    costliest first; the split files' tests last (each a small unit that fills a
    worker's idle end), those ``COSTS`` names first, costliest first, then the others in
    collection order: a costly case handed out last would leave one worker idle while
    the other runs it."""
    units: dict[str, dict[str, bool]] = {}
    for nodeid in collection:
        units.setdefault(unit_of(nodeid), {})[nodeid] = False

    def cost(item: tuple[str, dict[str, bool]]) -> tuple[bool, bool, float]:
        unit, tests = item
        split = unit.split("::", 1)[0] in SPLIT
        browser = unit.startswith(BROWSER)
        default = 0.0 if split else PER_TEST * len(tests)
        return (split, not browser, -COSTS.get(unit, default))

    return OrderedDict(sorted(units.items(), key=cost))


class SpreadScheduling(LoadScopeScheduling):  # type: ignore[misc]  # xdist: untyped to mypy
    """``loadfile`` with the units of :func:`ordered_units`."""

    def _split_scope(self, nodeid: str) -> str:
        return unit_of(nodeid)

    def schedule(self) -> None:
        if self.collection is not None:  # a node added later: as xdist does
            super().schedule()
            return
        if not self._check_nodes_have_same_collection():
            self.log("**Different tests collected, aborting run**")
            return
        self.collection: list[str] = list(next(iter(self.registered_collections.values())))
        if not self.collection:
            return
        self.workqueue = ordered_units(self.collection)
        for _ in range(max(0, len(self.nodes) - len(self.workqueue))):
            unused, _ = self.assigned_work.popitem()
            unused.shutdown()
        for node in self.nodes:
            self._assign_work_unit(node)
        for node in self.nodes:
            self._reschedule(node)
        if not self.workqueue:
            for node in self.nodes:
                node.shutdown()
