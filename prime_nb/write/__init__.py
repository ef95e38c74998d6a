"""Writers: append entries to a session file, or upgrade it to version 3, never damaging it.

Layer 2, above ``prime_nb.format`` and below ``prime_nb.session``: the writers work on the
file as it is on disk at the moment of the write, not on a loaded Session, so they import
nothing above the format. The Session's ``append_*`` methods are thin delegates to these.

- ``_building``: new entries (ids, timestamps, checks) serialised in the file's dialect.
- ``_appending``: one whole line per entry on an O_APPEND descriptor, under a lock, with
  torn tails, concurrent writers and files renamed over by the agent handled.
- ``_api``: the public ``append_*`` functions.
- ``_upgrade``: the one whole-file rewrite (v1/v2 to v3, with a backup).
- ``_fork``: :func:`write_fork`, a branch the Session read written as a new file (the
  writer under ``Session.fork_to_file``).
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
from ._upgrade import upgrade_file

__all__ = [
    "append_branch_summary",
    "append_compaction",
    "append_fork",
    "append_label",
    "append_message",
    "append_session_name",
    "reconcile",
    "upgrade_file",
    "write_fork",
]
