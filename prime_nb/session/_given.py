"""A Session where a helper takes one: the Session itself, or a session file's path, loaded.

Why: in a notebook the file is what one has in hand, so ``branches("s.jsonl")`` is the
natural first call; anything else is one TypeError that says what to pass.
"""

from __future__ import annotations

import os
from typing import TypeAlias

from ._session import Session, load

#: what the helpers take: a loaded Session, or the path of a .jsonl session file
SessionLike: TypeAlias = Session | str | os.PathLike[str]


def as_session(value: object, what: str) -> Session:
    """``value`` as a Session (a path is loaded); ``what`` names the caller in the error."""
    if isinstance(value, Session):
        return value
    if isinstance(value, str | os.PathLike):
        return load(os.fspath(value))
    raise TypeError(
        f"{what} takes a Session (prime_nb.load(path)) or the path of a .jsonl session "
        f"file, not {type(value).__name__}"
    )
