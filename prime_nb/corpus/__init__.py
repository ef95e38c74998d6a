"""Many sessions at once: one row per session, corpus tables, and the same on Dask.

Top layer beside ``prime_nb.widget``: it loads sessions (``prime_nb.session``) and runs
the research helpers (``prime_nb.analysis``) per file, in parallel processes; its
``families`` table stitches files together with ``prime_nb.family``.

- ``_local``: :func:`load_corpus` and the corpus tables, in local processes with tqdm.
- ``_listing``: the files a call reads (a folder, or a list of files and folders).
- ``_dask``: the same tables on Dask (an optional extra, imported on first use).
- ``_summary``, ``_research_rows``, ``_work``: the summary pass of one file and the rows
  it gives each table; ``_skim``: the files whose bytes rule out a compaction, which the
  compactions table alone leaves unparsed.
- ``_runner``: files in guided batches over a process pool started for the call;
  ``_heap``: a Dask worker's heap while it reads.
- ``_cache``, ``_state``: the Parquet cache and the state that resumes a grown file.
"""

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
