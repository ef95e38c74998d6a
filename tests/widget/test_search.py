"""The widget's search index: same hits as a plain scan, built once, safe with refresh."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable

import pytest

import prime_nb
from prime_nb.widget._data import SessionData
from prime_nb.widget._search import SearchIndex, narrows
from tests.session_matrix import LOADED_CASES


def plain(texts: list[str], query: str) -> list[int]:
    words = query.lower().split()
    return [i for i, t in enumerate(texts) if words and all(w in t for w in words)]


def test_narrows() -> None:
    assert narrows(["conf"], ["config", "e"])
    assert narrows(["a", "b"], ["ab"])
    assert not narrows(["config"], ["conf"])
    assert not narrows([], ["x"])
    assert not narrows(["x"], ["y"])


def test_typing_narrows_but_finds_what_a_plain_scan_finds() -> None:
    rng = random.Random(7)
    alphabet = "abcde "
    texts = ["".join(rng.choice(alphabet) for _ in range(30)) for _ in range(400)]
    index = SearchIndex(lambda: texts)
    for _ in range(300):
        query = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))
        # type it key by key, as the search box sends it
        for end in range(1, len(query) + 1):
            assert index.search(query[:end]) == plain(texts, query[:end])


def test_builds_once_and_a_search_waits_for_the_build_under_way() -> None:
    calls = []

    def slow() -> list[str]:
        calls.append(1)
        time.sleep(0.3)
        return ["alpha", "beta"]

    index = SearchIndex(slow)
    thread = index.warm()
    time.sleep(0.05)
    assert index.search("beta") == [1]
    thread.join()
    assert index.search("alp") == [0]
    assert len(calls) == 1


def test_a_build_overtaken_by_new_rows_is_not_kept() -> None:
    rows = [["old"]]
    started = threading.Event()

    def build() -> list[str]:
        texts = rows[0]
        started.set()
        time.sleep(0.2)
        return texts

    index = SearchIndex(build)
    thread = index.warm()
    started.wait()
    rows[0] = ["old", "new"]
    index.invalidate()
    thread.join()
    assert index.search("new") == [1]


def test_a_failing_background_build_is_retried_by_the_next_search() -> None:
    attempts = []

    def build() -> list[str]:
        attempts.append(1)
        if len(attempts) == 1:
            raise OSError("file gone")
        return ["x"]

    index = SearchIndex(build)
    index.warm().join()
    assert index.search("x") == [0]


@pytest.mark.parametrize("case", LOADED_CASES)
def test_widget_search_matches_a_plain_scan(
    case: str, matrix_session: Callable[[str], prime_nb.Session]
) -> None:
    data = SessionData(matrix_session(case))
    texts = data.search_texts()
    assert len(texts) == data.n
    for query in ["the", "e", "a e", "zzzz-not-there", "", "  "]:
        assert data.search(query) == plain(texts, query)
