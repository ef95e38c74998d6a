"""Session files for tests, benchmarks, notebooks and the demo: generated, deterministic.

Why apart from ``prime_nb``: these generators write test data; no user of the library
needs them, and inside the package they were an eighth of its lines. They sit at the
repository's root so that the tests, the benchmarks, the notebooks and the docs' scripts
import them alike (the repository's root is on the path of a checkout installed with
``pip install -e .``, of pytest, and of the scripts, which add it).

- :func:`synthetic_entries` / :func:`synthetic_session`: small files holding every entry
  type, for every version (1-3) and both dialects.
- :func:`write_large_session` / :func:`large_session_entries`: big branchy files, streamed.
- :func:`shape_entries` / :func:`write_shape`: the shapes scaling checks run on
  (:data:`SHAPES`: linear chat, branchy, chained compactions, comb, reverse siblings,
  orphans).
- :func:`synthetic_family`: a fork of a fork and a sub-agent of a sub-agent, in folders.
- :func:`write_jsonl`: entries as the agent writes them, a line each.
- :func:`use_local_tokenizer`: offline, the tokenizer Inspect counts with (Scout scans).
- :func:`main` (``python -m sessiongen``, ``--help`` lists its commands): write a shape,
  a big session, a small one or a family to a path; ``demo`` rewrites the demo session
  that ``prime_nb.datasets.demo_session_path()`` ships, from the script in ``_demo``.
"""

from __future__ import annotations

from ._cli import main
from ._core import write_jsonl
from ._family import synthetic_family
from ._large import large_session_entries, write_large_session
from ._shapes import SHAPES, shape_entries, write_shape
from ._small import synthetic_entries, synthetic_session
from ._tokenizer import use_local_tokenizer

__all__ = [
    "SHAPES",
    "large_session_entries",
    "main",
    "shape_entries",
    "synthetic_entries",
    "synthetic_family",
    "synthetic_session",
    "use_local_tokenizer",
    "write_jsonl",
    "write_large_session",
    "write_shape",
]
