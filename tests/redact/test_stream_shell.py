"""A long object's shell in the stream walk: the members plans read, and every key as a
hash (``_shell.py``), answered exactly where a hash alone cannot."""

from __future__ import annotations

import sys
from array import array
from typing import Any

import pytest

import prime_nb.redact  # noqa: F401

_shell = sys.modules["prime_nb.redact._shell"]
_stream = sys.modules["prime_nb.redact._stream"]
_scrub = sys.modules["prime_nb.redact._scrub"]


def _walk(text: str) -> Any:
    buf = text.encode()
    return _stream.StreamWalk(_scrub.Scrubber([]), buf, 0, len(buf))


def test_a_long_objects_shell_holds_only_the_members_plans_read() -> None:
    members = ",".join(f'"k{i}":"v{i}"' for i in range(2_000))
    walk = _walk('{"type":"text","name":"n","kids":[1,2],' + members + "}")
    shell = walk._shell(0)
    assert dict(shell) == {"type": "text", "name": "n"}
    assert all(f"k{i}" in shell for i in range(0, 2_000, 97))
    assert "kids" in shell and "k2000" not in shell and "v1" not in shell


def test_a_shared_hash_of_two_keys_is_no_repeat_and_no_false_member() -> None:
    keys = ["a", "b"]
    shell = _shell.Shell(lambda: iter(keys))
    shell.seal(array("q", [7, 7]))  # two keys under one hash: read again, not one key
    assert "a" not in shell  # its own hash is not among them
    shell._hashes = _shell.np.array(sorted([hash("a"), hash("zz")]), _shell.np.int64)
    assert "zz" not in shell  # its hash is there, but no key is "zz"
    assert "a" in shell


def test_a_repeated_key_is_found_by_its_hash_and_refused() -> None:
    members = ",".join(f'"k{i}":{i}' for i in range(500))
    with pytest.raises(_stream.NotStreamable, match="repeated key"):
        _walk("{" + members + ',"k17":0}')._shell(0)
