"""The secret corpus: no secret, nor a 6-character piece of one, survives redaction.

Every kind of secret in every place (``secret_corpus``) goes through :func:`redact` once
(a module fixture: the whole corpus takes seconds to redact); what the CLI prints for it
(``say_redaction``, all ``prime-nb redact --details`` prints) and the page exported from
it are searched too, as is what each writes or warns, for every planted secret and every
piece of one. The ordinary sentences must come out unchanged, and the tree must load the
same.

The CLI (``prime-nb redact`` as a process, ``--dry-run`` in this process) and
``export_html(redact=True)`` run end to end on the smaller corpus of the specification's
dialect (``build_spec``: every kind, in fewer places), where what they write is checked
to be exactly :func:`redact`'s output and ``say_redaction``'s text, or the page of the
redacted file: so the whole corpus's checks of those two hold for the CLI and the export
too, without redacting the corpus three times.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from cli_in_process import run_cli
from leak_check import LeakIndex
from redteam3_secrets import LOOKALIKES_RED3
from redteam5_secrets import LOOKALIKES_RED5
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
from prime_nb.cli._redact import say_redaction
from prime_nb.redact import Redaction, redact
from prime_nb.widget import read_export

CLI = [sys.executable, "-m", "prime_nb.cli"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return build(tmp_path_factory.mktemp("corpus") / "corpus.jsonl")


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """The corpus in the specification's dialect (every kind, fewer places)."""
    return build_spec(tmp_path_factory.mktemp("spec") / "spec.jsonl")


@pytest.fixture(scope="module")
def spec_redacted(spec: Corpus, tmp_path_factory: pytest.TempPathFactory) -> Redaction:
    """:func:`redact`'s output for the spec corpus, with a host name it does not hold (as
    the CLI is given): the file the CLI must write, and the spec dialect's own check."""
    out = tmp_path_factory.mktemp("spec-redacted") / "same.jsonl"
    return redact(spec.path, out, hostnames=["nohost-here"])


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
    pieces(
        "\n".join(
            [*ORDINARY, *LOOKALIKES_RED3, *LOOKALIKES_RED5, *(f"n{n:05d}zq" for n in range(40000))]
        )
    )
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


_WHOLE_INDEXES: dict[Path, LeakIndex] = {}


def whole_secrets_in(corpus: Corpus, text: str) -> list[str]:
    """``place/kind`` of each planted secret whose whole form is in ``text`` as it is
    (``secret in text``, or JSON-escaped): one hashed pass over ``text`` rather than a
    search of it for each secret. No pieces: a page's script holds 6-character runs of
    every sort."""
    if corpus.path not in _WHOLE_INDEXES:
        planted = [(f"{place}/{kind}", item.whole, ()) for place, kind, item in corpus.planted]
        _WHOLE_INDEXES[corpus.path] = LeakIndex.build(planted)
    return _WHOLE_INDEXES[corpus.path].leaks(text, decode=False)


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


def printed(result: Redaction) -> str:
    """What ``prime-nb redact --details`` prints of ``result`` before its last line (the
    written file's name and counts)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        say_redaction(result, details=True)
    return out.getvalue()


def test_no_secret_shows_in_the_cli(corpus: Corpus, redacted: Redaction) -> None:
    """One run prints all there is: every replacement and every suspect (--details); the
    CLI prints exactly this (``test_the_cli_prints_and_writes_what_redact_does``)."""
    text = printed(redacted)
    assert len(text.splitlines()) > len(corpus.planted)
    assert leaks(corpus, text) == []


def test_the_cli_prints_and_writes_what_redact_does(
    spec: Corpus, spec_redacted: Redaction, tmp_path: Path
) -> None:
    """``prime-nb redact --details`` end to end: its file is :func:`redact`'s, byte for
    byte, its output ``say_redaction``'s and one line more, and none shows a secret."""
    out = tmp_path / "cli.jsonl"
    written = run("redact", spec.path, "-o", out, "--details", "--host", "nohost-here")
    assert written.returncode == 0, written.stderr
    assert leaks(spec, written.stdout + written.stderr) == []
    assert leaks(spec, out.read_text("utf-8")) == []
    same = spec_redacted
    assert out.read_bytes() == same.path.read_bytes()  # type: ignore[union-attr]
    *lines, last = written.stdout.splitlines()
    assert "\n".join(lines) + "\n" == printed(same)
    assert last == f"{out}: {len(same.report)} replacements, {len(same.suspects)} suspects"
    assert len(lines) > len(spec.planted)


def test_no_secret_shows_in_a_dry_run_summary(spec: Corpus) -> None:
    """In this process (``cli_in_process``): what it prints is the test, and the command
    runs as a process in ``test_the_cli_prints_and_writes_what_redact_does``."""
    dry = run_cli("redact", spec.path, "--dry-run", "--host", "nohost-here")
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.splitlines()[0].split() == ["rule", "replacements", "values", "lines"]
    assert "suspects" in dry.stdout
    assert leaks(spec, dry.stdout + dry.stderr) == []


def no_secret_in_page(corpus: Corpus, page: Path) -> None:
    """The page's data, a line per value (``indent=0``): the leak check decodes the lines
    that hold an encoding's mark, so one line of the whole payload would be decoded
    whole once per mark."""
    payload = json.dumps(read_export(page), ensure_ascii=False, indent=0)
    assert leaks(corpus, payload) == []
    assert whole_secrets_in(corpus, page.read_text("utf-8")) == []


def test_no_secret_shows_in_the_redacted_export(
    corpus: Corpus, redacted: Redaction, tmp_path: Path
) -> None:
    """The page of the redacted corpus: what ``export_html(redact=True)`` writes
    (``test_export_with_redact_is_the_page_of_the_redacted_file``)."""
    assert redacted.path is not None
    no_secret_in_page(corpus, prime_nb.export_html(redacted.path, tmp_path / "corpus.html"))


def test_export_with_redact_is_the_page_of_the_redacted_file(spec: Corpus, tmp_path: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        page = prime_nb.export_html(spec.path, tmp_path / "spec.html", redact=True)
    assert leaks(spec, "\n".join(str(w.message) for w in caught)) == []
    no_secret_in_page(spec, page)
    # redact=True redacts a copy of the same name, with the same defaults, then exports it
    (tmp_path / "copy").mkdir()
    copy = redact(spec.path, tmp_path / "copy" / spec.path.name).path
    assert copy is not None
    same = prime_nb.export_html(copy, tmp_path / "same.html")
    assert page.read_text("utf-8") == same.read_text("utf-8")


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
    """Config and command lines that name a secret's word and hold none, of every list
    (``redteam5_secrets``'s too): at most one in 80 of their placements may change."""
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


def test_the_spec_dialect_too(spec: Corpus, spec_redacted: Redaction) -> None:
    corpus = spec
    assert len(corpus.planted) == len(KINDS) * (len(SPEC_PLACES) + 1)
    source = prime_nb.load(corpus.path)
    assert source.dialect == "spec" and len(source.entries) == len(KINDS) * len(SPEC_PLACES)
    out, report = spec_redacted
    assert out is not None
    assert leaks(corpus, out.read_text("utf-8") + report.to_csv()) == []
    new = prime_nb.load(out)
    for column in ("parent_id", "type", "role"):
        assert new.entries[column].tolist() == source.entries[column].tolist(), column
