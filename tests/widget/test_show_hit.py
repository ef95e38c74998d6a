"""``prime_nb.show(hit_row)``: a row of a corpus search opens its file, the hit selected."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conftest import header, msg, write_lines

import prime_nb
from prime_nb.corpus import search


def test_show_opens_the_hit_file_with_the_entry_selected(tmp_path: Path) -> None:
    for name in ("a", "b"):
        write_lines(
            tmp_path / f"{name}.jsonl",
            [
                header(),
                msg("u1", None, "user", f"hello from {name}"),
                msg(f"{name}2", "u1", "assistant", f"the needle is in {name}", 1),
                msg(f"{name}3", f"{name}2", "user", "thanks"),
            ],
        )
    hits = search(tmp_path, "needle", workers=1)
    assert hits["entry_id"].tolist() == ["a2", "b2"]
    widget = prime_nb.show(hits.iloc[1])
    assert widget.session.file == tmp_path / "b.jsonl"
    assert widget.selected_id == "b2"
    assert widget.selected["message"]["content"][0]["text"] == "the needle is in b"
    other = prime_nb.show(hits.iloc[0], selected_id="u1")  # a trait given wins
    assert other.selected_id == "u1"


def test_a_series_without_file_and_entry_id_is_no_hit(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="Session"):
        prime_nb.show(pd.Series({"path": str(tmp_path / "a.jsonl")}))
