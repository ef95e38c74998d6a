"""``prime-nb repair``: a copy of a session file with its glued lines split.

A module of its own beside ``_commands.py``: the command names the lines it split, and
refuses to write over the source, or over any file without ``--force``.
"""

from __future__ import annotations

import argparse

from .._words import counted
from ._output import CliError, _existing, _say, printable


def cmd_repair(args: argparse.Namespace) -> int:
    """write a copy of a session with its glued lines split

    Write a copy of FILE at NEW in which each line holding two or more entries glued
    together ({...}{...}: a writer stopped between two writes; the agent drops such a
    line whole) is split into one line per entry, each as written. Every other byte is
    copied as it is; FILE is never changed. Nothing is written when no line is glued.
    """
    from ..errors import SessionFormatError, SessionWriteError
    from ..write import repair_file

    source = _existing(args.file)
    if source.is_dir():
        raise CliError(f"{args.file}: is a folder; pass one .jsonl session file")
    try:
        repair = repair_file(source, args.output, force=args.force)
    except (SessionWriteError, SessionFormatError) as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"{exc.filename or args.output}: {exc.strerror or exc}") from None
    if repair.path is None:
        _say(printable(f"{args.file}: no glued lines; nothing to repair, nothing written"))
        return 0
    for line, count in repair.split:
        _say(printable(f"{args.file}:{line}: split into {count} lines"))
    _say(
        printable(
            f"{repair.path}: written, {counted(len(repair.split), 'glued line')} split into "
            f"{repair.entries} lines"
        )
    )
    return 0


def add_repair_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE")
    parser.add_argument(
        "-o", "--output", metavar="NEW", required=True, help="the new file to write"
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite NEW if it exists (never FILE itself)"
    )
