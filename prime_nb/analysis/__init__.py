"""Research helpers: compaction forensics, branching, branch comparison, context tables.

Each function takes a loaded :class:`prime_nb.Session` and returns a DataFrame (or a small
result object), so the answers can be filtered, plotted and saved like any other table.
"""

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
