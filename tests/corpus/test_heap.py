"""The heap of a Dask worker while it reads sessions (``corpus/_heap.py``)."""

from __future__ import annotations

import pytest

from prime_nb.corpus import _heap


class FakeLibc:
    """Records glibc calls (the real ones change this test process's heap)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int]] = []

    def mallopt(self, param: int, value: int) -> int:
        self.calls.append(("mallopt", param, value))
        return 1

    def malloc_trim(self, pad: int) -> int:
        self.calls.append(("malloc_trim", pad, 0))
        return 1


@pytest.fixture
def libc(monkeypatch: pytest.MonkeyPatch) -> FakeLibc:
    fake = FakeLibc()
    monkeypatch.setattr(_heap, "_glibc", lambda: fake)
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    return fake


def test_roomy_heap_undoes_eager_trimming_and_puts_it_back(
    libc: FakeLibc, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")  # as Dask sets in its workers
    with _heap.roomy_heap():
        with _heap.roomy_heap():  # nested: one change
            assert libc.calls == [
                ("mallopt", _heap._M_TRIM_THRESHOLD, _heap._ROOMY_TRIM),
                ("mallopt", _heap._M_MMAP_THRESHOLD, _heap._ROOMY_MMAP),
            ]
        assert len(libc.calls) == 2
    assert libc.calls[2:] == [
        ("mallopt", _heap._M_TRIM_THRESHOLD, 65536),
        ("mallopt", _heap._M_MMAP_THRESHOLD, 128 * 1024),
        ("malloc_trim", 0, 0),
    ]


def test_roomy_heap_restores_even_after_an_error_and_keeps_a_set_mmap_threshold(
    libc: FakeLibc, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "0")
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "4096")
    with pytest.raises(KeyError, match="boom"), _heap.roomy_heap():
        raise KeyError("boom")
    assert libc.calls[-3:] == [
        ("mallopt", _heap._M_TRIM_THRESHOLD, 0),
        ("mallopt", _heap._M_MMAP_THRESHOLD, 4096),
        ("malloc_trim", 0, 0),
    ]
    assert _heap._heap_users == 0


def test_roomy_heap_changes_nothing_in_a_process_that_did_not_ask_for_trimming(
    libc: FakeLibc, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _heap.roomy_heap():
        pass
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "lots")
    with _heap.roomy_heap():
        pass
    assert libc.calls == []
