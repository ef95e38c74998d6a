"""Redaction's peak memory of a long text of ASCII with a letter of two UTF-8 bytes, or a
zero-width mark, in it.

Issue #43 asks that ``redact`` keep its peak within 3x the longest line. A text of ASCII
words with a Greek, Cyrillic, Armenian or Latin Extended letter, or a zero-width space,
after every 50 characters is two bytes a character as a ``str``, and its line one: the
line and the ``str`` alone were 3x, and redaction grew 3.2x the line (4.3x under a custom
entry's description, whose line is written anew). Such a letter is narrowed to a letter
of Latin-1 (``_narrow.letter_pair``), a text's one kind of hidden mark to the soft
hyphen, so the text is a byte a character: within 2.5x. One shape holds both, under the
description (were either kept, the text would be two bytes a character, and over 4x).
A letter with no case beyond the BMP (CJK Extension B) becomes an uncased letter of
Latin-1, a tag a control of Latin-1, a mathematical letter a letter of Latin-1 of its
case that folds as it does (``_narrow_math.math_fold``): held whole, 3.8x to 4.6x; narrowed,
within 2.5x.
A Hebrew letter is not narrowed (it has no case), but the text is held as one with
nothing narrowed (``_narrow.kept_whole``), written a piece at a time where its line is
written anew: 3x, not 4.3x. One child process measures the shapes. Its line is written at
1.1 and 2.1 MB (the probe's sizes, ``probe_redact_memory.py``), 1 MB apart, so that the
noise allowed at each is a quarter of the line's.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_redact_memory import assert_grew_at_most, measure

WORDS = "the deploy failed again so I read the logs password=hunter2xyz and retried "

#: a letter with no case, not narrowed: held as a text with nothing narrowed
HEBREW = "a Hebrew letter among ASCII under a description"
#: (the letters, one after every 50 characters in turn, whether the line escapes them as
#: ``\\uXXXX``, whether the text is under a custom entry's description)
SHAPES: dict[str, tuple[str, bool, bool]] = {
    "a Cyrillic letter, a zero-width space among ASCII under a description": (
        "\u0436\u200b",
        False,
        True,
    ),
    HEBREW: ("\u05e9", False, True),
}
#: a letter with no case, a tag and mathematical letters (bold upper case, italic lower
#: case) beyond the BMP in turn, each narrowed one for one to one of Latin-1
#: (``_narrow.astral_kind``: an ideograph to ``ª``, a tag to a control;
#: ``_narrow_math.math_fold``: a mathematical letter to a letter of its case): a byte a
#: character, not four (were any kept)
ASTRAL: dict[str, tuple[str, bool, bool]] = {
    "a CJK Extension B ideograph, a tag, mathematical letters among ASCII under a description": (
        "\U00020000\U000e0041\U0001d400\U0001d44e",
        False,
        True,
    ),
}
SHAPES.update(ASTRAL)


def _entry(text: str, description: bool) -> dict[str, Any]:
    if description:
        data = {"description": text, "n": "password=Zq8vN2xL5pT7"}
        return {"type": "custom", "id": "c1", "parentId": None, "customType": "x", "data": data}
    message = {"role": "user", "content": text, "timestamp": 0}
    return {
        "type": "message",
        "id": "u1",
        "parentId": None,
        "timestamp": "2026",
        "message": message,
    }


def _line(shape: str, size: int) -> str:
    """The shape's line at about twice ``size`` bytes less 1 MB (``measure``'s sizes are
    1.06 and 1.56 MB)."""
    letters, escaped, description = SHAPES[shape]
    unit = "".join(WORDS[:50] + letter for letter in letters)
    text = unit * ((2 * size - (1 << 20)) // len(unit.encode()) + 1)
    return json.dumps(_entry(text, description), ensure_ascii=escaped)


@pytest.fixture(scope="module")
def peaks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, float]]:
    return measure(tmp_path_factory.mktemp("letters"), list(SHAPES), line=_line)


@pytest.mark.parametrize(
    "shape", [shape for shape in SHAPES if shape != HEBREW and shape not in ASTRAL]
)
def test_a_text_with_a_letter_of_two_bytes_stays_within_two_and_a_half_times(
    peaks: dict[str, dict[str, float]], shape: str
) -> None:
    assert_grew_at_most(peaks, shape, 2.5)


def test_a_text_not_narrowed_is_written_in_pieces_when_its_line_is_written_anew(
    peaks: dict[str, dict[str, float]],
) -> None:
    """Its ``str`` is two bytes a character beside its line: about 3x, and no more for
    orjson's bytes of the whole line (4.3x on the code before)."""
    assert_grew_at_most(peaks, HEBREW, 3.25)


@pytest.mark.parametrize("shape", ASTRAL)
def test_a_text_with_a_letter_or_tag_beyond_the_bmp_stays_within_two_and_a_half_times(
    peaks: dict[str, dict[str, float]], shape: str
) -> None:
    """Held whole, its ``str`` was four bytes a character: 4.6x."""
    assert_grew_at_most(peaks, shape, 2.5)
