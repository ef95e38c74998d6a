"""A corpus cache whose records still match their files but whose rows were changed
(hand-edited, damaged, forged): a value no column of its table takes counts as damage,
and the file is read again, so the tables are those of an uncached read.

Found by ``benchmarks/fuzz_caches.py``: a dict where a count goes, or a count past 64
bits, made ``load_corpus`` and ``corpus_branches`` raise in their dtype conversion.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from session_matrix import shared_file

from prime_nb.corpus import corpus_branches, corpus_compactions, load_corpus

#: a session with compactions and forks: rows in every cached part
SESSION = "comp-on2-off0-forks1-v3-prime"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("corpus")
    (folder / "s.jsonl").write_bytes(shared_file(SESSION).read_bytes())
    return folder


def forged(cache: Path, column: str, edit: Callable[[Any], None]) -> None:
    """The cache file with ``edit`` made to the JSON of ``column`` of its one record."""
    (file,) = cache.glob("corpus-*.parquet")
    table = pq.read_table(file)
    value = json.loads(table.column(column)[0].as_py())
    edit(value)
    data = [json.dumps(value).encode()]  # orjson refuses counts past 64 bits
    index = table.schema.get_field_index(column)
    table = table.set_column(index, table.schema.field(index), [data])
    pq.write_table(table, file)


def _set(key: str, value: Any) -> Callable[[Any], None]:
    def edit(held: Any) -> None:
        for row in held if isinstance(held, list) else [held]:
            row[key] = value

    return edit


@pytest.mark.parametrize(
    ("table", "column", "edit"),
    [
        (load_corpus, "row", _set("entries", {"a": 1})),
        (load_corpus, "row", _set("tokens", 2**70)),
        (load_corpus, "row", _set("id", ["not", "text"])),
        (corpus_branches, "branches", _set("entries", None)),
        (corpus_branches, "branches", _set("cost", {"x": 1})),
        (corpus_compactions, "compactions", _set("summarised_ids", [1, 2])),
        (corpus_compactions, "compactions", _set("from_hook", "yes")),
    ],
)
def test_a_forged_row_is_read_again(
    corpus: Path,
    tmp_path: Path,
    table: Callable[..., pd.DataFrame],
    column: str,
    edit: Callable[[Any], None],
) -> None:
    expected = table(corpus, workers=1, progress=False)
    table(corpus, workers=1, progress=False, cache=tmp_path)
    forged(tmp_path, column, edit)
    got = table(corpus, workers=1, progress=False, cache=tmp_path)
    pd.testing.assert_frame_equal(got, expected)


@pytest.mark.parametrize(("column", "value"), [("offset", None), ("inode", None)])
def test_a_record_with_a_null_in_its_key_or_offset_is_read_again(
    tmp_path: Path, column: str, value: Any
) -> None:
    """A null where the record's stat key or offset goes, met when the file has grown
    since (the record is looked at to resume it): the cache is read as damaged. A null
    offset raised TypeError (``benchmarks/fuzz_caches.py`` found it); a null inode was
    already harmless, and is pinned here with it."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    session = folder / "s.jsonl"
    session.write_bytes(shared_file(SESSION).read_bytes())
    cache = tmp_path / "cache"
    load_corpus(folder, workers=1, progress=False, cache=cache)
    (file,) = cache.glob("corpus-*.parquet")
    table = pq.read_table(file)
    index = table.schema.get_field_index(column)
    field = table.schema.field(index)
    pq.write_table(table.set_column(index, field, pa.array([value], field.type)), file)
    with session.open("a") as grown:
        grown.write(session.read_text().splitlines()[-1] + "\n")
    got = load_corpus(folder, workers=1, progress=False, cache=cache)
    pd.testing.assert_frame_equal(got, load_corpus(folder, workers=1, progress=False))
