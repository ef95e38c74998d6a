"""prime-nb convert --to otel: a file or a folder into OTLP protobuf files, or sent to an
OTLP/HTTP endpoint; a missing destination, a refused send and a missing extra are
one-line errors."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from otlp_receiver import receiving, spans_of
from session_matrix import clean_lines, write_lines

import prime_nb
from prime_nb.cli import main


def test_a_file_becomes_one_pb_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write_lines(tmp_path / "clean.jsonl", clean_lines())
    out = tmp_path / "clean.pb"
    assert main(["convert", str(source), "--to", "otel", "-o", str(out), "--all-leaves"]) == 0
    leaves = len(prime_nb.load(source).leaves)
    assert capsys.readouterr().out == f"{out}: {leaves} traces\n"
    spans = spans_of(out.read_bytes())
    assert len({span.trace_id for span in spans}) == leaves == 2


def test_link_shared_writes_each_span_once(tmp_path: Path) -> None:
    source = write_lines(tmp_path / "clean.jsonl", clean_lines())
    whole, linked = tmp_path / "whole.pb", tmp_path / "linked.pb"
    assert main(["convert", str(source), "--to", "otel", "-o", str(whole), "--all-leaves"]) == 0
    args = ["convert", str(source), "--to", "otel", "-o", str(linked), "--all-leaves"]
    assert main([*args, "--link-shared"]) == 0
    repeated, once = spans_of(whole.read_bytes()), spans_of(linked.read_bytes())
    assert len({span.trace_id for span in once}) == 2
    assert len(once) < len(repeated)
    assert sum(len(span.links) for span in once) == 1


def test_a_folder_becomes_a_pb_file_per_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "in").mkdir()
    for name in ("a", "b"):
        write_lines(tmp_path / "in" / f"{name}.jsonl", clean_lines())
    out = tmp_path / "traces"
    assert main(["convert", str(tmp_path / "in"), "--to", "otel", "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["a.pb", "b.pb"]
    assert capsys.readouterr().out.splitlines() == [
        f"{out / 'a.pb'}: 1 traces",
        f"{out / 'b.pb'}: 1 traces",
    ]


def test_an_endpoint_gets_the_traces_in_the_project(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write_lines(tmp_path / "clean.jsonl", clean_lines())
    with receiving() as received:
        args = ["convert", str(source), "--to", "otel", "--endpoint", received.url]
        assert main([*args, "--project", "runs"]) == 0
    assert capsys.readouterr().out == f"{source}: 1 traces sent to {received.url}\n"
    ((path, _, body),) = received.requests
    assert path == "/v1/traces"
    assert spans_of(body)


def test_convert_to_otel_errors_are_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    source = str(write_lines(tmp_path / "clean.jsonl", clean_lines()))
    assert main(["convert", source, "--to", "otel"]) == 1
    assert capsys.readouterr().err == (
        "prime-nb: error: convert --to otel: give -o FILE.pb or --endpoint URL (one of them)\n"
    )
    assert main(["convert", source, "--to", "atif"]) == 2
    assert "--to atif writes files; pass -o DEST" in capsys.readouterr().err
    with receiving(status=400) as received:
        assert main(["convert", source, "--to", "otel", "--endpoint", received.url]) == 1
    err = capsys.readouterr().err
    assert err == (  # what the exporter logged is in the one line, not beside it
        f"prime-nb: error: {received.url}: the spans were not accepted (Failed to export "
        "spans batch code: 400, reason: Bad Request); check that the OTLP receiver "
        "(Phoenix, Jaeger, a collector) is running at that address\n"
    )
    assert main(["convert", source, "--to", "otel", "--endpoint", "localhost:4318"]) == 1
    assert "localhost:4318: not an OTLP/HTTP address" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)
    monkeypatch.setattr("prime_nb.interop._otel._SDK", None)
    assert main(["convert", source, "--to", "otel", "-o", str(tmp_path / "t.pb")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'prime-nb[otel]'" in err
