"""Text written as its bytes, or cut into a layout: forms a tool prints that no rule reads.

Why: an attack showed every kind of secret the ways tools print bytes and tables, and
the rules, which read text, found none: UTF-16 (``powershell -EncodedCommand`` takes
base64 of it; a Windows file's hex dump), ``hexdump -C`` (hex beside 16 characters a
line), ``od -c`` (a character per column), octal escapes (``printf '\\160...'``), a
byte array (a Node ``Buffer`` as JSON), git's binary patch (zlib in base85 lines),
base64 wrapped at 76 columns, and a table whose cells wrap a value over lines. Each form
is found by its layout, read back to text, and handed to the rules; a form whose text
holds a secret is replaced whole (see ``_disguise.disguised_spans``), as base64 is.
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib
from collections.abc import Callable, Iterator

from ._engine import EXACT, literals

#: the longest text read for these forms, and the most bytes one decodes to
_MAX_TEXT = 1 << 20
_MAX_DECODED = 1 << 20


def utf16_text(raw: bytes) -> str | None:
    """``raw`` read as UTF-16 when it is (a byte order mark, or half its odd or even bytes
    zero, as Latin text is in UTF-16), else None."""
    if len(raw) < 16:
        return None
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        codec = "utf-16"
    elif raw[1::2].count(0) >= len(raw) // 4:  # Latin letters, some of another script
        codec = "utf-16-le"
    elif raw[0::2].count(0) >= len(raw) // 4:
        codec = "utf-16-be"
    else:
        return None
    try:
        return raw[: len(raw) // 2 * 2].decode(codec)
    except UnicodeDecodeError:
        return None


def _text(raw: bytes) -> str | None:
    """``raw`` as UTF-8 or UTF-16 text, or None when it is neither, or not printable."""
    try:
        decoded: str | None = raw.decode("utf-8")
    except UnicodeDecodeError:
        decoded = None
    if decoded is None or not decoded.isprintable():
        decoded = utf16_text(raw) or decoded
    if decoded is None or len(decoded) < 8:
        return None
    decoded = decoded.lstrip("\ufeff")
    return decoded if all(c.isprintable() or c in "\n\r\t" for c in decoded) else None


#: hex pairs apart by a blank (``Format-Hex`` of a UTF-16 file)
_SPACED_HEX = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2} ){8,}[0-9A-Fa-f]{2}(?![0-9A-Fa-f])")
#: ``hexdump -C``: an offset, the bytes as hex, the printable ones between bars
_HEXDUMP_LINE = r"[0-9a-f]{8}  ((?:[0-9a-f]{2} {1,2}){1,16})\s*\|[^\n]{1,16}\|"
_HEXDUMP = re.compile(rf"(?m)^{_HEXDUMP_LINE}(?:\r?\n{_HEXDUMP_LINE})*")
_HEXDUMP_ROW = re.compile(rf"(?m)^{_HEXDUMP_LINE}")
#: ``od -c``: a 7-digit octal offset, then cells of 4 characters
_OD = re.compile(
    r"(?m)^[0-7]{7}(?: {1,3}\S{1,3}| {4}){1,16}(?:\r?\n[0-7]{7}(?: {1,3}\S{1,3}| {4}){0,16})*"
)
_OCTAL = re.compile(r"(?:\\[0-7]{3}){8,}")
_BYTE_ARRAY = re.compile(r"\[\s*(?:\d{1,3}\s*,\s*){7,}\d{1,3}\s*\]")
#: git's base85 lines (a length letter, then groups of 5), after ``literal`` or ``delta``
_GIT85_CHARS = (
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"
)
_GIT85 = re.compile(
    r"(?m)(?<=^literal \d)\d*\r?\n((?:[A-Za-z][0-9A-Za-z!#$%&()*+\-;<=>?@^_`{|}~]{5,}\r?\n?)+)"
)
_GIT85_VALUE = {c: i for i, c in enumerate(_GIT85_CHARS)}
#: base64 wrapped in lines of one width (60 to 76), the last one shorter
_WRAPPED = re.compile(r"(?m)^(?:[A-Za-z0-9+/]{60,76}\r?\n){1,}[A-Za-z0-9+/]{1,76}={0,2}$")
#: a row of a box table: two or more cells between box bars
_BOX_ROW = re.compile(r"(?m)^[│┃](?:[^│┃\n]*[│┃]){2,}[ \t]*$")


def _spaced_hex(text: str) -> Iterator[tuple[int, int, bytes]]:
    for m in _SPACED_HEX.finditer(text):
        yield m.start(), m.end(), bytes.fromhex(m.group().replace(" ", ""))


def _hexdump(text: str) -> Iterator[tuple[int, int, bytes]]:
    for m in _HEXDUMP.finditer(text):
        hexes = "".join(row.group(1) for row in _HEXDUMP_ROW.finditer(m.group()))
        yield m.start(), m.end(), bytes.fromhex(hexes.replace(" ", ""))


def _od(text: str) -> Iterator[tuple[int, int, bytes]]:
    escapes = {"\\n": b"\n", "\\t": b"\t", "\\r": b"\r", "\\0": b"\0"}
    for m in _OD.finditer(text):
        raw = bytearray()
        for line in m.group().splitlines():
            body = line[7:]
            for at in range(0, len(body), 4):
                cell = body[at : at + 4].strip() or " "
                if cell in escapes:
                    raw += escapes[cell]
                elif re.fullmatch("[0-7]{3}", cell):
                    raw.append(int(cell, 8) % 256)
                else:
                    raw += cell.encode()
        yield m.start(), m.end(), bytes(raw)


def _octal(text: str) -> Iterator[tuple[int, int, bytes]]:
    for m in _OCTAL.finditer(text):
        yield m.start(), m.end(), bytes(int(o, 8) % 256 for o in m.group().split("\\")[1:])


def _byte_array(text: str) -> Iterator[tuple[int, int, bytes]]:
    for m in _BYTE_ARRAY.finditer(text):
        numbers = [int(n) for n in re.findall(r"\d+", m.group())]
        if max(numbers) < 256:
            yield m.start(), m.end(), bytes(numbers)


def _git85(text: str) -> Iterator[tuple[int, int, bytes]]:
    for m in _GIT85.finditer(text):
        raw = bytearray()
        for line in m.group(1).split():
            size = ord(line[0]) - (ord("A") - 1 if line[0] <= "Z" else ord("a") - 27)
            chunk = bytearray()
            body = line[1:]
            for at in range(0, len(body) - 4, 5):
                n = 0
                for c in body[at : at + 5]:
                    n = n * 85 + _GIT85_VALUE.get(c, 0)
                chunk += (n % (1 << 32)).to_bytes(4, "big")
            raw += chunk[:size]
        try:
            out = zlib.decompressobj().decompress(bytes(raw), _MAX_DECODED)
        except zlib.error:
            continue
        yield m.start(1), m.end(1), out


def _wrapped(text: str) -> Iterator[tuple[int, int, bytes]]:
    for m in _WRAPPED.finditer(text):
        joined = "".join(m.group().split())
        try:
            yield m.start(), m.end(), base64.b64decode(joined + "=" * (-len(joined) % 4))
        except (ValueError, binascii.Error):
            continue


def _box_tables(text: str) -> Iterator[tuple[int, int, str]]:
    """Each run of box-table rows, its columns' cells read down and joined."""
    rows = list(_BOX_ROW.finditer(text))
    group: list[re.Match[str]] = []
    for row in [*rows, None]:
        if row is not None and (not group or text.count("\n", group[-1].end(), row.start()) <= 1):
            group.append(row)
            continue
        if len(group) >= 2:
            columns: dict[int, list[str]] = {}
            for m in group:
                for k, cell in enumerate(re.split("[│┃]", m.group())[1:-1]):
                    columns.setdefault(k, []).append(cell.strip())
            read = "\n".join(sep.join(cells) for cells in columns.values() for sep in ("", " "))
            yield group[0].start(), group[-1].end(), read
        group = [row] if row is not None else []


