"""A session file whose name is not UTF-8 (a Latin-1 name copied from an old disk)
goes through every export, and the name each export records opens the file again.

Python gives such a name's bytes back as lone surrogates, which UTF-8 writers (Arrow,
protobuf, orjson) refuse: the exports write the name as ``ls`` shows it (``\\xNN``),
as the tables do. A header without an id makes the file's name the session's id too.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from prime_nb import load
from prime_nb._names import real_name
from prime_nb.interop import compaction_probes, to_atif, to_otel, to_scout

T0 = "2026-01-05T10:00:00Z"


@pytest.fixture(scope="module")
def latin1_named(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("names")
    path = folder / os.fsdecode(b"caf\xe9.jsonl")
    message = {"role": "user", "content": "hi", "timestamp": 1}
    reply = {"role": "assistant", "content": [{"type": "text", "text": "ok"}], "timestamp": 2}
    entries = [
        {"type": "session", "version": 3, "timestamp": T0, "cwd": "/w"},  # no id
        {"type": "message", "id": "u1", "parentId": None, "timestamp": T0, "message": message},
        {"type": "message", "id": "a1", "parentId": "u1", "timestamp": T0, "message": reply},
        {
            "type": "compaction",
            "id": "c1",
            "parentId": "a1",
            "timestamp": T0,
            "summary": "s",
            "firstKeptEntryId": "a1",
            "tokensBefore": 5,
        },
    ]
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return path


def _opens(recorded: str, path: Path) -> None:
    recorded.encode("utf-8")  # what a UTF-8 writer accepts
    assert "\\xe9" in recorded
    assert os.path.samefile(real_name(recorded), path)


def test_scout_transcripts_and_probes(latin1_named: Path, tmp_path: Path) -> None:
    import inspect_scout as scout  # noqa: F401  (the extra the export needs)

    to_scout(latin1_named, tmp_path / "db", leaves="all")
    probes = compaction_probes(latin1_named, tmp_path / "probes")
    _opens(probes["file"].iloc[0], latin1_named)
    frames = [
        __import__("pyarrow.parquet", fromlist=["x"]).read_table(p).to_pandas()
        for p in (tmp_path / "db").rglob("*.parquet")
    ]
    rows = [row for frame in frames for row in frame.to_dict("records")]
    assert rows
    for row in rows:
        _opens(row["source_uri"], latin1_named)
        assert row["source_id"] == "caf\\xe9"


def test_atif_and_otel(latin1_named: Path, tmp_path: Path) -> None:
    (written,) = to_atif(latin1_named, tmp_path / "atif", family=False)
    doc = json.loads(written.read_bytes())
    assert doc["session_id"] == "caf\\xe9"
    assert doc["extra"]["source_file"] == "caf\\xe9.jsonl"
    traces = to_otel(load(latin1_named), path=tmp_path / "t.pb")
    assert len(traces) == 1
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    request = ExportTraceServiceRequest()
    request.ParseFromString((tmp_path / "t.pb").read_bytes())
    said = str(request)
    assert "caf\\\\xe9" in said or "caf\\xe9" in said
