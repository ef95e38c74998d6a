"""A piece of a streamed line orjson refuses for a number past a double's range, read
as ``load()`` reads the line.

Why: orjson reads no number past a double's range (``1e400``, an integer of 400
digits), so it refuses a line that holds one, and such a line was read whole by the
lenient parser (``_lines.py``): its text and a float object for each number, many
times a list of such numbers. The stream walk reads the line's bytes and a value at a
time instead: a value orjson refuses is read by the lenient parser alone, which reads
such a number as ``load()`` does (infinity, which orjson writes ``null``, as the tree
walk writes it), and the line is reported repaired, as the tree walk reports it. A
value the lenient parser reads otherwise than orjson would for another reason (a lone
surrogate, text not UTF-8, not JSON) is not taken: the line goes to the tree walk.
"""

from __future__ import annotations

from typing import Any

from ..format import INVALID_JSON, lenient_loads


def read_refused(data: bytes | bytearray | memoryview) -> Any:
    """The JSON value ``data`` that orjson refused, read by the lenient parser;
    ValueError when that does not read it as it is (see the module's docstring)."""
    try:
        text = bytes(data).decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("text not UTF-8") from None
    value, repair = lenient_loads(text)
    if value is INVALID_JSON or repair is not None:
        raise ValueError("text orjson refuses, not for a number past a double's range")
    return value
