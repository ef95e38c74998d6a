"""Hypothesis over mutated sessions (``session_fuzz``): nothing crashes, no line is lost.

Bounded for CI (a handful of examples, no deadline: the machine is shared); the long run
is ``benchmarks/fuzz_sessions.py --seconds N``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from session_fuzz import MUTATIONS, Refused, check, mutate, seeds

OPS = st.lists(
    st.tuples(
        st.integers(0, len(MUTATIONS) - 1),
        st.integers(0, 10**6),
        st.integers(0, 10**6),
    ),
    min_size=1,
    max_size=4,
)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)
@given(seed=st.sampled_from(sorted(seeds())), ops=OPS, torn=st.booleans())
# found by the long run: a spec tool call merged into an assistant turn whose content was odd
@example(seed="synthetic-v3-spec", ops=[(9, 176532, 871139), (1, 604557, 492414)], torn=False)
# found by the long run once it checked families: a childUsage field past int64
@example(
    seed="synthetic-v2-spec",
    ops=[
        (2, 433117, 344358),
        (8, 686071, 213147),
        (6, 484835, 43650),
        (4, 62348, 708331),
        (7, 111910, 574461),
        (2, 625352, 207147),
    ],
    torn=False,
)
def test_mutated_sessions_load_and_lose_no_line(
    seed: str, ops: list[tuple[int, int, int]], torn: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "case.jsonl"
        path.write_bytes(mutate(seeds()[seed], ops, torn))
        try:
            dropped = check(path, Path(tmp))
        except Refused:
            return  # no header left: load() refuses such a file, by design
        assert dropped == [], f"lines {dropped} are neither entries nor problems"


@pytest.mark.parametrize("seed", sorted(seeds()))
def test_every_seed_passes_unmutated(seed: str, tmp_path: Path) -> None:
    path = tmp_path / "seed.jsonl"
    path.write_bytes(seeds()[seed])
    assert check(path, tmp_path) == []
