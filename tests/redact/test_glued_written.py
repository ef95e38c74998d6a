"""Each value of a glued line is written as soon as it is redacted, and the file, report
and suspects are those of the code that built the line whole.

A line of entries glued together (``{...}{...}``) is read whole by the lenient parser's
glued reading; each value is redacted in its place. The line was built as one text of
its pieces and written once every value was redacted, so each long text's old text,
which waits in ``scrubber.pending`` until its new text is written a piece at a time,
was held beside the next value's (3.3-3.5x the line for two entries of long texts
dense with secrets, 2.9-3.0 now: ``_file._glued_line``). The code before is the oracle,
kept here: glued lines changed and not, long and short, with blanks between values, a
BOM, a CR, nested past what is kept (cut to null, written anew), written and dry run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from prime_nb.redact import Redaction, redact
from prime_nb.redact._scrub import Scrubber

_file = sys.modules["prime_nb.redact._file"]

HEAD = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}
WORDS = "the deploy failed again so I read the logs password=hunter2xyz and retried "
PLAIN = "the logs were read and then retried "


def _entry(n: int, content: Any) -> str:
    message = {"role": "user", "content": content, "timestamp": 0}
    return json.dumps({"type": "message", "id": f"u{n}", "parentId": None, "message": message})


def _base_glued_line(line: Any, glued: Any, scrubber: Scrubber, hits: Any) -> Any:
    """``_glued_line`` before: the line built as one text, written once whole."""
    parts: list[str] = []
    at = 0
    for start, end, value in glued.spans:
        fixed, changed = scrubber.scrub_in_place(value, hits, _file._where(value))
        parts.append(glued.text[at:start])
        kept = not changed and not glued.cut
        parts.append(glued.text[start:end] if kept else _file._dumps(fixed).decode("utf-8"))
        at = end
    parts.append(glued.text[at:])
    text = "".join(parts)
    if text == glued.text:
        return _file._kept(line)
    return [line.head, text.encode("utf-8"), line.tail]


def _lines() -> list[str]:
    long_, plain = WORDS * 1000, PLAIN * 2000  # each over 64 KB: the line is not kept
    deep = "[" * 1100 + '"ok"' + "]" * 1100  # past what orjson reads: cut, written anew
    return [
        _entry(1, long_) + _entry(2, long_),  # both changed, long
        _entry(3, plain) + "  " + _entry(4, long_),  # one kept as written, blanks between
        _entry(5, plain) + _entry(6, plain),  # nothing to change, long: copied from the file
        _entry(7, "hi") + " " + _entry(8, "password=hunter2xyz"),  # short
        _entry(9, "hi") + _entry(10, "ok"),  # short, nothing to change: kept
        _entry(11, "hi") + _entry(12, "-").replace('"-"', deep),  # cut past what is kept
        "\ufeff" + _entry(13, "hi") + _entry(14, long_) + "\r",  # a BOM and a CR
        _entry(15, plain) + '{"a": 1}' + " " + _entry(16, long_) + " ",  # blanks around
    ]


def _redacted(path: Path, name: str, dry_run: bool) -> Redaction:
    return redact(path, path.with_name(name), hostnames=[], dry_run=dry_run)


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("glued") / "session.jsonl"
    lines = [json.dumps(HEAD), *_lines()]
    path.write_bytes("\n".join(lines).encode("utf-8") + b"\n")
    return path


@pytest.mark.parametrize("dry_run", [False, True])
def test_glued_lines_are_redacted_as_before(session: Path, dry_run: bool) -> None:
    now = _redacted(session, f"now-{dry_run}.jsonl", dry_run)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            _file,
            "_glued_line",
            lambda line, glued, scrubber, hits, out: _base_glued_line(line, glued, scrubber, hits),
        )
        before = _redacted(session, f"before-{dry_run}.jsonl", dry_run)
    assert now.report.equals(before.report), (now.report, before.report)
    assert now.suspects.equals(before.suspects)
    assert len(now.report) > 2000
    if not dry_run:
        assert now.path is not None and before.path is not None
        assert now.path.read_bytes() == before.path.read_bytes()
        assert b"hunter2xyz" not in now.path.read_bytes()


def test_a_value_is_written_before_the_next_is_redacted(session: Path, tmp_path: Path) -> None:
    """While the second of two changed long values is redacted, no old text of the first
    waits to be written: it was written, and let go."""
    path = tmp_path / "two.jsonl"
    path.write_text(json.dumps(HEAD) + "\n" + _lines()[0] + "\n")
    waiting: list[int] = []
    scrub = Scrubber.scrub_in_place

    def counted(self: Scrubber, *args: Any, **kwargs: Any) -> Any:
        assert self.pending is not None
        waiting.append(len(self.pending._texts))
        return scrub(self, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Scrubber, "scrub_in_place", counted)
        redact(path, tmp_path / "out.jsonl", hostnames=[])
    assert waiting == [0, 0, 0]  # the header, then each value
