"""``prime-nb convert FILE|FOLDER --to TARGET -o DEST``: sessions in another tool's format.

Each target is one entry of :data:`TARGETS`: what it writes (its help line), the
function that writes it, and the options only it takes. The command, its parser and its
errors are the same for all, so a new target is one entry.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ._archived import add_no_archived
from ._output import CliError, _existing, _say
from ._symlinks import add_follow_symlinks, warnings_said

#: an option only a target takes: its flags and ``add_argument``'s keywords
Option = tuple[tuple[str, ...], dict[str, Any]]


@dataclass(frozen=True)
class Target:
    """A format ``convert`` writes: ``write(source, dest, args)`` returns the lines to
    print (what it wrote). ``dest`` is ``-o``'s path, None when not given: a target that
    can send instead of write (to an endpoint given by one of its ``options``) says
    ``needs_output=False`` and checks its own arguments."""

    help: str
    write: Callable[[Path, Path | None, argparse.Namespace], list[str]]
    options: tuple[Option, ...] = field(default=())
    needs_output: bool = True


def _session_files(source: Path, args: argparse.Namespace) -> list[Path]:
    from ..session import find_session_files

    if not source.is_dir():
        return [source]
    files = find_session_files(
        source, include_archived=args.include_archived, follow_symlinks=args.follow_symlinks
    )
    if not files:
        raise CliError(f"{source}: holds no .jsonl session file; pass a session or its folder")
    return files


def _atif(source: Path, dest: Path | None, args: argparse.Namespace) -> list[str]:
    from ..interop import to_atif

    assert dest is not None  # needs_output

    written: list[str] = []
    for file in _session_files(source, args):
        try:
            leaf = "all" if args.all_leaves else None
            paths = to_atif(file, dest, leaf=leaf, follow_symlinks=args.follow_symlinks)
        except ValueError as exc:  # a session with no message: nothing to write, say so
            _say(str(exc))
            continue
        written += [str(p) for p in paths]
    return written


def _scout(source: Path, dest: Path | None, args: argparse.Namespace) -> list[str]:
    from ..interop import to_scout

    assert dest is not None  # needs_output

    ids = to_scout(
        _session_files(source, args), dest, leaves="all" if args.all_leaves else "active"
    )  # files listed here: the links were decided above
    return [f"{dest}: {len(ids)} transcripts"]


def _otel(source: Path, dest: Path | None, args: argparse.Namespace) -> list[str]:
    """Each session's traces to ``--endpoint``, or to ``-o``: the ``.pb`` file of a session
    file, or a folder of ``<name>.pb`` files for a folder of sessions."""
    from ..interop import to_otel

    if (dest is None) == (args.endpoint is None):
        raise CliError("convert --to otel: give -o FILE.pb or --endpoint URL (one of them)")
    leaf = "all" if args.all_leaves else None
    shared: Literal["repeat", "link"] = "link" if args.link_shared else "repeat"
    files = _session_files(source, args)
    lines: list[str] = []
    for file in files:
        try:
            if args.endpoint is not None:
                traces = to_otel(
                    file, endpoint=args.endpoint, project=args.project, leaf=leaf, shared=shared
                )
                lines.append(f"{file}: {len(traces)} traces sent to {args.endpoint}")
                continue
            assert dest is not None
            if source.is_dir():
                dest.mkdir(parents=True, exist_ok=True)
            target = dest / f"{file.stem}.pb" if source.is_dir() else dest
            traces = to_otel(file, path=target, project=args.project, leaf=leaf, shared=shared)
            lines.append(f"{target}: {len(traces)} traces")
        except (ConnectionError, ValueError) as exc:  # the receiver, or the endpoint's form
            raise CliError(str(exc)) from None
    return lines


TARGETS: dict[str, Target] = {
    "atif": Target("ATIF trajectories, one JSON file per path (needs prime-nb[atif])", _atif),
    "scout": Target("an Inspect Scout transcript database (needs prime-nb[scout])", _scout),
    "otel": Target(
        "OpenTelemetry traces, one per path, sent to --endpoint or written to -o as OTLP "
        "protobuf (needs prime-nb[otel])",
        _otel,
        (
            (("--endpoint",), {"metavar": "URL", "help": "otel: an OTLP/HTTP traces URL"}),
            (("--project",), {"metavar": "NAME", "help": "otel: the Phoenix project"}),
            (
                ("--link-shared",),
                {
                    "action": "store_true",
                    "help": "otel, with --all-leaves: write each span once; a later path's "
                    "trace holds what no earlier trace holds and links to where it forked",
                },
            ),
        ),
        needs_output=False,
    ),
}


def cmd_convert(args: argparse.Namespace) -> int:
    """write sessions in another tool's format (ATIF, Scout, OpenTelemetry)

    Convert FILE (or every session below FOLDER) into DEST: ATIF writes one trajectory
    file per path into the folder DEST, Scout a transcript database at DEST,
    OpenTelemetry an OTLP protobuf file DEST (a folder of them for a FOLDER) or sends
    the traces to --endpoint. By default each session's active path; --all-leaves
    writes every leaf's path.
    """
    target = TARGETS[args.to]
    if target.needs_output and not args.output:
        raise CliError(f"--to {args.to} writes files; pass -o DEST", 2)
    source = _existing(args.source, "session file or folder")
    dest = Path(args.output) if args.output else None
    try:
        with warnings_said():  # a link left out of FOLDER, said on stderr as one line
            lines = target.write(source, dest, args)
    except ImportError as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"{exc.filename or args.output}: {exc.strerror or exc}") from None
    for line in lines:
        _say(line)
    return 0


def add_convert_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``convert``: those every target takes, then each target's own."""
    parser.add_argument("source", metavar="FILE|FOLDER")
    parser.add_argument(
        "--to",
        required=True,
        choices=sorted(TARGETS),
        help="; ".join(f"{name}: {t.help}" for name, t in sorted(TARGETS.items())),
    )
    parser.add_argument("-o", "--output", metavar="DEST", help="where to write")
    parser.add_argument(
        "--all-leaves", action="store_true", help="every leaf's path, not only the active one"
    )
    add_no_archived(parser)
    add_follow_symlinks(parser)
    for target in TARGETS.values():
        for flags, options in target.options:
            parser.add_argument(*flags, **options)
