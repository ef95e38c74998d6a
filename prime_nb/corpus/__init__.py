"""Many sessions at once: one row per session, corpus tables, and the same on Dask.

Top layer beside ``prime_nb.widget``: it loads sessions (``prime_nb.session``) and runs
the research helpers (``prime_nb.analysis``) per file, in parallel processes; its
``families`` table stitches files together with ``prime_nb.family``.

- ``_local``: :func:`load_corpus` and the corpus tables, in local processes with tqdm.
- ``_dask``: the same tables on Dask (an optional extra, imported on first use).
- ``_summary``, ``_research_rows``, ``_work``: the summary pass of one file and the rows
  it gives each table; ``_skim``: the files whose bytes rule out a compaction, which the
  compactions table alone leaves unparsed.
- ``_runner``, ``_pool``: files in guided batches over worker processes, kept warm
  between calls.
- ``_cache``, ``_state``: the Parquet cache and the state that resumes a grown file.
"""

from typing import Any

from ._local import (
    corpus_branches,
    corpus_compactions,
    corpus_entries,
    families,
    load_corpus,
    session_entries,
    session_row,
    to_parquet,
)

__all__ = [
    "branches_dask",
    "compactions_dask",
    "corpus_branches",
    "corpus_compactions",
    "corpus_entries",
    "families",
    "families_dask",
    "load_corpus",
    "session_entries",
    "session_row",
    "sessions_dask",
    "to_dask",
    "to_parquet",
]

_DASK = ("to_dask", "sessions_dask", "compactions_dask", "branches_dask", "families_dask")


def __getattr__(name: str) -> Any:
    """Dask entry points, imported on first use so that dask stays an optional extra."""
    if name in _DASK:
        from . import _dask

        return getattr(_dask, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
