"""Session families: forks and sub-agents linked across files, spend counted once.

Layer 5, beside ``prime_nb.plots``: it reads sessions (``prime_nb.session``) and is read
by the corpus tables, the widget and the CLI.

- ``_facts``: what one file contributes (header links, entry ids, usage), picklable.
- ``_stitch``: parent resolution (path, file name, session id), fork or sub-agent,
  cycles, copied prefixes, and the roll-up; works on facts only.
- ``_family``: :func:`load_family` and :class:`Family` (tables, stitched graph, context).
- ``_table``: one row per family, for ``prime_nb.corpus.families``.
"""

from ._facts import SessionFacts, facts_of, header_facts, session_facts
from ._family import Family, family_of, load_family
from ._stitch import Stitched, stitch
from ._table import FAMILY_COLUMNS, families_frame

__all__ = [
    "FAMILY_COLUMNS",
    "Family",
    "SessionFacts",
    "Stitched",
    "facts_of",
    "families_frame",
    "family_of",
    "header_facts",
    "load_family",
    "session_facts",
    "stitch",
]
