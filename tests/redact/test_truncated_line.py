"""A value cut by a truncation mark is judged by the words just before it on its line:
read back at most ``LINE_BACK`` characters, so that a long line of many cut values is
not read back to its start for each (which took minutes for a line of one megabyte)."""

from __future__ import annotations

import random

from redteam5_secrets import LOOKALIKES_RED5
from research_lookalikes import LOOKALIKES_RESEARCH
from secret_corpus import ORDINARY

from prime_nb.redact._generic import _SECRET_WORD, LINE_BACK, _secret_word_in, truncated_spans

CUT = "Vuka-Tebo-7391"


def _spans(text: str) -> list[str]:
    return [text[a:b] for a, b in truncated_spans(text)]


def test_a_cut_value_after_a_secret_word_on_its_line_is_found() -> None:
    assert _spans(f"login as ci with {CUT} [output truncated]") == [CUT]
    assert _spans(f"the password is, as the log went on for a while, {CUT}…") == [CUT]
    assert _spans(f"the password\nand then {CUT}…") == []  # another line's word


def test_the_line_is_read_back_a_bounded_way() -> None:
    near = "password " + "x " * ((LINE_BACK - 20) // 2)
    far = "password " + "x " * (LINE_BACK // 2 + 10)
    assert _spans(f"{near}{CUT}…") == [CUT]
    assert _spans(f"{far}{CUT}…") == []


def test_the_word_filter_agrees_with_the_pattern() -> None:
    """A line is searched only when it holds a part every match holds: the answer is the
    pattern's on texts of every family, their capitals, and folds (long s, Kelvin sign)."""
    r = random.Random(4)
    texts = [*ORDINARY, *LOOKALIKES_RED5, *LOOKALIKES_RESEARCH]
    texts += [t.upper() for t in texts] + ["pa\u017fs", "\u212aey", "IDENTIFIED  BY x", "ecHo"]
    texts += ["".join(r.choice("pwasecrtoknyhu:/ ") for _ in range(12)) for _ in range(2000)]
    assert [_secret_word_in(t) for t in texts] == [bool(_SECRET_WORD.search(t)) for t in texts]
