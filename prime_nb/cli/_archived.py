"""``--no-archived``: the flag of every command that reads a folder of sessions.

OpenClaw keeps a session the user reset or deleted beside the live ones, renamed
``<id>.jsonl.reset.<time>`` or ``<id>.jsonl.deleted.<time>``. Each one ran and was
billed, and a reset starts a new session id, so the commands read archived files by
default, as the Python functions do (``include_archived=True``); the flag leaves them
out of what a folder holds. A file named on the command line is read as given.
"""

from __future__ import annotations

import argparse

#: what the flag does and what "archived" means, for every command's --help
NO_ARCHIVED_HELP = (
    "leave out archived session files found in a folder: those OpenClaw renamed when the "
    "user reset or deleted the session (<id>.jsonl.reset.<time>, <id>.jsonl.deleted.<time>); "
    "they are read by default"
)


def add_no_archived(parser: argparse.ArgumentParser) -> None:
    """``--no-archived``, read back as ``args.include_archived`` (True unless given)."""
    parser.add_argument(
        "--no-archived", dest="include_archived", action="store_false", help=NO_ARCHIVED_HELP
    )
