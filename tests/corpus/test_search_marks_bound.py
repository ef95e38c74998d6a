"""The raw prefilter's marks stay a few per line, whatever a line holds.

A folded query with an i, k or s must parse every line with a non-ASCII byte (Python
folds them to dotted and dotless I, the Kelvin sign, the long s): a mark per such byte
made a 100 MB text of non-ASCII characters an 800 MB array. ``bench_hostile_files.py
--marks`` measures the peak memory of that search.
"""

from __future__ import annotations

from pathlib import Path

from conftest import header, msg, write_lines

from prime_nb.corpus._search_match import Query, search_file


def test_a_text_of_non_ascii_bytes_makes_a_mark_a_line() -> None:
    line = ("é" * 200_000 + "\n").encode()
    data = line * 3 + b"ascii only\n"
    raw = Query("ñkiwi").raw_filter
    assert raw is not None and raw.wide
    assert sorted(raw.marks(data).tolist()) == [0, len(line), 2 * len(line)]


def test_the_hits_are_those_of_python_on_folded_non_ascii(tmp_path: Path) -> None:
    """The Kelvin sign and a dotted I deep in long non-ASCII lines are still found."""
    path = tmp_path / "s.jsonl"
    texts = ["é" * 5000 + "\u212aiwi", "ü" * 5000 + "K\u0130WI", "é" * 5000, "kiwi"]
    lines = [header(id="s")]
    lines += [msg(f"u{k}", None, "user", text, k + 1) for k, text in enumerate(texts)]
    write_lines(path, lines)
    found = search_file(str(path), Query("kiwi"))
    assert found.error is None
    want = [k for k, text in enumerate(texts) if Query("kiwi").first_match(text)]
    assert want == [0, 1, 3]
    assert [int(hit.entry_id[1:]) for hit in found.hits] == want
