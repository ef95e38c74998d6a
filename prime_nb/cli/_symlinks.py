"""``--follow-symlinks``: the flag of every command that lists a folder of sessions.

A file reached below a folder through a symlink that leads out of it is left out, as
``grep -r`` leaves it (``prime_nb.session.find_session_files``), and the listing warns
with its name; the flag reads it. The warnings are said on stderr as the command's own,
one line each, so a file name cannot forge a line of the output.
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from ._output import PROG, _err, printable

#: what the flag does, for every command's --help
FOLLOW_SYMLINKS_HELP = (
    "also read files reached through symlinks that lead out of a folder (left out by "
    "default, with a warning, as grep -r leaves them)"
)


def add_follow_symlinks(parser: argparse.ArgumentParser) -> None:
    """``--follow-symlinks``, read back as ``args.follow_symlinks`` (False unless given)."""
    parser.add_argument("--follow-symlinks", action="store_true", help=FOLLOW_SYMLINKS_HELP)


@contextmanager
def warnings_said() -> Iterator[None]:
    """Say each warning raised inside on stderr as ``prime-nb: warning: ...``, once."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield
        finally:
            said: set[str] = set()
            for warning in caught:
                text = printable(f"{PROG}: warning: {warning.message}", newlines=False)
                if text not in said:
                    said.add(text)
                    _err(text)
