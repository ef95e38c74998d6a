"""The scaling harness (benchmarks/bench_scaling.py) runs and reports, on tiny sizes.

Only that it runs every operation on every shape and prints its tables: its figures are
timings, which are never asserted in tests (they live in benchmarks/README.md).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from sessiongen import SHAPES

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_scaling.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_scaling", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_scaling"] = module
    spec.loader.exec_module(module)
    return module


def test_quick_mode_reports_every_operation_on_every_shape(bench: ModuleType) -> None:
    lines: list[str] = []
    status = bench.main(["--quick", "--base", "8", "--repeat", "1"], out=lines.append)
    text = "\n".join(lines)
    assert lines[0].startswith("ran on: ")
    assert "base 8 entries, sizes x1/2/4/8, best of 1, cpu seconds" in text
    for shape in SHAPES:
        assert f"== {shape}: 8, 16, 32, 64 entries" in text
    summary = lines[lines.index(next(x for x in lines if x.startswith("== exponents"))) :]
    header = summary[1].split()
    assert header[1:] == list(SHAPES)
    verdicts = re.compile(r"^-?\d+\.\d\d (PASS|FAIL|fast)$")
    for op in bench.ALL_OPERATIONS:
        row = next(x for x in summary if x.split()[0] == op)
        cells = re.findall(r"-?\d+\.\d\d \w+", row)
        assert len(cells) == len(SHAPES), row
        assert all(verdicts.match(c) for c in cells), row
    result = lines[-1]
    assert result.startswith("RESULT: ")
    assert status == (0 if result == "RESULT: PASS" else 1)


def test_the_fit_finds_the_exponent(bench: ModuleType) -> None:
    sizes = [100, 200, 400, 800]
    assert bench.fit(sizes, [n * 1e-6 for n in sizes]) == pytest.approx(1.0)
    assert bench.fit(sizes, [n * n * 1e-9 for n in sizes]) == pytest.approx(2.0)


def test_unknown_names_are_refused(bench: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit, match=r"^2$"):  # argparse exits 2 on bad names
        bench.main(["--quick", "--shapes", "nope"], out=lambda _: None)
    assert "unknown shape or operation: nope" in capsys.readouterr().err
