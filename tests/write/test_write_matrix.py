"""Every writer on every session of the matrix: the old bytes stay, the new entries load
where they were put, or a clear error says why nothing was written.

The writers' own tests use clean files of each version and dialect; here they meet the
hostile ones too (bad lines, duplicate ids, cycles, a torn tail, odd headers, every
fixture), where a writer must neither damage the file nor leave it unreadable.
"""

from __future__ import annotations

import shutil
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from session_matrix import CASES, write_case

import prime_nb
from prime_nb.errors import (
    InvalidEntryError,
    SessionFormatError,
    TornLineWarning,
    UpgradeRequiredError,
)

Write = Callable[[prime_nb.Session, str], Any]

WRITES: dict[str, Write] = {
    "label": lambda s, leaf: s.append_label(leaf, "checked", fsync=False),
    "message": lambda s, leaf: s.append_message(
        leaf, {"role": "user", "content": "again"}, fsync=False
    ),
    "fork": lambda s, leaf: s.append_fork(
        leaf,
        [
            {"role": "user", "content": "try this"},
            {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
        ],
        fsync=False,
    ),
    "branch_summary": lambda s, leaf: s.append_branch_summary(leaf, "what was tried", fsync=False),
    "compaction": lambda s, leaf: s.append_compaction("so far", leaf, 100, fsync=False),
    "name": lambda s, leaf: s.set_name("renamed", fsync=False),
}


@pytest.mark.parametrize("name", CASES)
def test_every_writer_keeps_the_file_and_its_word(name: str, tmp_path: Path) -> None:
    target = tmp_path / "session.jsonl"
    shutil.copyfile(write_case(name, tmp_path / "in"), target)
    session = prime_nb.load(target)
    leaf = session.leaves.index[-1] if len(session.leaves) else None
    for kind, write in WRITES.items():
        before = target.read_bytes()
        entries = len(session)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", TornLineWarning)  # the torn-tail case says so
                written = write(session, leaf)
        except UpgradeRequiredError:
            # only a file the loader reads as version 1 (no ids) needs an upgrade
            assert session.version == 1, kind
            assert target.read_bytes() == before
            continue
        except InvalidEntryError as error:
            assert leaf is None and "nothing was written" in str(error), kind
            assert target.read_bytes() == before
            continue
        except SessionFormatError as error:
            # a file without its header (the tail of a session): read, never written to
            assert session.problems["kind"].iloc[0] == "no_header", kind
            assert "fork_to_file() writes a branch of it" in str(error), kind
            assert target.read_bytes() == before
            continue
        after = target.read_bytes()
        assert after.startswith(before), kind  # a torn tail too: the entry starts a new line
        assert after.endswith(b"\n"), kind
        ids = written if isinstance(written, list) else [written]
        assert len(session) == entries + len(ids), kind  # the session caught up
        fresh = prime_nb.load(target)
        assert len(fresh) == len(session), kind
        for entry_id in ids:
            assert fresh.entry(entry_id)["id"] == entry_id, kind
