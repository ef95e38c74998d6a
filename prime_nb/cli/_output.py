"""What every command shares: one-line errors and exit codes, and text made safe to print.

Text from a session goes to a terminal through :func:`printable` (no escape sequences,
no control characters, format characters such as zero-width spaces and BOMs shown as
``\\u200b``, file names that are not UTF-8 shown as ``\\xNN``). A path goes
through :func:`shown_path` first: a file's name may hold a newline or an escape sequence
too, and is shown with them as ``\\xNN`` (one line, and the name that opens the file).
An error is one line whatever it quotes.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any, NoReturn

from .._names import FORMAT_CHARACTERS, escaped, real_name, shown_name

PROG = "prime-nb"


class CliError(Exception):
    """Stops a command with a one-line message and an exit code."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (exit 2)."""

    def error(self, message: str) -> NoReturn:
        _err(f"{self.prog}: error: {message} (see {self.prog} --help)")
        raise SystemExit(2)


#: terminal escape sequences (CSI, OSC, DCS/PM/APC and two-byte ESC x), then any other
#: control character: text from a session may set the window title, write the
#: clipboard (OSC 52) or clear the screen when printed raw
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b[\]PX^_]|[\x90\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x9b[0-?]*[ -/]*[@-~]?"
    r"|\x1b[ -~]?"
)
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
#: invisible characters that a terminal shows as nothing (zero-width spaces and joiners,
#: BOMs, tag characters: Unicode's format characters): shown escaped, so that no text
#: hides in a line and two names that look alike read apart
_FORMAT = re.compile(f"[{FORMAT_CHARACTERS}]")
_UNSAFE_IN_NAMES = re.compile(f"[\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029{FORMAT_CHARACTERS}]")


def printable(text: str, *, newlines: bool = True) -> str:
    """``text`` without escape sequences or control characters (tabs kept; newlines kept
    unless ``newlines=False``, which turns them into spaces: one value, one line), with
    its other format characters as escapes (``\\u200b``), and with the bytes of a file
    name that are not UTF-8 as ``\\xNN`` (a strict terminal refuses them)."""
    text = shown_name(text)
    if not newlines:
        text = text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    return _FORMAT.sub(escaped, _CONTROLS.sub("", _ESCAPES.sub("", text)))


def shown_path(path: object) -> str:
    """``path`` as the CLI prints it: its bytes that are not UTF-8 and its control
    characters (a newline, ESC, BEL, bidirectional overrides, zero-width ones) as the ``\\xNN`` of
    their UTF-8 bytes, so that it stays on its line, steers no terminal and reads back as
    the same name (``_names.real_name``)."""
    return _UNSAFE_IN_NAMES.sub(_escaped_char, shown_name(str(path)))


def _escaped_char(found: re.Match[str]) -> str:
    return "".join(f"\\x{byte:02x}" for byte in found.group().encode("utf-8"))


def _say(text: str = "") -> None:
    print(printable(text), flush=True)


def _err(text: str) -> None:
    sys.stderr.write(printable(text.rstrip("\n"), newlines=False) + "\n")


def _existing(path: str, what: str = "file") -> Path:
    file = Path(real_name(os.path.expanduser(path)))  # a name as the CLI printed it, too
    if not file.exists():
        if os.path.islink(file):  # exists() follows the link: to nothing, or round
            raise CliError(
                f"{shown_path(path)}: is a symbolic link to no {what} (its target is missing, "
                "or it loops); pass the path of the file itself",
                2,
            )
        raise CliError(f"{shown_path(path)}: no such {what}", 2)
    return file


def folder_given(path: str, command: str) -> str:
    """The error for a folder where ``command`` takes one session file: what to use."""
    return (
        f"{path}: is a folder; {PROG} {command} takes one session file "
        f"({PROG} ls {path} lists them, {PROG} validate checks a whole folder)"
    )


def kind_of(path: Path) -> str | None:
    """What ``path`` is when it is no regular file (``format.path_kind``)."""
    from ..format import path_kind

    return path_kind(path)


def _load(path: str, command: str) -> Any:
    """The session ``command`` reads from ``path``; a folder or a missing file is a usage
    error (exit 2) that says what to pass."""
    from ..errors import SessionFormatError
    from ..session import load

    file = _existing(path)
    if file.is_dir():
        raise CliError(folder_given(path, command), 2)
    try:
        return load(file)
    except SessionFormatError as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"{path}: {exc.strerror or exc}") from None
