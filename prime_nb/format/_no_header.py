"""What a file with no session header holds instead, said in the loader's one error for
it: compressed bytes, UTF-16 text, CR line ends, NUL bytes, nothing at all. Such bytes
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
    UTF-16 (a BOM, or NUL between ASCII bytes, as an editor on Windows saves it), lines
    that end in CR only (as old Mac editors end them), or no text at all (NUL bytes)."""
    nul = b"\x00" * 4
    if not head.strip(b"\x00"):
        return "the file holds only NUL bytes (space a crash left unwritten); nothing to read"
    ascii_le = head[1:8:2] == nul and b"\x00" not in head[0:8:2]
    ascii_be = head[0:8:2] == nul and b"\x00" not in head[1:8:2]
    if head.startswith((b"\xff\xfe", b"\xfe\xff")) or ascii_le or ascii_be:
        return "the file is UTF-16 text, not UTF-8; save it as UTF-8 (iconv -f UTF-16 -t UTF-8)"
    if head.lstrip().startswith(b"{") and b"\r" in head and b"\n" not in head:
        return "the file's lines end in CR only, not LF; convert them (tr '\\r' '\\n')"
    return None


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
