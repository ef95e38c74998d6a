"""An object's many new keys and short strings are dispatched in one scan of them
joined (``_batch``): the redacted file and its report are the same as when each is
dispatched alone, and the rules read only the strings the scan could not rule out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from prime_nb.redact import _find, redact
from prime_nb.redact import _scrub as scrub
from prime_nb.redact._rule import dispatch as rule_dispatch
from sessiongen import write_jsonl

SECRETS = {
    "GITHUB_TOKEN": "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5",
    "note": "password=hunter2hunter2",
    "ghp_Zq3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5": "a key that is a token",
    "owner": "dana.ops@northwind-labs.io",
    "AKCp8abcdefghij0123456789": "starts as Artifactory's",
}


def _session(path: Path) -> Path:
    data: dict[str, Any] = {f"k{i}": f"v{i}" for i in range(300)}
    for i, (key, value) in enumerate(SECRETS.items()):
        data[f"mid{i}"] = "plain"
        data[key] = value
    head = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}
    entry = {
        "type": "custom",
        "id": "c1",
        "parentId": None,
        "timestamp": "2026-01-05T10:00:01Z",
        "data": data,
    }
    return write_jsonl(path, [head, entry])


def _redacted(tmp_path: Path, name: str) -> tuple[str, list[tuple[str, str, str]], list[str]]:
    read: list[str] = []

    def counted(rules: Any, text: str, low: str | None) -> Any:
        read.append(text)
        return rule_dispatch(rules, text, low)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_find, "dispatch", counted)
        done = redact(_session(tmp_path / f"{name}.jsonl"), tmp_path / f"{name}.out", hostnames=[])
    report = done.report
    rows = sorted(zip(report["field"], report["rule"], report["placeholder"], strict=True))
    return (tmp_path / f"{name}.out").read_text(), rows, read


def test_keys_dispatched_together_redact_as_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    together, rows, read = _redacted(tmp_path, "together")
    monkeypatch.setattr(scrub, "_BATCH_LEAST", 1 << 30)
    alone, rows_alone, read_alone = _redacted(tmp_path, "alone")
    assert together == alone and rows == rows_alone
    for value in SECRETS.values():
        assert value not in together or value in (
            "a key that is a token",
            "starts as Artifactory's",
        )
    assert "ghp_Zq3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5" not in together
    assert len(rows) >= 4
    assert "k17" in read_alone and "k17" not in read  # ruled out by the joined scan
    assert "AKCp8abcdefghij0123456789" in read  # its start opens a rule: read alone
    assert len(read) < len(read_alone) - 500
