"""The views of disguised text map each character back to the text as written.

``_disguise.Origin`` keeps stretches instead of a position per character (a long tool
output in colour would otherwise cost tens of bytes a character). These tests compare it
with the plain per-character lists on random texts with every disguise, and bound the
memory a view of a long coloured text takes.
"""

from __future__ import annotations

import random
import re
import tracemalloc

import pytest

from prime_nb.redact._disguise import views

PIECES = [
    "plain words ",
    "\x1b[31m",
    "\x1b[0m",
    "\u200b",
    "\uff21\uff22",
    "&#x41;",
    "&amp;",
    "\\u0042",
    "\\x43",
    "=3D",
    "=\n",
    "quoted-printable ",
    "](<https://h/x>)",
    '"a,""b"""',
    "Съешь ",
    "😀",
    "tok_3f9a",
]


def _reference(text: str, pattern: re.Pattern[str], char: object) -> tuple[list[int], list[int]]:
    """Where each view character starts and ends, one list entry a character."""
    starts: list[int] = []
    ends: list[int] = []
    at = 0
    for m in pattern.finditer(text):
        starts.extend(range(at, m.start()))
        ends.extend(range(at + 1, m.start() + 1))
        new = char(m.group())  # type: ignore[operator]
        starts.extend([m.start()] * len(new))
        ends.extend([m.end()] * len(new))
        at = m.end()
    starts.extend(range(at, len(text)))
    ends.extend(range(at + 1, len(text) + 1))
    return starts, ends


@pytest.mark.parametrize("seed", range(4))
def test_every_view_maps_its_characters_in_order_inside_the_text(seed: int) -> None:
    r = random.Random(seed)
    text = "".join(r.choice(PIECES) for _ in range(300))
    seen = 0
    for view, origin in views(text):
        seen += 1
        last = 0
        for i in range(len(view)):
            start, end = origin.start(i), origin.end(i)
            assert last <= start < end <= len(text)
            last = start
    assert seen >= 4


DISGUISES = {
    "hidden": ("_HIDDEN", lambda _: ""),
    "folded": ("_FOLDABLE", "_fold"),
    "escaped": ("_ESCAPE", "_escape_char"),
    "quoted-printable": ("_QP", "_qp_char"),
    "link": ("_LINK_BOUNDS", lambda _: "\n"),
}


@pytest.mark.parametrize("kind", DISGUISES)
@pytest.mark.parametrize("seed", range(3))
def test_stretches_equal_per_character_lists(kind: str, seed: int) -> None:
    from prime_nb.redact import _disguise

    name, char = DISGUISES[kind]
    pattern = getattr(_disguise, name)
    char = getattr(_disguise, char) if isinstance(char, str) else char
    r = random.Random(seed)
    text = "".join(r.choice(PIECES) for _ in range(500))
    view, origin = _disguise._replaced(text, pattern, char)
    starts, ends = _reference(text, pattern, char)
    assert len(view) == len(starts)
    assert [origin.start(i) for i in range(len(view))] == starts
    assert [origin.end(i) for i in range(len(view))] == ends


def test_a_long_coloured_text_is_viewed_within_a_few_times_its_size() -> None:
    line = "\x1b[32mok\x1b[0m " + "build step done, nothing to report here. " * 50 + "\n"
    text = line * 1000  # 2 MB, a colour code every 2 KB
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        for _view, _origin in views(text):
            pass
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= 3 * len(text), peak / len(text)
