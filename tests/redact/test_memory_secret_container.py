"""Redaction's peak memory on a list or object of many small values under a secret's key.

Measured as ``test_redact_memory.py`` measures its shapes (its docstring: the growth
between two sizes of line, per byte of line, each run in a child of one warmed process).
Every value under a secret's key was replaced by a placeholder of its own, learned as a
known value and reported as a row: under a list of small numbers that was 51x the line
(``load`` 9x), under an object of short members 20.8x (``load`` 13.5x). Past 256 values
such a list or object is replaced as one value (``_whole_secret.py``): about 1x and 1.6x
now. What the walk keeps of it is pinned by count too (the known values, the report's
rows), which no heap left by earlier tests can move.
"""

from __future__ import annotations

import json

import pytest
import test_redact_memory
from test_redact_memory import MB, assert_grew_at_most, measure

from prime_nb.redact._rules import default_rules
from prime_nb.redact._scrub import Scrubber

NUMBERS = "many small numbers under api_key"
KEYS = "many keys, short under api_key"


def _line(shape: str, size: int) -> str:
    """The long line of ``shape`` at about ``size`` bytes, under a custom entry's data."""
    if shape == NUMBERS:
        value: object = list(range(size // 7))
    elif shape == KEYS:
        value = {f"k{i}": i for i in range(size // 12)}
    else:
        raise ValueError(shape)
    data = {"api_key": value, "n": "password=Zq8vN2xL5pT7"}
    entry = {"type": "custom", "id": "c1", "parentId": None, "customType": "x"}
    return json.dumps({**entry, "data": data})


@pytest.fixture(scope="module")
def peaks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, float]]:
    """Per shape: redact's growth per byte of line between two sizes (over 256 KB, so
    walked as a stream; smaller than most shapes': each key is read by the rules)."""
    with pytest.MonkeyPatch.context() as patch:
        sizes = {NUMBERS: (5 * MB // 16, 3 * MB // 4), KEYS: (5 * MB // 16, 5 * MB // 8)}
        patch.setattr(test_redact_memory, "SIZES_OF", {**test_redact_memory.SIZES_OF, **sizes})
        return measure(tmp_path_factory.mktemp("container"), [NUMBERS, KEYS], line=_line)


def test_many_small_numbers_under_a_secret_key(peaks: dict[str, dict[str, float]]) -> None:
    """51x the line before (``load`` 9x); about 1x now."""
    assert_grew_at_most(peaks, NUMBERS, 3.0)


def test_many_short_keys_under_a_secret_key(peaks: dict[str, dict[str, float]]) -> None:
    """20.8x the line before (``load`` 13.5x); about 1.6x now."""
    assert_grew_at_most(peaks, KEYS, 3.0)


@pytest.mark.parametrize("shape", [NUMBERS, KEYS])
def test_the_walk_keeps_one_value_and_one_row_for_them_all(shape: str) -> None:
    """A known value and a row for each of some 3,000 values before; one of each now."""
    entry = json.loads(_line(shape, 24_000))
    scrubber = Scrubber(default_rules([]))
    scrubber.learn(entry)
    rows: list[object] = []
    scrubber.scrub(entry, rows)  # type: ignore[arg-type]
    assert len(scrubber.known) == 2  # the whole list or object, and the password
    assert len(rows) == 2
