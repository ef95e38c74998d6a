"""prime_nb: explore and edit Prime Agent session files from notebooks."""

from .context import Context
from .discovery import list_sessions, session_dir
from .errors import EntryNotFoundError, SessionFormatError
from .migrating import migrate
from .reading import Problem, RawEntry, iter_entries
from .session import Session, load

__version__ = "0.1.0"

__all__ = [
    "Context",
    "EntryNotFoundError",
    "Problem",
    "RawEntry",
    "Session",
    "SessionFormatError",
    "iter_entries",
    "list_sessions",
    "load",
    "migrate",
    "session_dir",
]
