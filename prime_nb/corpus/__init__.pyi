"""The package's names, for type checkers and for ``lazy_loader.attach_stub``: each is
imported from its module on first use (see ``prime_nb``'s package docstring)."""

from ._dask import (
    branches_dask as branches_dask,
    compactions_dask as compactions_dask,
    families_dask as families_dask,
    retention_dask as retention_dask,
    sessions_dask as sessions_dask,
    to_dask as to_dask,
)
from ._local import (
    corpus_branches as corpus_branches,
    corpus_compactions as corpus_compactions,
    corpus_entries as corpus_entries,
    corpus_retention as corpus_retention,
    families as families,
    load_corpus as load_corpus,
    session_entries as session_entries,
    session_row as session_row,
    to_parquet as to_parquet,
)
