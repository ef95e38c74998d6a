"""A content block's signature is read like text: pi writes an OpenAI reasoning item there.

For the OpenAI Responses API, pi keeps the whole reasoning item as the thinking block's
``thinkingSignature`` (``JSON.stringify(item)``, replayed to the API verbatim): its
``summary`` repeats the thinking's text, so a secret the model reasoned about was in the
file twice, and redaction, which kept every signature as the format, replaced only one.
An opaque signature (Anthropic's base64 of bytes) holds no text a rule finds: it stays
byte for byte, and raises no suspect.
"""

from __future__ import annotations

import base64
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from prime_nb.redact import redact
from prime_nb.redact._rules import default_rules
from prime_nb.redact._scrub import Scrubber

_file = sys.modules["prime_nb.redact._file"]

HEAD = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}
TOKEN = "ghp_Zq8vN2xL5pT7rWk3J9mB4cY6hD1fG0sA2eR8"
THINKING = f"The user pasted their token {TOKEN}; I should not repeat it."
ITEM_ID = "rs_0e6e87df2f7bacd10069579687f7e08196ab79e9f83dab6064"


def _assistant(i: int, block: dict[str, Any]) -> dict[str, Any]:
    message = {"role": "assistant", "content": [block], "model": "m", "timestamp": 0}
    return {
        "type": "message",
        "id": f"a{i}",
        "parentId": None,
        "timestamp": "2026",
        "message": message,
    }


def _reasoning_item(r: random.Random) -> str:
    encrypted = "gAAAAAB" + base64.b64encode(r.randbytes(600)).decode()
    item = {
        "type": "reasoning",
        "id": ITEM_ID,
        "summary": [{"type": "summary_text", "text": THINKING}],
        "encrypted_content": encrypted,
    }
    return json.dumps(item, separators=(",", ":"))


def _session(path: Path, padding: int = 0) -> list[str]:
    """Opaque signatures on 40 blocks, then a reasoning item as pi writes it; a text
    block's signature with a token in it. ``padding`` small strings make the line of
    the reasoning item long enough to be walked as a stream."""
    r = random.Random(4)
    entries = [
        _assistant(i, {"type": "thinking", "thinking": "Let me check.", "thinkingSignature": sig})
        for i, sig in enumerate(
            base64.b64encode(r.randbytes(r.randrange(100, 1500))).decode() for _ in range(40)
        )
    ]
    reasoning = {"type": "thinking", "thinking": THINKING, "thinkingSignature": _reasoning_item(r)}
    last = _assistant(90, reasoning)
    last["message"]["content"] += [{"type": "text", "text": "x"} for _ in range(padding)]
    text = {"type": "text", "text": "done", "textSignature": f"msg_1 {TOKEN}"}
    entries += [last, _assistant(91, text)]
    lines = [json.dumps(row) for row in [HEAD, *entries]]
    path.write_text("\n".join(lines) + "\n")
    return lines


@pytest.mark.parametrize("padding", [0, 30_000], ids=["tree", "stream"])
def test_a_reasoning_item_in_a_signature_is_redacted_and_opaque_ones_stay(
    tmp_path: Path, padding: int
) -> None:
    before = _session(tmp_path / "s.jsonl", padding)
    done = redact(tmp_path / "s.jsonl", tmp_path / "out.jsonl", hostnames=[])
    after = (tmp_path / "out.jsonl").read_text().splitlines()
    assert TOKEN not in "\n".join(after)
    assert after[:41] == before[:41]  # the header and the opaque signatures, as written
    assert done.suspects.empty
    content = json.loads(after[41])["message"]["content"][0]
    item = json.loads(content["thinkingSignature"])  # still the item, as JSON
    assert item["id"] == ITEM_ID  # an item's id is no token
    assert item["summary"][0]["text"] == content["thinking"] != THINKING
    fields = set(done.report["field"])
    assert "message.content[0].thinkingSignature" in fields
    assert "message.content[0].textSignature" in fields
    streamed = _file._learn(tmp_path / "s.jsonl", Scrubber(default_rules([])))
    assert (42 in streamed) == bool(padding)  # the walk each case is named for


def test_a_responses_call_id_is_no_token(tmp_path: Path) -> None:
    """pi writes a Responses API tool call's id as ``call_<id>|fc_<48 hex>``: an id, kept
    (it was replaced in every call and result as a token); Firecrawl's ``fc-`` keys of 32
    hex digits still are."""
    call_id = "call_Kq2mA7nB3xV9pL4wR8tY6sD1|fc_67ca09c6bedc8190a7abfec07b1a1332096610f474011cd0"
    call = {"type": "toolCall", "id": call_id, "name": "bash", "arguments": {"command": "ls"}}
    firecrawl = "FIRECRAWL=fc-1f1f0587199dfcfff93682f2ccff0cc8"
    result = {"role": "toolResult", "toolCallId": call_id, "toolName": "bash", "timestamp": 0}
    result["content"] = [{"type": "text", "text": firecrawl}]
    rows = [HEAD, _assistant(1, call), {**_assistant(2, {}), "message": result}]
    (tmp_path / "s.jsonl").write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    done = redact(tmp_path / "s.jsonl", dry_run=True, hostnames=[])
    assert list(done.report["field"]) == ["message.content[0].text"]
