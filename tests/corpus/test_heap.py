"""The heap of a Dask worker while it reads sessions (``corpus/_heap.py``)."""

from __future__ import annotations

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


def test_roomy_heap_undoes_eager_trimming_and_puts_it_back() -> None:
    libc = FakeLibc()
    environ = {"MALLOC_TRIM_THRESHOLD_": "65536"}  # as Dask sets in its workers
    with _heap.roomy_heap(environ, libc):
        with _heap.roomy_heap(environ, libc):  # nested: one change
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


def test_roomy_heap_restores_even_after_an_error_and_keeps_a_set_mmap_threshold() -> None:
    libc = FakeLibc()
    environ = {"MALLOC_TRIM_THRESHOLD_": "0", "MALLOC_MMAP_THRESHOLD_": "4096"}
    try:
        with _heap.roomy_heap(environ, libc):
            raise KeyError("boom")
    except KeyError:
        pass
    assert libc.calls[-3:] == [
        ("mallopt", _heap._M_TRIM_THRESHOLD, 0),
        ("mallopt", _heap._M_MMAP_THRESHOLD, 4096),
        ("malloc_trim", 0, 0),
    ]
    assert _heap._heap_users == 0


def test_roomy_heap_changes_nothing_in_a_process_that_did_not_ask_for_trimming() -> None:
    libc = FakeLibc()
    with _heap.roomy_heap({}, libc):
        pass
    with _heap.roomy_heap({"MALLOC_TRIM_THRESHOLD_": "lots"}, libc):
        pass
    assert libc.calls == []
