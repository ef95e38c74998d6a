"""The package's names, for type checkers and for ``lazy_loader.attach_stub``: each is
imported from its module on first use (see ``prime_nb``'s package docstring)."""

from ._branching import (
    abandoned_share as abandoned_share,
    branch_segments as branch_segments,
    branches as branches,
    fork_points as fork_points,
)
from ._common import estimate_tokens as estimate_tokens
from ._compaction import compaction_forensics as compaction_forensics
from ._compare import (
    Comparison as Comparison,
    common_ancestor as common_ancestor,
    compare as compare,
)
from ._context_frame import context_frame as context_frame
from ._retention import compaction_retention as compaction_retention
