"""prime_nb: explore and edit Prime Agent session files from notebooks.

The reading, analysis and corpus names are imported with the package. The widget's
names (and ``prime_nb.widget``, ``prime_nb.plots``, ``prime_nb.datasets``) are imported
on first use (PEP 562 ``__getattr__``): anywidget, ipywidgets and plotly cost more to
import than the rest of the package, and a script that reads sessions never draws.
"""

from importlib import import_module as _import_module
from typing import Any as _Any

from . import analysis, corpus, errors, family, format, session, write
from ._version import __version__
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

#: names imported on first use, and the module that holds each
_LAZY = {
    "FamilyWidget": "prime_nb.widget",
    "SessionWidget": "prime_nb.widget",
    "export_html": "prime_nb.widget",
    "link": "prime_nb.widget",
    "show": "prime_nb.widget",
    "show_family": "prime_nb.widget",
    "widget": "prime_nb.widget",
    "plots": "prime_nb.plots",
    "datasets": "prime_nb.datasets",
}

__all__ = [
    "Context",
    "EntryLostError",
    "EntryNotFoundError",
    "Family",
    "FamilyWidget",
    "InvalidEntryError",
    "Problem",
    "RawEntry",
    "Session",
    "SessionFormatError",
    "SessionWidget",
    "SessionWriteError",
    "TornLineWarning",
    "UpgradeRequiredError",
    "__version__",
    "analysis",
    "append_branch_summary",
    "append_compaction",
    "append_fork",
    "append_label",
    "append_message",
    "append_session_name",
    "corpus",
    "datasets",
    "errors",
    "export_html",
    "family",
    "fork_to_file",
    "format",
    "iter_entries",
    "link",
    "list_sessions",
    "load",
    "load_family",
    "migrate",
    "plots",
    "reconcile",
    "redact",
    "session",
    "session_dir",
    "show",
    "show_family",
    "upgrade_file",
    "widget",
    "write",
]


def __getattr__(name: str) -> _Any:
    """A widget name (or the widget, plots or datasets module), imported on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    loaded = _import_module(module)
    return loaded if module.endswith(f".{name}") else getattr(loaded, name)


def __dir__() -> list[str]:
    """The public names, loaded or not (what a notebook's completion lists)."""
    return sorted(__all__)
