"""Fixtures of the corpus tests: a local Dask cluster for the tests of the Dask tables."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from distributed import Client, LocalCluster


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    """Two single-threaded worker processes, as a laptop's cluster would have."""
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as dask_client,
    ):
        yield dask_client
