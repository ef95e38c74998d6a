"""Writers: append entries to a session file, or upgrade it to version 3, never damaging it.

Layer 2, above ``prime_nb.format`` and below ``prime_nb.session``: the writers work on the
file as it is on disk at the moment of the write, not on a loaded Session, so they import
nothing above the format. The Session's ``append_*`` methods are thin delegates to these.
``_building`` makes and checks entries, ``_appending`` writes them, ``_api`` holds the
public ``append_*``, ``_upgrade`` the one whole-file rewrite, ``_fork`` a branch written
as a new file (under ``Session.fork_to_file``), ``_repair`` a copy of a file with
its glued lines split.
"""

from ._api import (
    append_branch_summary,
    append_compaction,
    append_fork,
    append_label,
    append_message,
    append_session_name,
)
from ._appending import reconcile
from ._fork import write_fork
from ._repair import Repair, repair_file
from ._upgrade import upgrade_file

__all__ = [
    "Repair",
    "append_branch_summary",
    "append_compaction",
    "append_fork",
    "append_label",
    "append_message",
    "append_session_name",
    "reconcile",
    "repair_file",
    "upgrade_file",
    "write_fork",
]
