"""prime_nb: explore and edit Prime Agent session files from notebooks."""

from typing import TYPE_CHECKING, Any

from .context import Context
from .discovery import list_sessions, session_dir
from .errors import (
    EntryLostError,
    EntryNotFoundError,
    InvalidEntryError,
    SessionFormatError,
    SessionWriteError,
    TornLineWarning,
    UpgradeRequiredError,
)
from .migrating import migrate
from .reading import Problem, RawEntry, iter_entries
from .session import Session, load
from .write import (
    append_branch_summary,
    append_compaction,
    append_fork,
    append_label,
    append_message,
    append_session_name,
    fork_to_file,
    reconcile,
    upgrade_file,
)

__version__ = "0.1.0"

__all__ = [
    "Context",
    "EntryLostError",
    "EntryNotFoundError",
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
    "migrate",
    "reconcile",
    "session_dir",
    "upgrade_file",
]

# The session widget (anywidget, ipywidgets) and the HTML export load on first use.
_LAZY = {"SessionWidget": "widget", "show": "widget", "export_html": "export", "link": "linking"}
__all__ += ["SessionWidget", "export_html", "link", "show"]

if TYPE_CHECKING:
    from .export import export_html
    from .linking import link
    from .widget import SessionWidget, show


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'prime_nb' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f".{module}", __name__), name)
