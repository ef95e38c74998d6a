"""The ``prime-nb`` commands that read and write session files (info, validate, ls,
family, upgrade, export, redact), the parser of them all, and :func:`main`.

Exit codes: 0 fine, 1 problems found (or a file that is not a session), 2 usage errors
(unknown option, missing file). Errors are one line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import itertools
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._cut import LABEL, TEXT, cut
from .._words import counted
from ._archived import add_no_archived
from ._convert import add_convert_arguments, cmd_convert
from ._demo import SERVER_START_TIMEOUT, cmd_demo
from ._output import (
    PROG,
    CliError,
    Parser,
    _err,
    _existing,
    _load,
    _say,
    folder_given,
    kind_of,
    printable,
    shown_path,
)
from ._redact import cli_rules, export_redacted, say_redaction
from ._repair import add_repair_arguments, cmd_repair
from ._shown import TOKEN_PARTS, TOKENS_SUM, dollars, json_text, records
from ._symlinks import add_follow_symlinks, warnings_said

# -- commands ------------------------------------------------------------------------------


def cmd_info(args: argparse.Namespace) -> int:
    """headline figures of one session file

    Version, dialect, entries, forks, compactions, tokens (input, output, cache read and
    cache write apart, as the agent's footer shows them), cost and problems of one
    session file.
    """
    session = _load(args.file, "info")
    summary = session.summary()
    if args.json:
        _say(json_text(summary))
        return 0
    rows = [("file", shown_path(summary["file"]) if summary["file"] else "-")]
    rows += [
        (key, cut(str(summary[key])) if summary[key] else "-") for key in ("name", "id", "cwd")
    ]
    rows += [
        ("version", f"{summary['version']} (current: {summary['current_version']})"),
        ("dialect", summary["dialect"]),
    ]
    counts = ("entries", "messages", "leaves", "forks", "compactions", "tool_calls")
    rows += [(key.replace("_", " "), f"{summary[key]:,}") for key in counts]
    parts = "  ".join(f"{label} {summary[key]:,}" for label, key in TOKEN_PARTS)
    rows += [("tokens", parts), ("total tokens", f"{summary['tokens']:,} ({TOKENS_SUM})")]
    rows += [("cost", dollars(summary["cost"])), ("problems", f"{summary['problems']:,}")]
    rows.append(("active leaf", cut(str(summary["active_leaf"] or "-"), LABEL)))
    for key, value in rows:
        _say(f"{key:<13}{printable(str(value), newlines=False)}")
    return 0


#: problems ``validate`` prints per file, unless --all
SHOWN_PROBLEMS = 20


def cmd_validate(args: argparse.Namespace) -> int:
    """list problems with line numbers (exit 1 on errors)

    Check session files; print FILE:LINE: SEVERITY: KIND: MESSAGE for the problems of
    each (the first 20; --all prints every one). Exit 1 if a file does not load or has
    an error (a line or an entry lost, or the tree changed); with --strict, a warning (an
    odd value kept as written) counts too.
    """
    from ..errors import SessionFormatError
    from ..session import load

    bad = 0
    with warnings_said():
        files = _validated_files(args.files, args.include_archived, args.follow_symlinks)
    for path in files:
        try:
            session = load(Path(path).expanduser())
        except (OSError, SessionFormatError) as exc:
            if isinstance(exc, FileNotFoundError):
                reason: object = "no such file"
            elif isinstance(exc, SessionFormatError):
                reason = exc.reason
            else:
                reason = exc.strerror or exc
            _say(printable(f"{shown_path(path)}: error: {reason}", newlines=False))
            bad += 1
            continue
        problems = session.problems
        if problems.empty:
            if not args.quiet:
                ok = f"ok ({len(session):,} entries, version {session.version})"
                _say(f"{shown_path(path)}: {ok}")
            continue
        errors = int((problems["severity"] == "error").sum())
        if errors or args.strict:
            bad += 1
        shown = len(problems) if args.all else min(len(problems), SHOWN_PROBLEMS)
        rows = zip(
            *(problems[c].tolist() for c in ("line", "severity", "kind", "message")), strict=True
        )
        for line, severity, kind, message in itertools.islice(rows, shown):
            message = cut(str(message), 2 * TEXT)  # it may quote an id or a value
            said = f"{shown_path(path)}:{line}: {severity}: {kind}: {message}"
            _say(printable(said, newlines=False))
        if shown < len(problems):
            _say(
                f"{shown_path(path)}: {len(problems) - shown:,} more problems not shown ("
                f"{counted(errors, 'error')}, {counted(len(problems) - errors, 'warning')} "
                "in all); --all prints every one"
            )
    return 1 if bad else 0


def _validated_files(given: list[str], include_archived: bool, follow: bool) -> list[str]:
    """The files ``validate`` checks: each file as given, each folder's session files
    (as ``prime-nb ls`` lists them, archived ones too unless ``--no-archived``)."""
    from ..session import find_session_files

    files: list[str] = []
    for path in given:
        if os.path.isdir(os.path.expanduser(path)):
            found = find_session_files(
                path, include_archived=include_archived, follow_symlinks=follow
            )
            if not found:
                raise CliError(f"{path}: no session files in this folder; pass .jsonl files", 2)
            files.extend(str(file) for file in found)
        else:
            files.append(path)
    return files


def cmd_ls(args: argparse.Namespace) -> int:
    """list the sessions in a folder

    List session files below DIR, newest first: by default those of every agent that
    writes this format (its own folder, pi's, OpenClaw's: prime_nb.session.session_folders),
    archived ones too (the ARCHIVED column: reset or deleted; --no-archived leaves them
    out).
    """
    import pandas as pd

    from ..session import list_sessions

    try:
        with warnings_said():
            frame = list_sessions(
                args.dir,
                include_archived=args.include_archived,
                follow_symlinks=args.follow_symlinks,
            )
    except FileNotFoundError as exc:
        raise CliError(str(exc), 2) from None
    if args.json:
        _say(json_text(records(frame)))
        return 0
    if frame.empty:
        _say("no sessions found")
        return 0
    _say(f"{'MODIFIED':<16}  {'ENTRIES':>7}  {'ARCHIVED':<8}  {'TITLE':<60}  PATH")
    for _, row in frame.iterrows():
        when = row["modified"].strftime("%Y-%m-%d %H:%M") if not pd.isna(row["modified"]) else "-"
        entries = "-" if pd.isna(row["entries"]) else f"{int(row['entries']):,}"
        title = row["name"] if isinstance(row["name"], str) else row["first_user_message"]
        title = " ".join(str(title).split())[:60] if isinstance(title, str) else "-"
        title = printable(title, newlines=False)
        archived = row["archived"] if isinstance(row["archived"], str) else ""
        line = f"{when:<16}  {entries:>7}  {archived:<8}  {title:<60}  {shown_path(row['path'])}"
        _say(printable(line, newlines=False))
    return 0


def cmd_grep(args: argparse.Namespace) -> int:
    """find text in the sessions below folders (exit 1 if none)

    Search the texts of every session below each FOLDER (or of each FILE) and print
    FILE:LINE ENTRY_ID ROLE FIELD: SNIPPET per hit. Exit 1 if nothing is found.
    """
    import warnings

    from ..corpus import search

    for path in args.paths:
        kind = kind_of(_existing(path, "file or folder"))
        if kind not in (None, "a folder"):  # never waited on (a FIFO) or read (/dev/zero)
            raise CliError(
                f"{path}: is {kind}, not a session file or a folder; pass .jsonl session "
                "files or folders of them",
                2,
            )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            hits = search(
                args.paths,
                args.pattern,
                regex=args.regex,
                case=not args.ignore_case,
                roles=args.role,
                types=args.type,
                fields=args.field,
                active_only=args.active_only,
                limit=args.limit,
                cache=True if args.cache is True else args.cache or False,
                include_archived=args.include_archived,
                follow_symlinks=args.follow_symlinks,
            )
        except ValueError as exc:
            raise CliError(str(exc), 2) from None
    for warning in caught:
        _err(f"{PROG}: warning: {warning.message}")
    # the snippet has no control character; the file name is the file system's
    columns = ("file", "line", "entry_id", "role", "field", "snippet")
    for file, line, entry_id, role, field, text in zip(
        *(hits[name].tolist() for name in columns), strict=True
    ):
        role = cut(role, LABEL) if isinstance(role, str) and role else "-"  # a label: NaN
        entry_id = cut(str(entry_id), LABEL)
        where = f"{shown_path(file)}:{line}"
        _say(printable(f"{where} {entry_id} {role} {field}: {text}", newlines=False))
    return 0 if len(hits) else 1


def cmd_family(args: argparse.Namespace) -> int:
    """a session's forks and sub-agents, spend counted once

    Link PATH (a session, or every session below a folder) to its forks and sub-agents;
    print them as a tree with the family's tokens and cost. A session's "own" cost is
    what its new entries cost, less what its sub-agents' usage added to them; the total
    adds every session's own cost once, and what a parent attributed to sub-agents whose
    files were not found. Exit 1 if the family has a problem: a file that does not load,
    one session id in two files, a missing or ambiguous parent, or links that form a
    cycle.
    """
    from ..errors import SessionFormatError
    from ..family import load_family

    try:
        with warnings_said():
            family = load_family(
                _existing(args.path, "file or folder"),
                search=args.search,
                include_archived=args.include_archived,
                follow_symlinks=args.follow_symlinks,
            )
    except SessionFormatError as exc:  # a FIFO or a device, refused at once
        raise CliError(str(exc)) from None
    if args.json:
        frames = {"sessions": family.sessions, "links": family.links, "problems": family.problems}
        out = {k: records(v) for k, v in frames.items()}
        _say(json_text({**out, "totals": family.totals}))
    else:
        _say(family.outline())
        _say(_own_and_total(family.totals))
    return 1 if len(family.problems) else 0


def _own_and_total(totals: dict[str, Any]) -> str:
    """The line that says what "own" and the family's total are."""
    line = "own: a session's new entries, less what its sub-agents added; total: each own once"
    missing = totals.get("unmatched_child_cost") or 0.0
    if missing:
        line += f", plus {dollars(missing)} attributed to sub-agents whose files were not found"
    return f"{line}; tokens: {TOKENS_SUM}"


def cmd_upgrade(args: argparse.Namespace) -> int:
    """rewrite a version 1 or 2 file as version 3

    Rewrite a version 1 or 2 session file as version 3, keeping the original beside it
    as FILE.vN.bak.
    """
    session = _load(args.file, "upgrade")
    file = Path(session.file)
    before, current = session.version, session.loaded_version
    if before >= current:
        _say(f"{args.file}: already version {before}; nothing to do")
        return 0
    from ..write import upgrade_file

    backups = set(file.parent.glob(f"{file.name}.v*.bak"))
    try:
        upgrade_file(file, backup=not args.no_backup)
    except OSError as exc:
        raise CliError(f"{args.file}: {exc}") from None
    made = sorted(set(file.parent.glob(f"{file.name}.v*.bak")) - backups)
    kept = f"; the original is kept as {made[0]}" if made else ""
    _say(f"{args.file}: upgraded from version {before} to version {current}{kept}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """write a self-contained HTML viewer of a session

    Write one HTML file that shows the session's tree without Python or Jupyter.
    """
    from ..errors import SessionWriteError
    from ..widget import export_destination, export_html

    session = _load(args.file, "export")
    out = Path(args.output) if args.output else Path(session.file).with_suffix(".html")
    try:
        out = export_destination(out, session.file)  # never the session, even with --force
    except SessionWriteError as exc:
        raise CliError(str(exc)) from None
    if os.path.lexists(out) and not args.force:
        raise CliError(f"{out}: exists; pass --force to overwrite it, or choose another -o")
    try:
        if args.redact:
            export_redacted(session, out)  # says what was redacted
            return 0
        written = export_html(session, out)
    except SessionWriteError as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"{out}: {exc.strerror or exc}") from None
    _say(str(written))
    return 0


def cmd_redact(args: argparse.Namespace) -> int:
    """write a copy of a session with secrets replaced

    Write a copy of FILE with keys, tokens, emails, home folders and the host name
    replaced by placeholders (same ids and tree); print what was replaced.
    """
    from ..redact import redact

    if not args.file:
        raise CliError("no FILE given (an empty path); pass the .jsonl session file to redact", 2)
    source = _existing(args.file)
    kind = kind_of(source)
    if kind == "a folder":  # "." or "/" has no name to make FILE.redacted.jsonl from
        raise CliError(folder_given(args.file, "redact"), 2)
    if kind is not None:  # a FIFO or a device: never waited on or read
        raise CliError(f"{args.file}: is {kind}, not a regular file; pass one .jsonl session file")
    out = Path(args.output) if args.output else source.with_name(source.stem + ".redacted.jsonl")
    try:
        rules = cli_rules(args.rule)
        result = redact(source, out, extra_rules=rules, hostnames=args.host, dry_run=args.dry_run)
    except (OSError, ValueError) as exc:
        raise CliError(str(exc)) from None
    say_redaction(result, args.details)
    if result.path is not None:
        _say(f"{result.path}: {len(result.report)} replacements, {len(result.suspects)} suspects")
    return 0


# -- parser --------------------------------------------------------------------------------


def build_parser() -> Parser:
    from .. import __version__

    parser = Parser(
        prog=PROG,
        description="Inspect, check and explore Prime Agent session files (.jsonl).",
        epilog="Start here: prime-nb demo (opens the quickstart notebook in JupyterLab).",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(func: Any) -> argparse.ArgumentParser:
        """A command named after ``func``, its help and description from its docstring."""
        line, _, description = func.__doc__.partition("\n\n")
        parser = sub.add_parser(func.__name__[4:], help=line, description=description)
        parser.set_defaults(func=func)
        return parser

    p = command(cmd_info)
    p.add_argument("file", metavar="FILE")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")

    p = command(cmd_validate)
    p.add_argument(
        "files", metavar="PATH", nargs="+", help="a session file, or a folder: each one below it"
    )
    p.add_argument("-q", "--quiet", action="store_true", help="say nothing about good files")
    p.add_argument("--strict", action="store_true", help="exit 1 on warnings too")
    p.add_argument(
        "--all", action="store_true", help=f"print every problem (default: {SHOWN_PROBLEMS})"
    )
    add_no_archived(p)
    add_follow_symlinks(p)

    p = command(cmd_ls)
    p.add_argument("dir", metavar="DIR", nargs="?")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    add_no_archived(p)
    add_follow_symlinks(p)

    p = command(cmd_family)
    p.add_argument("path", metavar="PATH")
    p.add_argument("--search", metavar="DIR", action="append", help="more folders to search")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    add_no_archived(p)
    add_follow_symlinks(p)

    p = command(cmd_grep)
    p.add_argument("pattern", metavar="PATTERN")
    p.add_argument("paths", metavar="FOLDER", nargs="+")
    p.add_argument("--regex", action="store_true", help="PATTERN is a Python regex")
    p.add_argument("-i", "--ignore-case", action="store_true", help="ignore case")
    for flag, what in (("role", "message role"), ("type", "entry type"), ("field", "field")):
        p.add_argument(
            f"--{flag}",
            action="append",
            metavar=flag.upper(),
            help=f"only this {what} (repeatable)",
        )
    p.add_argument("--active-only", action="store_true", help="only entries on the active path")
    p.add_argument("--limit", type=int, metavar="N", help="print at most N hits")
    p.add_argument(
        "--cache",
        nargs="?",
        const=True,
        metavar="DIR",
        help="keep a search index for the next search, in the user's cache folder or in "
        "--cache=DIR",
    )
    add_no_archived(p)
    add_follow_symlinks(p)

    p = command(cmd_upgrade)
    p.add_argument("file", metavar="FILE")
    p.add_argument("--no-backup", action="store_true", help="do not keep the original")

    p = command(cmd_export)
    p.add_argument("file", metavar="FILE")
    p.add_argument("-o", "--output", metavar="OUT", help="HTML file (default: FILE.html)")
    p.add_argument(
        "--force",
        action="store_true",
        help="overwrite OUT if it exists (never the session itself, nor any session file)",
    )
    p.add_argument("--redact", action="store_true", help="hide secrets first (see: redact)")

    p = command(cmd_redact)
    p.add_argument("file", metavar="FILE")
    p.add_argument("-o", "--output", metavar="OUT", help="new file (default: FILE.redacted.jsonl)")
    p.add_argument("--dry-run", action="store_true", help="print the summary, write nothing")
    p.add_argument(
        "--details", action="store_true", help="print every replacement, not the summary by rule"
    )
    p.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="[NAME=]REGEX",
        help="also redact REGEX, reported as NAME (default: rule-N)",
    )
    p.add_argument(
        "--host", action="append", metavar="NAME", help="host name to hide (default: this one)"
    )

    add_repair_arguments(command(cmd_repair))
    add_convert_arguments(command(cmd_convert))

    p = command(cmd_demo)
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    p.add_argument("--dir", metavar="DIR", help="folder for the copies (default: a new temp dir)")
    p.add_argument(
        "--timeout",
        type=float,
        default=SERVER_START_TIMEOUT,
        help="seconds to wait for JupyterLab to answer (default: %(default)s)",
    )
    return parser


@functools.cache
def _parser() -> Parser:
    """The parser :func:`main` reads with, built once per process: argparse builds it
    slowly (each help string looks up its translation), and a program that calls ``main``
    many times (a notebook, a test) would pay that at each call; reading arguments does
    not change it."""
    return build_parser()


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.error("choose a command: info, validate, ls, family, grep, upgrade, export or demo")
    try:
        return int(args.func(args))
    except CliError as exc:
        _err(f"{PROG}: error: {exc}")
        return exc.code
    except KeyboardInterrupt:
        _err(f"{PROG}: interrupted")
        return 130
    except BrokenPipeError:
        # output piped into `head` that closed early: not an error worth a traceback
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - replaces the closed stdout
        return 0
    except Exception as exc:
        if os.environ.get("PRIME_NB_DEBUG"):
            raise
        _err(f"{PROG}: error: {type(exc).__name__}: {exc} (set PRIME_NB_DEBUG=1 for a traceback)")
        return 1
