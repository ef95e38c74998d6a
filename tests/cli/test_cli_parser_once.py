"""``main`` reads every call's arguments with one parser per process: nothing one call
gives (a repeated option, a command) is left for the next."""

from __future__ import annotations

from prime_nb.cli import _commands


def test_one_parser_and_no_call_leaks_into_the_next() -> None:
    parser = _commands._parser()
    assert _commands._parser() is parser
    first = parser.parse_args(["redact", "a.jsonl", "--rule", "x=foo", "--host", "h"])
    assert first.rule == ["x=foo"] and first.host == ["h"]
    second = parser.parse_args(["redact", "b.jsonl"])
    assert second.rule == [] and second.host is None and second.file == "b.jsonl"
    grep = parser.parse_args(["grep", "p", "d", "--role", "user", "--role", "assistant"])
    assert grep.role == ["user", "assistant"]
    assert parser.parse_args(["grep", "p", "d"]).role is None
    assert parser.parse_args([]).command is None
