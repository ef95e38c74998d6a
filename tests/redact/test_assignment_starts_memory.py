"""Where a key's assignment can start, and where its secret words stand, kept compactly.

JSON held in a string twice has a key naming a secret in every record of about 110
bytes; the places an assignment may start were a set of ints and a sorted list of them,
the words' places a list of ints: with the text and its decoded literal, a line of such
records was redacted at 3.8 x its line (``benchmarks/probe_redact_memory.py``). They are
arrays of 8-byte integers now where many (sorted by NumPy): 2.75-2.91 x.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

from prime_nb.redact import _assignments
from prime_nb.redact._engine import literals

WORDS = "the deploy failed again so I read the logs password=hunter2xyz and retried "
RECORDS = 4000


def _text() -> str:
    """A tool output's JSON held in a string, once decoded: a secret's key a record."""
    return str(json.loads(json.dumps(json.dumps([{"k": WORDS}] * RECORDS))))


def _bytes_per_record(out: Sequence[int] | None) -> float:
    """The bytes of ``out`` (the container and, for a list, its ints) per record. (The
    peak while they are found is the probe's to measure: traced in a test, it moved
    with what the tests before had left in the heap.)"""
    assert out is not None and len(out) >= RECORDS
    kept = sys.getsizeof(out)
    if isinstance(out, list):
        kept += sum(sys.getsizeof(at) for at in out)
    return kept / RECORDS


def test_the_places_an_assignment_can_start_are_kept_in_eight_bytes_each() -> None:
    text = _text()
    kept = _bytes_per_record(_assignments._assignment_starts(text))
    assert kept <= 9, kept  # 36 as a sorted list of ints


def test_the_places_of_a_keys_secret_words_are_kept_in_eight_bytes_each() -> None:
    text = _text()
    words = literals(_assignments._KEY_WORDS)
    kept = _bytes_per_record(words.positions(text, len(text))[1])
    assert kept <= 9, kept  # 36 as a list of ints


def test_the_places_are_sorted_and_each_once() -> None:
    text = _text()[:20_000] + ' "api_key": "x1", \'token\': 2, \\"secret\\": 3'
    starts = list(_assignments._assignment_starts(text) or [])
    assert starts == sorted(set(starts)) and len(starts) > 64
    short = 'a "password": "abc123xyz" and token=zz9'
    few = list(_assignments._assignment_starts(short) or [])
    assert few == sorted(set(few)) and few
    _, hits = literals(_assignments._KEY_WORDS).positions(text, len(text))
    assert hits is not None and list(hits) == sorted(hits)
