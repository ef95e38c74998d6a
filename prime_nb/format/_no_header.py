"""What a file with no session header holds instead, said in the loader's one error for
it: compressed bytes, UTF-16 or UTF-32 text, CR line ends, NUL bytes, nothing at all. Such bytes
hold no JSON line, so "is this a session file?" would not help; naming what they are
says what to do.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import SessionFormatError

#: how the archives a corpus is often kept in begin, their kind and the tool that opens them
_COMPRESSED = (
    (b"\x1f\x8b", "gzip", "gunzip"),
    (b"\x28\xb5\x2f\xfd", "zstd", "unzstd"),
    (tuple(b"BZh" + bytes([level]) for level in b"123456789"), "bzip2", "bunzip2"),
    (b"\xfd7zXZ\x00", "xz", "unxz"),
    (b"PK\x03\x04", "zip", "unzip"),
)


def _text_of_another_shape(head: bytes) -> str | None:
    """What is wrong with a file whose first bytes are session text in another shape:
    UTF-16 or UTF-32 (a BOM, or NUL bytes beside ASCII ones, as an editor on Windows
    saves it), lines that end in CR only (as old Mac editors end them), or no text at
    all (NUL bytes)."""
    if not head.strip(b"\x00"):
        return "the file holds only NUL bytes (space a crash left unwritten); nothing to read"
    wide = _wide_encoding(head)
    if wide is not None:
        family = wide[:6]
        return f"the file is {family} text, not UTF-8; save it as UTF-8 (iconv -f {wide} -t UTF-8)"
    if head.lstrip().startswith(b"{") and b"\r" in head and b"\n" not in head:
        return "the file's lines end in CR only, not LF; convert them (tr '\\r' '\\n')"
    return None


def _wide_encoding(head: bytes) -> str | None:
    """The name iconv knows for the UTF-16 or UTF-32 text ``head`` begins: with a BOM,
    the family (iconv reads the order from it); without, the byte order too, since
    iconv guesses one and a guess garbles the other. ASCII text is recognised by its
    NUL bytes: in UTF-32 three of every four, in UTF-16 one of every two."""
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "UTF-32"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16"
    for width, family in ((4, "UTF-32"), (2, "UTF-16")):
        units = [head[i : i + width] for i in range(0, 4 * width, width)]
        if len(head) < 4 * width:
            continue
        zero = b"\x00" * (width - 1)
        if all(unit[1:] == zero and unit[0] for unit in units):
            return family + "LE"
        if all(unit[:-1] == zero and unit[-1] for unit in units):
            return family + "BE"
    return None


def holds_no_utf8_lines(head: bytes) -> bool:
    """Do a file's first bytes already say it holds no UTF-8 line (compressed, or
    UTF-16/UTF-32 text)? The scan asks before it reads a file from its start, so that
    a large one is refused from its first 4 KiB: read whole, every one of its lines
    would only become a problem on the way to the same error (:func:`no_header`)."""
    return any(head.startswith(magic) for magic, _, _ in _COMPRESSED) or (
        _wide_encoding(head) is not None
    )


def no_header(path: str | Path, fd: int) -> SessionFormatError:
    """The one error for a file with no session header. A compressed file, UTF-16 text
    or CR line ends say what they are: such bytes hold no JSON line at all, and 'is
    this a session file?' would not help."""
    try:
        head = os.pread(fd, 4096, 0)
    except OSError:
        head = b""
    for magic, kind, tool in _COMPRESSED:
        if head.startswith(magic):
            return SessionFormatError(
                path, f"compressed with {kind}, not a .jsonl session; decompress it first ({tool})"
            )
    if not head:
        return SessionFormatError(
            path, "no session header: the file is empty; a session file starts with its header"
        )
    shape = _text_of_another_shape(head)
    if shape is not None:
        return SessionFormatError(path, f"no session header: {shape}")
    return SessionFormatError(
        path,
        "no session header (the first JSON line must have type 'session' or 'header'); "
        "is this a Prime Agent session file?",
    )
