"""Research data stays as written: tables, SQL, name/value pairs, hexdumps, byte lists,
hardware numbers, version pins, prose about seed phrases, hash formats and password
flags given a reference (``research_lookalikes``), each in every place a look-alike is
written, redacted once: at most one placement in 80 may change, as issue 43 allows."""

from __future__ import annotations

from pathlib import Path

import pytest
from research_lookalikes import LOOKALIKES_RESEARCH
from secret_corpus import LOOKALIKE_PLACES, PLACES, _Session

from prime_nb.redact import redact


def build(path: Path) -> dict[str, list[int]]:
    """Write every look-alike in every look-alike place; return each one's 1-based lines."""
    session, placed = _Session(), {}
    for text in LOOKALIKES_RESEARCH:
        placed[text] = [PLACES[where](session, text) + 1 for where in LOOKALIKE_PLACES]
    head = '{"type": "session", "version": 3, "id": "r", "timestamp": "2026-01-05T10:00:00Z"}'
    path.write_text("\n".join([head, *session.lines]) + "\n", encoding="utf-8")
    return placed


def changed(folder: Path) -> tuple[list[str], int]:
    """The look-alikes whose line changed (once per placement), and the placements."""
    placed = build(folder / "research.jsonl")
    out = redact(folder / "research.jsonl", folder / "out.jsonl", hostnames=[]).path
    assert out is not None
    before = (folder / "research.jsonl").read_text("utf-8").split("\n")
    after = out.read_text("utf-8").split("\n")
    pairs = [(t, n) for t, numbers in placed.items() for n in numbers]
    return [t for t, n in pairs if before[n - 1] != after[n - 1]], len(pairs)


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], int]:
    return changed(tmp_path_factory.mktemp("research"))


def test_the_list_is_research_data_of_every_family() -> None:
    assert len(LOOKALIKES_RESEARCH) >= 60
    assert len(set(LOOKALIKES_RESEARCH)) == len(LOOKALIKES_RESEARCH)


def test_research_data_stays(result: tuple[list[str], int]) -> None:
    lost, placements = result
    assert placements >= 80 * 6
    assert len(lost) <= placements / 80, sorted(set(lost))
