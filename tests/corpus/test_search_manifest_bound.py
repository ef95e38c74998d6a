"""A search index's manifest of hostile size: read in time bounded by the listing.

A manifest larger than its listing can need (``manifest_budget``) is not parsed but
rebuilt; entries dropped as invalid are saved away at once, not parsed again by every
search. ``benchmarks/bench_hostile_files.py --manifest`` times a million entries.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from conftest import header, msg, write_lines

from prime_nb.corpus import search
from prime_nb.corpus._search_manifest import load_manifest, manifest_budget

QUERY = "needle"


@pytest.fixture
def indexed(tmp_path: Path) -> tuple[Path, Path, Path, pd.DataFrame]:
    """Three sessions, their index and the hits without it."""
    folder, cache = tmp_path / "corpus", tmp_path / "cache"
    folder.mkdir()
    for k in range(3):
        lines = [header(id=f"s{k}"), msg("u1", None, "user", f"find the needle {k}", 1)]
        write_lines(folder / f"s{k}.jsonl", lines)
    want = _search(folder)
    assert len(want) == 3
    pd.testing.assert_frame_equal(_search(folder, cache=cache), want)
    return folder, cache, next(cache.glob("search-corpus-*")), want


def _search(target: Any, **kwargs: Any) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return search(target, QUERY, workers=1, **kwargs)


def _add(manifest: Path, entries: dict[str, list[Any]]) -> None:
    held = json.loads(manifest.read_text(encoding="utf-8"))
    held["files"].update(entries)
    manifest.write_text(json.dumps(held), encoding="utf-8")


def test_a_manifest_over_its_budget_is_rebuilt_not_kept(
    indexed: tuple[Path, Path, Path, pd.DataFrame],
) -> None:
    """Entries well formed, for paths that exist but are not listed (the same file
    spelt with ``./`` runs): kept, they would be parsed by every search for good."""
    folder, cache, index, want = indexed
    manifest = index / "manifest.json"
    entry = [1, 2, 3, 4, None, None, None, "00"]
    extra = {f"{folder}/{'./' * k}s0.jsonl": entry for k in range(1, 3000)}
    _add(manifest, extra)
    assert manifest.stat().st_size > manifest_budget(3)
    pd.testing.assert_frame_equal(_search(folder, cache=cache), want)
    assert sorted(load_manifest(index)) == sorted(str(p) for p in folder.glob("*.jsonl"))
    assert manifest.stat().st_size < manifest_budget(3)


def test_invalid_entries_are_saved_away_at_once(
    indexed: tuple[Path, Path, Path, pd.DataFrame],
) -> None:
    folder, cache, index, want = indexed
    manifest = index / "manifest.json"
    _add(
        manifest,
        {f"/gone/{k}.jsonl": [1, 2, 3, 4, "../x.arrow", None, None, ""] for k in range(50)},
    )
    pd.testing.assert_frame_equal(_search(folder, cache=cache), want)
    held = json.loads(manifest.read_text(encoding="utf-8"))
    assert len(held["files"]) == 3


def test_entries_of_files_not_listed_stay_within_the_budget(
    indexed: tuple[Path, Path, Path, pd.DataFrame],
) -> None:
    """A search of one file keeps the other files' entries (the next search of the
    folder reads nothing again) while the manifest is within its budget."""
    folder, cache, index, want = indexed
    before = load_manifest(index)
    one = _search([folder / "s0.jsonl"], cache=cache)
    assert len(one) == 1
    assert load_manifest(index) == before
    pd.testing.assert_frame_equal(_search(folder, cache=cache), want)
