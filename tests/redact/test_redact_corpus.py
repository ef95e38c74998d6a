"""The secret corpus: no secret, nor a 6-character piece of one, survives redaction.

Every kind of secret in every place (``secret_corpus``) goes through :func:`redact`, the
CLI (``prime-nb redact`` and ``--dry-run``) and ``export_html(redact=True)``; what each
writes, prints or warns is searched for every planted secret and every piece of one. The
ordinary sentences must come out unchanged, and the tree must load the same.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from leak_check import LeakIndex
from redteam3_secrets import LOOKALIKES_RED3
from secret_corpus import (
    KINDS,
    LOOKALIKES,
    LOOKALIKES_MORE,
    ORDINARY,
    PLACES,
    RAW_PLACES,
    SPEC_PLACES,
    Corpus,
    build,
    build_spec,
    pieces,
)

import prime_nb
from prime_nb.redact import Redaction, redact
from prime_nb.widget import read_export

CLI = [sys.executable, "-m", "prime_nb.cli"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return build(tmp_path_factory.mktemp("corpus") / "corpus.jsonl")


@pytest.fixture(scope="module")
def redacted(corpus: Corpus) -> Redaction:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = redact(corpus.path, corpus.path.with_name("shared.jsonl"), hostnames=[])
    assert result.path is not None
    assert leaks(corpus, "\n".join(str(w.message) for w in caught)) == []
    return result


#: pieces that the ordinary sentences, the third round's look-alikes (digests, integrity
#: hashes) and the entries' ids hold are no sign of a leak
BENIGN = set(
    pieces("\n".join([*ORDINARY, *LOOKALIKES_RED3, *(f"n{n:05d}zq" for n in range(40000))]))
)
_INDEXES: dict[Path, LeakIndex] = {}


def leaks(corpus: Corpus, text: str) -> list[str]:
    """``place/kind`` of each planted secret that shows, whole or by a 6-character piece,
    as written or encoded (see ``leak_check``: the pieces are indexed once per corpus)."""
    if corpus.path not in _INDEXES:
        planted = [
            (f"{place}/{kind}", item.whole, item.random) for place, kind, item in corpus.planted
        ]
        _INDEXES[corpus.path] = LeakIndex.build(planted, BENIGN)
    return _INDEXES[corpus.path].leaks(text)


def test_the_corpus_covers_every_kind_and_place(corpus: Corpus) -> None:
    assert len(KINDS) >= 216 and len(PLACES) + len(RAW_PLACES) + 1 >= 71
    assert len(corpus.planted) == len(KINDS) * (len(PLACES) + len(RAW_PLACES) + 1)
    assert len(ORDINARY) >= 40
    raw = corpus.path.read_text("utf-8")
    assert len(leaks(corpus, raw)) == len(corpus.planted)  # every one is there to find


def test_no_secret_survives_in_the_file(corpus: Corpus, redacted: Redaction) -> None:
    out, _ = redacted
    assert leaks(corpus, out.read_text("utf-8")) == []


def test_no_secret_shows_in_the_report(corpus: Corpus, redacted: Redaction) -> None:
    _, report = redacted
    assert leaks(corpus, report.to_csv()) == []
    assert leaks(corpus, redacted.suspects.to_csv()) == []
    kinds = set(report["rule"])
    assert {"secret-field", "keyword-secret", "private-key", "base64-secret"} <= kinds
    assert "unparsed-line" in kinds  # the torn and broken lines are withheld


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, timeout=300)


def test_no_secret_shows_in_the_cli(corpus: Corpus, tmp_path: Path) -> None:
    """One run prints all there is: every replacement and every suspect (--details)."""
    out = tmp_path / "cli.jsonl"
    written = run("redact", corpus.path, "-o", out, "--details", "--host", "nohost-here")
    assert written.returncode == 0, written.stderr
    assert len(written.stdout.splitlines()) > len(corpus.planted)
    assert leaks(corpus, written.stdout + written.stderr) == []
    assert leaks(corpus, out.read_text("utf-8")) == []


def test_no_secret_shows_in_a_dry_run_summary(tmp_path: Path) -> None:
    corpus = build_spec(tmp_path / "spec.jsonl")
    dry = run("redact", corpus.path, "--dry-run", "--host", "nohost-here")
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.splitlines()[0].split() == ["rule", "replacements", "values", "lines"]
    assert "suspects" in dry.stdout
    assert leaks(corpus, dry.stdout + dry.stderr) == []


def test_no_secret_shows_in_the_redacted_export(corpus: Corpus, tmp_path: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        page = prime_nb.export_html(corpus.path, tmp_path / "corpus.html", redact=True)
    assert leaks(corpus, "\n".join(str(w.message) for w in caught)) == []
    payload = json.dumps(read_export(page), ensure_ascii=False)
    assert leaks(corpus, payload) == []
    html = page.read_text("utf-8")
    # whole secrets as written, found by the index's hashed windows in one pass over the
    # page (a substring search per secret costs placements times the page's size)
    whole = LeakIndex.build([(f"{p}/{k}", item.whole, ()) for p, k, item in corpus.planted])
    assert whole.leaks(html, decode=False) == []


def test_ordinary_sentences_stay(corpus: Corpus, redacted: Redaction) -> None:
    out, report = redacted
    before = corpus.path.read_text("utf-8").split("\n")
    after = out.read_text("utf-8").split("\n")
    changed = sorted(
        sentence
        for sentence, numbers in corpus.ordinary.items()
        if any(before[n - 1] != after[n - 1] for n in numbers)
    )
    assert changed == [], report[
        report["line"].isin({n for s in changed for n in corpus.ordinary[s]})
    ]


def test_lookalikes_stay(corpus: Corpus, redacted: Redaction) -> None:
    """Config and command lines that name a secret's word and hold none: at most one in
    80 of their placements may change."""
    before = corpus.path.read_text("utf-8").split("\n")
    after = redacted.path.read_text("utf-8").split("\n")  # type: ignore[union-attr]
    placed = [(s, n) for s, numbers in corpus.lookalikes.items() for n in numbers]
    changed = [s for s, n in placed if before[n - 1] != after[n - 1]]
    assert len(LOOKALIKES) + len(LOOKALIKES_MORE) >= 100 and len(placed) >= 80 * 10
    assert len(changed) <= len(placed) / 80, changed


def test_the_redacted_file_keeps_its_tree(corpus: Corpus, redacted: Redaction) -> None:
    out, _ = redacted
    old, new = prime_nb.load(corpus.path), prime_nb.load(out)
    for column in ("parent_id", "type", "role"):
        assert new.entries[column].tolist() == old.entries[column].tolist(), column
    assert list(new.entries.index) == list(old.entries.index)
    assert len(new.entries) > len(corpus.planted)


def test_the_spec_dialect_too(tmp_path: Path) -> None:
    corpus = build_spec(tmp_path / "spec.jsonl")
    assert len(corpus.planted) == len(KINDS) * (len(SPEC_PLACES) + 1)
    source = prime_nb.load(corpus.path)
    assert source.dialect == "spec" and len(source.entries) == len(KINDS) * len(SPEC_PLACES)
    out, report = redact(corpus.path, tmp_path / "shared.jsonl", hostnames=[])
    assert out is not None
    assert leaks(corpus, out.read_text("utf-8") + report.to_csv()) == []
    new = prime_nb.load(out)
    for column in ("parent_id", "type", "role"):
        assert new.entries[column].tolist() == source.entries[column].tolist(), column
