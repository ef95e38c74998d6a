"""The package's names, for type checkers and for ``lazy_loader.attach_stub``: each is
imported from its module on first use (see ``prime_nb``'s package docstring)."""

from ._context import Context as Context
from ._discovery import (
    find_session_files as find_session_files,
    list_sessions as list_sessions,
    session_dir as session_dir,
)
from ._session import (
    Session as Session,
    fork_to_file as fork_to_file,
    load as load,
)
