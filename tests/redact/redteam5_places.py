"""The fifth attack list's new places: how tools print bytes and tables, and structure.

Apart from the kinds (``redteam5_secrets``) because a place is one idea (how a snippet is
shown) and a kind another. ``ENCODINGS_RED5`` shows a snippet as a tool prints bytes:
UTF-16 (``powershell -EncodedCommand``, a hex dump of a Windows file), ``hexdump -C``,
``od -c``, base64 wrapped at 76 columns, a table whose cell wraps, a Node ``Buffer`` as
JSON, octal escapes, git's binary patch (zlib and base85). ``STRUCTURE_RED5`` puts it in
a tool call's id and name, an image whose type lies, a data URL.
"""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Callable
from typing import Any

# -- new places and encodings ------------------------------------------------------------


def utf16_base64(text: str) -> str:
    """``powershell -EncodedCommand`` takes base64 of UTF-16LE."""
    return (
        "powershell.exe -NoProfile -EncodedCommand "
        + base64.b64encode(text.encode("utf-16-le")).decode()
    )


def utf16_hex(text: str) -> str:
    """A hex dump of a file saved as UTF-16 (with its byte order mark)."""
    return "PS> Format-Hex .env -Raw\n" + ("\ufeff" + text).encode("utf-16-le").hex(" ")


def hexdump_canonical(text: str) -> str:
    """``hexdump -C``: offsets, 16 bytes as hex, and the printable ones beside them."""
    raw, lines = text.encode(), []
    for at in range(0, len(raw), 16):
        row = raw[at : at + 16]
        shown = "".join(chr(b) if 32 <= b < 127 else "." for b in row)
        lines.append(f"{at:08x}  {row.hex(' '):<47}  |{shown}|")
    return "$ hexdump -C note.bin\n" + "\n".join(lines)


def od_chars(text: str) -> str:
    """``od -c``: each byte as a character, four columns wide, 16 a line."""
    raw = text.encode()
    shown = {10: "\\n", 9: "\\t", 13: "\\r"}
    cells = [shown.get(b, chr(b) if 32 <= b < 127 else f"{b:03o}") for b in raw]
    lines = [
        f"{at:07o}" + "".join(f"{c:>4}" for c in cells[at : at + 16])
        for at in range(0, len(cells), 16)
    ]
    return "$ od -c note.bin\n" + "\n".join(lines)


def base64_wrapped(text: str) -> str:
    """What ``base64`` prints: lines of 76 characters."""
    once = base64.b64encode(text.encode()).decode()
    return "$ base64 .env\n" + "\n".join(once[i : i + 76] for i in range(0, len(once), 76))


def table_wrapped(text: str) -> str:
    """A tool's box table whose value column wraps at 24 characters."""
    flat = text.replace("\n", " ")
    cells = [flat[i : i + 24] for i in range(0, len(flat), 24)] or [""]
    rows = [f"│ {'NOTE' if n == 0 else '':<6} │ {cell:<24} │" for n, cell in enumerate(cells)]
    return (
        "┌────────┬──────────────────────────┐\n"
        + "\n".join(rows)
        + "\n└────────┴──────────────────────────┘"
    )


def node_buffer(text: str) -> str:
    """A Node ``Buffer`` written as JSON: its bytes as a list of numbers."""
    return json.dumps({"type": "Buffer", "data": list(text.encode())})


def octal_escapes(text: str) -> str:
    return "printf '" + "".join(f"\\{b:03o}" for b in text.encode()) + "' > .env"


def git_binary_patch(text: str) -> str:
    """A ``git diff --binary`` literal: zlib-deflated bytes in git's base85 lines."""
    raw = zlib.compress(text.encode())
    lines = []
    for at in range(0, len(raw), 52):
        chunk = raw[at : at + 52]
        size = len(chunk)
        mark = chr(ord("A") + size - 1) if size <= 26 else chr(ord("a") + size - 27)
        lines.append(mark + _git_b85(chunk))
    return (
        "diff --git a/.env.bin b/.env.bin\nnew file mode 100644\nindex 0000000..8f3a2b1\n"
        f"GIT binary patch\nliteral {len(text.encode())}\n"
        + "\n".join(lines)
        + "\n\nliteral 0\nHcmV?d00001\n"
    )


_GIT85 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"


def _git_b85(data: bytes) -> str:
    out = []
    padded = data + b"\0" * (-len(data) % 4)
    for at in range(0, len(padded), 4):
        n = int.from_bytes(padded[at : at + 4], "big")
        digits = []
        for _ in range(5):
            n, d = divmod(n, 85)
            digits.append(_GIT85[d])
        out.append("".join(reversed(digits)))
    return "".join(out)


#: each new encoding of a snippet in a tool result
ENCODINGS_RED5: dict[str, Callable[[str], str]] = {
    "utf16-base64": utf16_base64,
    "utf16-hex": utf16_hex,
    "hexdump-canonical": hexdump_canonical,
    "od-chars": od_chars,
    "base64-wrapped": base64_wrapped,
    "table-wrapped": table_wrapped,
    "node-buffer-json": node_buffer,
    "octal-escapes": octal_escapes,
    "git-binary-patch": git_binary_patch,
}


def _tool_call_id(s: Any, t: str) -> int:
    """A tool call whose id and name are the snippet, and its result, paired by that id."""
    block = {"type": "toolCall", "id": t, "name": t, "arguments": {}}
    line: int = s.message("assistant", [block])
    s.message(
        "toolResult", [{"type": "text", "text": "ok"}], toolCallId=t, toolName="bash", isError=False
    )
    return line


def _lying_image(s: Any, t: str) -> int:
    """An image block that says PNG and holds text."""
    block = {
        "type": "image",
        "mimeType": "image/png",
        "data": base64.b64encode(t.encode()).decode(),
    }
    return s.message("user", [{"type": "text", "text": "screenshot"}, block])  # type: ignore[no-any-return]


def _data_url(s: Any, t: str) -> int:
    url = "data:text/plain;charset=utf-8;base64," + base64.b64encode(t.encode()).decode()
    return s.message("assistant", [{"type": "text", "text": f"![config]({url})"}])  # type: ignore[no-any-return]


#: places of a session's structure: (session, snippet) -> line
STRUCTURE_RED5: dict[str, Callable[[Any, str], int]] = {
    "tool-call-id-name": _tool_call_id,
    "image-lying-mime": _lying_image,
    "markdown-data-url": _data_url,
}
