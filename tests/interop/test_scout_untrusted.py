"""Transcripts written by ``to_scout`` are marked untrusted (``trust_content=False``), so
Scout's viewer shows their text as plain text. Left unmarked, Scout takes a transcript
as trusted and renders its Markdown: a session's ``[text](url)`` and ``![alt](url)``
became live links in the viewer (14 links to an attacker's server from one session,
checked in Chromium by ``benchmarks/bench_hostile_viewers.py``; HTML markup was already
shown as text)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
from conftest import header, msg, write_lines

from prime_nb.interop import to_scout

LINK = "[click](http://127.0.0.1:9/link) ![img](http://127.0.0.1:9/img)"


def test_every_transcript_is_marked_untrusted(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "s.jsonl",
        [header(), msg("u1", None, "user", LINK), msg("a1", "u1", "assistant", LINK, 1)],
    )
    written = to_scout([path], tmp_path / "db", leaves="all")
    (parquet,) = (tmp_path / "db").glob("*.parquet")
    table = pq.read_table(parquet, columns=["transcript_id", "trust_content"]).to_pylist()
    assert sorted(row["transcript_id"] for row in table) == sorted(written)
    assert [row["trust_content"] for row in table] == [False] * len(written)
