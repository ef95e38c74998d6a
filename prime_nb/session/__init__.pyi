"""The package's names, for type checkers and for ``lazy_loader.attach_stub``: each is
imported from its module on first use (see ``prime_nb``'s package docstring)."""

from ._columns import (
    table_time_ms as table_time_ms,
    usage_tuple as usage_tuple,
)
from ._context import Context as Context
from ._discovery import (
    find_session_files as find_session_files,
    list_sessions as list_sessions,
    session_dir as session_dir,
)
from ._given import (
    SessionLike as SessionLike,
    as_session as as_session,
)
from ._index import (
    CONTEXT_TYPES as CONTEXT_TYPES,
    TreeIndex as TreeIndex,
)
from ._messages import context_messages as context_messages
from ._schema import (
    TIME as TIME,
    dtype_of as dtype_of,
    frame_mismatches as frame_mismatches,
)
from ._session import (
    Session as Session,
    fork_to_file as fork_to_file,
    load as load,
    paused_gc as paused_gc,
)
from ._text import (
    entry_text as entry_text,
    message_text as message_text,
    preview as preview,
)
from ._turns import (
    check_options as check_options,
    to_json as to_json,
)
