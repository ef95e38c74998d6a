"""Many sessions at once: one row per session, corpus tables, and the same on Dask.

Top layer beside ``prime_nb.widget``: it loads sessions (``prime_nb.session``) and runs
the research helpers (``prime_nb.analysis``) per file, in parallel processes; its
``families`` table stitches files together with ``prime_nb.family``.

- ``_local``: :func:`load_corpus` and the corpus tables, in local processes with tqdm.
- ``_listing``: the files a call reads (a folder, or a list of files and folders).
- ``_dask``: the same tables on Dask (an optional extra, imported on first use).
- ``_work``: the summary pass of one file and the rows it gives each table; ``_skim``:
  the files whose bytes rule out a compaction.
- ``_runner``: a process pool started for the call; ``_heap``: a Dask worker's heap.
- ``_search``: :func:`search`, the hits of a query in every session's texts;
  ``_search_index``: its index of Arrow columns (``cache=``), with its manifest
  (``_search_manifest``) and segments, each checked whole before use
  (``_search_segment``).
- ``_cache``, ``_cache_file``: the Parquet cache, with the read that resumes a grown file;
  ``_cache_rows``: the check that a cached row is of its columns' kinds (``_dtypes``:
  the tables' dtypes).
"""

from typing import Any as _Any

from ._local import (
    corpus_branches,
    corpus_compactions,
    corpus_entries,
    corpus_retention,
    families,
    load_corpus,
    session_entries,
    session_row,
    to_parquet,
)
from ._search import search

__all__ = [
    "branches_dask",
    "compactions_dask",
    "corpus_branches",
    "corpus_compactions",
    "corpus_entries",
    "corpus_retention",
    "families",
    "families_dask",
    "load_corpus",
    "retention_dask",
    "search",
    "session_entries",
    "session_row",
    "sessions_dask",
    "to_dask",
    "to_parquet",
]


def __getattr__(name: str) -> _Any:
    """A Dask table's function, imported with Dask when first asked for (PEP 562)."""
    if name in __all__ and name.endswith("dask"):  # Dask is an optional extra
        from . import _dask

        return getattr(_dask, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public names, loaded or not (what a notebook's completion lists)."""
    return sorted(__all__)