#: each form, and a substring every text of that form holds: UTF-16 hex holds the zero
#: byte of a Latin letter, a dump its offset
_FORMS: tuple[tuple[str, Callable[[str], Iterator[tuple[int, int, bytes]]]], ...] = (
    (" 00 ", _spaced_hex),
    ("  |", _hexdump),
    ("0000000", _od),
    ("\\1", _octal),  # a letter's octal escape is \101 to \172
    ("[", _byte_array),
    ("literal ", _git85),
)


#: the forms' substrings found in a text by one Hyperscan pass
_FORM_TELLS = literals(tuple((tell, EXACT) for tell, _ in _FORMS))
_FORM_TELLS.present("-")  # compiled and its scratch made now, not within a long line's
#: a text this long or longer has its forms' substrings found by that pass (a shorter
#: one's substring searches cost less than the call)
_TOLD = 256


def byte_forms(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, text it says) of each form of the module's docstring in ``text``."""
    if len(text) > _MAX_TEXT or len(text) < 40:
        return
    found = _FORM_TELLS.present(text) if len(text) >= _TOLD else None
    for i, (tell, form) in enumerate(_FORMS):
        if (i in found) if found is not None else (tell in text):
            for start, end, raw in form(text):
                decoded = _text(raw[:_MAX_DECODED])
                if decoded is not None:
                    yield start, end, decoded
    if found is None and ("│" in text or "┃" in text):  # a text the scan read is Latin-1
        yield from _box_tables(text)
