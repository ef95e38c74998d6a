"""The writers' snapshot of a file on disk tells a file that only grew from one changed
in place, whatever the file's size."""

from __future__ import annotations

import json
import os
from pathlib import Path

from prime_nb.format import current_snapshot, forget_snapshot


def test_a_short_file_that_grew_is_resumed_not_taken_for_an_edit(tmp_path: Path) -> None:
    """A header shorter than the marks (64 bytes) used to be read again in full after an
    append and flagged ``rewritten_in_place``, which makes the writer forget the entries
    it wrote (its guard against a replacement that drops them). The snapshot's marks
    are format's ``ends`` now, bounded by what was read, as every other reader's."""
    path = tmp_path / "tiny.jsonl"
    path.write_text(json.dumps({"type": "session", "version": 3, "id": "s"}) + "\n")
    fd = os.open(path, os.O_RDONLY)
    try:
        first = current_snapshot(path, fd)
        entry = {"type": "message", "id": "a", "parentId": None, "message": {"role": "user"}}
        with open(path, "a") as fh:
            fh.write(json.dumps(entry) + "\n")
        grown = current_snapshot(path, fd)
        assert grown is first and not grown.rewritten_in_place
        assert list(grown.parents) == ["a"] and grown.last_id == "a"
        path.write_bytes(path.read_bytes().replace(b'"s"', b'"t"'))  # the same inode
        edited = current_snapshot(path, fd)
        assert edited is not first and edited.rewritten_in_place
        assert edited.header is not None and edited.header["id"] == "t"
    finally:
        forget_snapshot(path)
        os.close(fd)
