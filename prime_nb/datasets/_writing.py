"""Write a :func:`from_sessions` table to Parquet or JSONL, batch by batch with progress.

Parquet keeps the table as it is (messages as JSON text, the schema and its metadata).
JSONL writes one object per row with the message columns nested as arrays, the shape
chat fine-tuning tools read (``{"messages": [...], ...}``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from .._names import shown_text
from ..session import to_json
from ._from_sessions import JSON_COLUMNS, _pyarrow

#: rows per written batch (a row can hold a whole conversation)
BATCH_ROWS = 256
SUFFIXES = {".parquet": "parquet", ".jsonl": "jsonl"}


def _table(data: Any) -> Any:
    """A pyarrow Table from a Table or a Hugging Face Dataset."""
    pa = _pyarrow()
    if isinstance(data, pa.Table):
        return data
    if hasattr(data, "with_format"):  # a datasets.Dataset
        return data.with_format("arrow")[:]
    raise TypeError(
        f"write_dataset takes a pyarrow Table or a datasets.Dataset, not {type(data).__name__}"
    )


def write_dataset(data: Any, path: str | Path, *, progress: bool = True) -> Path:
    """Write ``data`` (from :func:`from_sessions`) to ``path``; the suffix picks the
    format: ``.parquet`` or ``.jsonl``. Returns the path written.

    Raises ValueError for another suffix (before writing anything).
    """
    target = Path(path).expanduser()
    kind = SUFFIXES.get(target.suffix.lower())
    if kind is None:
        raise ValueError(
            shown_text(
                f"{target}: the file name must end in .parquet or .jsonl, to say which to write"
            )
        )
    table = _table(data)
    batches = table.to_batches(max_chunksize=BATCH_ROWS)
    bar = tqdm(total=table.num_rows, desc=target.name, unit="row", disable=not progress)
    with bar:
        if kind == "parquet":
            import pyarrow.parquet as pq

            with pq.ParquetWriter(target, table.schema) as writer:
                for batch in batches:
                    writer.write_batch(batch)
                    bar.update(batch.num_rows)
        else:
            with open(target, "wb") as fh:
                for batch in batches:
                    for row in batch.to_pylist():
                        for column in JSON_COLUMNS:
                            if isinstance(row.get(column), str):
                                row[column] = json.loads(row[column])
                        fh.write(to_json(row).encode() + b"\n")
                    bar.update(batch.num_rows)
    return target
