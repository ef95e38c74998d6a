"""Pass 2 works a short string or key out once: keys, roles and tool names repeat in
every entry. Each occurrence is still reported where it is, with the same placeholder."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from prime_nb.redact import redact
from prime_nb.redact._scrub import Scrubber

TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
EMAIL = "dana.ops@northwind-labs.io"


def _session(path: Path, entries: int) -> Path:
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}
    ]
    parent = None
    for n in range(entries):
        entry_id = f"e{n}"
        lines.append(
            {
                "type": "message",
                "id": entry_id,
                "parentId": parent,
                "timestamp": "2026-01-05T10:00:01Z",
                "message": {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "toolCall",
                            "id": f"call{n}",
                            "name": "bash",
                            "arguments": {"command": "ls", "owner": EMAIL, TOKEN: "ok"},
                        }
                    ],
                },
            }
        )
        parent = entry_id
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_repeated_short_string_is_scrubbed_once_and_reported_each_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: Counter[str] = Counter()
    scrub_text = Scrubber.scrub_text

    def counted(self: Scrubber, text: str, *args: Any, **kwargs: Any) -> str:
        calls[text] += 1
        return scrub_text(self, text, *args, **kwargs)

    monkeypatch.setattr(Scrubber, "scrub_text", counted)
    source = _session(tmp_path / "s.jsonl", 30)
    done = redact(source, tmp_path / "out.jsonl", hostnames=[])
    assert calls["bash"] == calls["ls"] == calls[EMAIL] == calls[TOKEN] == 1
    assert calls["command"] == calls["arguments"] == 1

    text = (tmp_path / "out.jsonl").read_text()
    assert TOKEN not in text and EMAIL not in text
    report = done.report
    by_rule = report.groupby("rule")["placeholder"].agg(["count", "nunique"])
    assert by_rule["count"].sum() == 60  # each entry's key and e-mail
    assert (by_rule["nunique"] == 1).all()  # one placeholder each, everywhere
    owners = report[report["field"].str.endswith(".owner")]
    keys = report[report["field"].str.endswith("(key)")]
    assert sorted(owners["entry_id"]) == sorted(f"e{n}" for n in range(30))
    assert sorted(keys["entry_id"]) == sorted(f"e{n}" for n in range(30))
    for line in text.splitlines()[1:]:
        args = json.loads(line)["message"]["content"][0]["arguments"]
        assert args["command"] == "ls" and len(args) == 3


def test_a_line_whose_repeated_strings_hold_nothing_is_copied_as_it_is(tmp_path: Path) -> None:
    """The same short strings (``"bash"``, ``"ls"``, the keys) in entries without a
    secret leave those lines byte for byte as they were: the string met again is an
    equal but other object, and must not count as a change."""
    source = tmp_path / "s.jsonl"
    entries = [{"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}]
    for n in range(3):
        args = {"command": "ls", "cwd": "/srv/app"}
        block = {"type": "toolCall", "id": f"c{n}", "name": "bash", "arguments": args}
        message = {"role": "assistant", "content": [block]}
        entries.append(
            {
                "type": "message",
                "id": f"e{n}",
                "parentId": f"e{n - 1}" if n else None,
                "timestamp": "2026-01-05T10:00:01Z",
                "message": message,
            }
        )
    source.write_text("".join(json.dumps(e, indent=None) + "\n" for e in entries))
    redact(source, tmp_path / "out.jsonl", hostnames=[])
    assert (tmp_path / "out.jsonl").read_text() == source.read_text()
