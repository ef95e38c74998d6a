"""export_html(redact=True): the page is made from a redacted copy, the source untouched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FIXTURES, header, msg, write_lines

from prime_nb.widget import export_html, read_export
from sessiongen import synthetic_session

KEY = "sk-ant-api03-" + "Xy9Zw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0Ed9Cb8Aa7"


def test_export_redacted_hides_secrets_and_keeps_the_source(tmp_path: Path) -> None:
    src = write_lines(
        tmp_path / "s.jsonl",
        [header(cwd="/Users/carol/x"), msg("u1", None, "user", f"key {KEY}", 0)],
    )
    before = src.read_bytes()
    out = export_html(src, tmp_path / "s.html", redact=True, redact_rules=[r"key (\w+)"])
    page = out.read_text("utf-8") + json.dumps(read_export(out))
    assert KEY not in page and "/Users/carol" not in page
    # the user rule takes "sk" only; the token rule still takes the whole key
    assert "[REDACTED:token:1]" in page and "Xy9Zw8Vu7" not in page
    assert src.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.html", "s.jsonl"]


@pytest.mark.parametrize("version", [1, 2, 3])
def test_export_redacted_synthetic(tmp_path: Path, version: int) -> None:
    src = synthetic_session(tmp_path / "s.jsonl", version=version, dialect="spec")
    out = export_html(src, tmp_path / "s.html", redact=True)
    # the page's own text and what its compressed parts hold
    page = out.read_text("utf-8") + json.dumps(read_export(out))
    assert "/home/dev" not in page and "/home/user-1" in page


def test_export_redacted_fixture(tmp_path: Path) -> None:
    src = FIXTURES / "agent-written" / "agent-branched-a8.jsonl"
    out = export_html(src, tmp_path / "a.html", redact=True)
    page = out.read_text("utf-8") + json.dumps(read_export(out))
    assert "/home/dev" not in page and "/home/dev" in src.read_text("utf-8")
