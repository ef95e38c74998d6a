"""prime_nb: explore and edit Prime Agent session files from notebooks."""

from typing import TYPE_CHECKING, Any

from ._version import __version__ as __version__
from .errors import (
    EntryLostError,
    EntryNotFoundError,
    InvalidEntryError,
    SessionFormatError,
    SessionWriteError,
    TornLineWarning,
    UpgradeRequiredError,
)
from .family import Family, load_family
from .format import Problem, RawEntry, iter_entries, migrate
from .redact import redact
from .session import Context, Session, fork_to_file, list_sessions, load, session_dir
from .write import (
    append_branch_summary,
    append_compaction,
    append_fork,
    append_label,
    append_message,
    append_session_name,
    reconcile,
    upgrade_file,
)

__all__ = [
    "Context",
    "EntryLostError",
    "EntryNotFoundError",
    "Family",
    "InvalidEntryError",
    "Problem",
    "RawEntry",
    "Session",
    "SessionFormatError",
    "SessionWriteError",
    "TornLineWarning",
    "UpgradeRequiredError",
    "append_branch_summary",
    "append_compaction",
    "append_fork",
    "append_label",
    "append_message",
    "append_session_name",
    "fork_to_file",
    "iter_entries",
    "list_sessions",
    "load",
    "load_family",
    "migrate",
    "reconcile",
    "redact",
    "session_dir",
    "upgrade_file",
]

# The session widget (anywidget, ipywidgets) and the HTML export load on first use.
_LAZY = frozenset({"FamilyWidget", "SessionWidget", "show", "show_family", "export_html", "link"})
__all__ += ["FamilyWidget", "SessionWidget", "export_html", "link", "show", "show_family"]

if TYPE_CHECKING:
    from .widget import FamilyWidget, SessionWidget, export_html, link, show, show_family


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'prime_nb' has no attribute {name!r}")
    from . import widget

    return getattr(widget, name)
