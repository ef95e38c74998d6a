"""The checked-in fixtures are whole and are the project's shared ones.

Why: the tests read real sessions from ``tests/fixtures`` so that a clone passes on its
own. A copy can go wrong two ways: a file lost or edited in the clone (caught against
``SHA256SUMS``, checked in beside the files), or the project's shared fixtures moving on
while the copy stays behind (caught when they sit beside the clone, as on the project's
own machines, by comparing bytes).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from conftest import FIXTURES, REPO

MANIFEST = FIXTURES / "SHA256SUMS"
SHARED = REPO.parent / "shared" / "fixtures"
# recorded by this project (the agent's reading of files prime_nb writes), not copies
# of the shared fixtures; listed in SHA256SUMS all the same
OWN = ("agent-read/",)


def read_manifest(path: Path) -> dict[str, str]:
    """``sha256sum`` output: ``<hex>  <relative path>`` per line."""
    out: dict[str, str] = {}
    for line in path.read_text().splitlines():
        digest, name = line.split("  ", 1)
        assert name not in out, f"{name} is listed twice in {path.name}"
        out[name] = digest
    return out


def files_under(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != MANIFEST.name
    }


def test_the_copy_is_complete_unchanged_and_current() -> None:
    """Against the checked-in list always; against the shared fixtures byte for byte when
    they sit beside the clone (without them, the list is the whole check)."""
    listed = read_manifest(MANIFEST)
    held = files_under(FIXTURES)
    assert sorted(held) == sorted(listed), (
        "tests/fixtures and its SHA256SUMS list different files: restore the missing ones "
        "(or, for a deliberate change, regenerate the list with `sha256sum`)"
    )
    changed = [n for n, data in held.items() if hashlib.sha256(data).hexdigest() != listed[n]]
    assert not changed, f"these fixtures changed since SHA256SUMS was written: {changed}"
    if SHARED.is_dir():
        shared = files_under(SHARED)
        held = {n: data for n, data in held.items() if not n.startswith(OWN)}
        assert sorted(held) == sorted(shared), (
            f"tests/fixtures and the {SHARED.name}/ beside the clone hold different files: "
            "copy them over and regenerate SHA256SUMS"
        )
        differ = [n for n in held if held[n] != shared[n]]
        assert not differ, f"these fixtures differ from the shared ones: {differ}"


def test_the_manifest_lists_every_session_the_tests_read() -> None:
    """The list is not empty or partial: both top-level sessions and every agent-written
    session with its ``.agent.json`` (the agent's reading, which the tests compare to)."""
    listed = read_manifest(MANIFEST)
    assert {"large-session.jsonl", "before-compaction.jsonl", "agent-written/README.md"} <= set(
        listed
    )
    sessions = {n.removesuffix(".jsonl") for n in listed if n.endswith(".jsonl")}
    readings = {n.removesuffix(".agent.json") for n in listed if n.endswith(".agent.json")}
    assert readings, "no agent-written session is listed"
    assert sessions == readings | {"large-session", "before-compaction"}
