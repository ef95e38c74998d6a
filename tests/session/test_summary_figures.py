"""``Session.summary``'s token figures and cost, on the demo session: the parts the
agent's footer shows, a total that says what it sums, a cost without float noise."""

from __future__ import annotations

import prime_nb
from prime_nb.datasets import demo_session_path


def test_the_summary_gives_the_four_token_parts_and_their_total() -> None:
    session = prime_nb.load(demo_session_path())
    summary, entries = session.summary(), session.entries
    parts = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
    assert [summary[key] for key in parts] == [int(entries[key].sum()) for key in parts]
    # the demo's turns give their totals, each the sum of its four parts
    assert summary["tokens"] == sum(summary[key] for key in parts)
    # the cached context read on every turn is most of the total
    assert summary["cache_read_tokens"] > summary["tokens"] / 2


def test_the_summary_cost_shows_no_float_noise() -> None:
    summary = prime_nb.load(demo_session_path()).summary()
    assert repr(summary["cost"]) == "0.4724716"
    assert f"{summary['cost']:.4f}" == "0.4725"
