"""Building blocks shared by the session generators of :mod:`sessiongen`.

Why a separate module: the small synthetic sessions, the streamed large sessions and the
hand-written demo all need the same on-disk shapes (ids, timestamps, usage, dialects).
Keeping them in one place means the three generators can never disagree about the format.

Entries are built in one internal form (the Prime Agent v3 shape, but with ``timestamp``
as Unix ms and a private ``_tokensAfter`` on compactions) and turned into the requested
version and dialect by :class:`Converter`, one entry at a time, so it also works streamed.
"""

from __future__ import annotations

import random
import struct
import time
import uuid
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import orjson

Entry = dict[str, Any]

BASE_MS: Final = 1_767_607_200_000  # 2026-01-05T10:00:00Z
SYSTEM_TOKENS: Final = 3_900  # system prompt + tool schemas, sent with every request
_MASK: Final = 0xFFFFFFFF
_B62: Final = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

# model id -> (provider, api, USD per million tokens: input, output, cacheRead, cacheWrite)
MODELS: Final[dict[str, tuple[str, str, tuple[float, float, float, float]]]] = {
    "claude-sonnet-4-5": ("anthropic", "anthropic-messages", (3.0, 15.0, 0.3, 3.75)),
    "claude-opus-4-5": ("anthropic", "anthropic-messages", (5.0, 25.0, 0.5, 6.25)),
    "gpt-5.1-codex": ("openai", "openai-responses", (1.25, 10.0, 0.125, 0.0)),
}


def iso(ms: int) -> str:
    """Format Unix ms the way the agent does (``Date.toISOString``): fast, no datetime."""
    s, r = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(s)) + f".{r:03d}Z"


class IdMaker:
    """Entry ids: 8 lowercase hex chars, random-looking, unique without remembering them.

    A counter goes through a 32-bit bijection (murmur3's finaliser), so ids never repeat
    for 2**32 calls and a streamed generator needs no set of used ids.
    """

    def __init__(self, rng: random.Random) -> None:
        self._next = rng.getrandbits(32)

    def __call__(self) -> str:
        x = self._next
        self._next = (x + 1) & _MASK
        x ^= x >> 16
        x = (x * 0x85EBCA6B) & _MASK
        x ^= x >> 13
        x = (x * 0xC2B2AE35) & _MASK
        x ^= x >> 16
        return f"{x:08x}"


def tool_call_id(rng: random.Random) -> str:
    """An Anthropic-style tool call id (``toolu_01`` + 22 base62 chars)."""
    return "toolu_01" + "".join(rng.choices(_B62, k=22))


def session_uuid(rng: random.Random) -> str:
    """A version-4 UUID drawn from ``rng`` so headers are deterministic for a seed."""
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def make_png(width: int, height: int, rgb: bytes) -> bytes:
    """Encode raw RGB pixels as a valid PNG (no dependency needed for test images)."""
    row = width * 3
    raw = b"".join(b"\x00" + rgb[y * row : (y + 1) * row] for y in range(height))

    def chunk(tag: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(tag + data) & _MASK
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def tiny_png() -> bytes:
    """A 16x12 gradient, a few hundred bytes: stands in for a pasted screenshot."""
    px = bytearray()
    for y in range(12):
        for x in range(16):
            px += bytes((x * 16, y * 21, 200 - x * 8))
    return make_png(16, 12, bytes(px))


def usage(model: str, inp: int, out: int, cache_read: int, cache_write: int) -> Entry:
    """The ``usage`` object of an assistant message, with USD cost from the price table."""
    prices = MODELS[model][2]
    c = [inp * prices[0] / 1e6, out * prices[1] / 1e6]
    c += [cache_read * prices[2] / 1e6, cache_write * prices[3] / 1e6]
    return {
        "input": inp,
        "output": out,
        "cacheRead": cache_read,
        "cacheWrite": cache_write,
        "totalTokens": inp + out + cache_read + cache_write,
        "cost": {
            "input": c[0],
            "output": c[1],
            "cacheRead": c[2],
            "cacheWrite": c[3],
            "total": sum(c),
        },
    }


def add_usage(a: Entry, b: Entry) -> Entry:
    """Sum two usage objects (for ``child_usage_attributed.aggregateUsage``)."""
    out: Entry = {k: a[k] + b[k] for k in ("input", "output", "cacheRead", "cacheWrite")}
    out["totalTokens"] = a["totalTokens"] + b["totalTokens"]
    out["cost"] = {k: a["cost"][k] + b["cost"][k] for k in a["cost"]}
    return out


def tokens_of(content: Any) -> int:
    """Rough token count (chars / 4, images ~1200) used for the usage and compaction numbers."""
    if isinstance(content, str):
        return len(content) // 4
    n = 0
    for block in content:
        kind = block.get("type")
        if kind == "text":
            n += len(block["text"]) // 4
        elif kind == "thinking":
            n += len(block["thinking"]) // 4
        elif kind == "toolCall":
            n += 12 + sum(len(str(v)) for v in block["arguments"].values()) // 4
        elif kind == "image":
            n += 1200
    return n


_HEAD: Final = "<head>"


class Builder:
    """Appends internal entries to ``out``, keeping the clock, ids and token counts right.

    Every entry becomes a child of ``head`` unless a parent is given, and becomes the new
    ``head``. ``out`` may be drained by a streaming caller at any time; only a bounded map
    of per-entry token counts is kept (``prune`` > 0), so memory stays flat.
    """

    def __init__(self, rng: random.Random, *, cwd: str, prune: int = 0) -> None:
        self.rng = rng
        self.new_id = IdMaker(rng)
        self.now = BASE_MS
        self.head: str | None = None
        self.out: list[Entry] = []
        self.model = "claude-sonnet-4-5"
        self.thinking = "off"
        self.last_usage: Entry = usage(self.model, 0, 0, 0, 0)
        # id -> (context tokens up to and incl. the entry, cached prefix, own tokens)
        self._ctx: dict[str, tuple[int, int, int]] = {}
        self._prune = prune
        self.header: Entry = {
            "type": "session",
            "version": 3,
            "id": session_uuid(rng),
            "timestamp": BASE_MS,
            "cwd": cwd,
        }

    # -- plumbing ---------------------------------------------------------------------
    def tick(self, lo: int, hi: int) -> int:
        """Advance the clock by lo..hi ms and return it (timestamps only ever increase)."""
        self.now += self.rng.randint(lo, hi)
        return self.now

    def state(self, eid: str | None) -> tuple[int, int, int]:
        """Token state after ``eid`` (zeros for the root or a pruned id)."""
        return self._ctx.get(eid, (0, 0, 0)) if eid else (0, 0, 0)

    def add(
        self,
        etype: str,
        fields: Entry,
        *,
        ms: int | None = None,
        tokens: int = 0,
        parent: str | None = _HEAD,
        state: tuple[int, int, int] | None = None,
    ) -> str:
        """Append one entry; ``tokens`` is what it adds to the model's context."""
        pid = self.head if parent == _HEAD else parent
        eid = self.new_id()
        if ms is None:
            ms = self.tick(15, 700)
        self.out.append({"type": etype, "id": eid, "parentId": pid, "timestamp": ms, **fields})
        if state is None:
            ctx, cached, _ = self.state(pid)
            state = (ctx + tokens, cached, tokens)
        self._ctx[eid] = state
        if self._prune and len(self._ctx) > self._prune:
            for old in list(self._ctx)[: self._prune // 2]:
                del self._ctx[old]
        self.head = eid
        return eid

    # -- messages ---------------------------------------------------------------------
    def user(self, content: str | list[Entry], *, parent: str | None = _HEAD) -> str:
        ms = self.tick(6_000, 95_000)
        msg = {"role": "user", "content": content, "timestamp": ms - self.rng.randint(2, 25)}
        return self.add(
            "message", {"message": msg}, ms=ms, tokens=tokens_of(content), parent=parent
        )

    def assistant(
        self,
        content: list[Entry],
        *,
        stop: str = "stop",
        error: str | None = None,
        parent: str | None = _HEAD,
    ) -> str:
        """An assistant reply; usage follows the context on the path (cache reads grow)."""
        pid = self.head if parent == _HEAD else parent
        out_tokens = tokens_of(content)
        took = self.rng.randint(900, 4_000) + out_tokens * self.rng.randint(6, 18)
        ms = self.tick(took, took + 400)
        provider, api, _ = MODELS[self.model]
        ctx, cached, _ = self.state(pid)
        if error is not None:
            use = usage(self.model, 0, 0, 0, 0)
            state = (ctx, cached, 0)
        else:
            context_in = SYSTEM_TOKENS + ctx
            cache_read = min(cached, context_in)
            new = context_in - cache_read
            if provider == "anthropic":
                inp = min(new, self.rng.randint(3, 12))
                use = usage(self.model, inp, out_tokens, cache_read, new - inp)
            else:
                use = usage(self.model, new, out_tokens, cache_read, 0)
            state = (ctx + out_tokens, context_in, out_tokens)
        msg: Entry = {
            "role": "assistant",
            "content": content,
            "api": api,
            "provider": provider,
            "model": self.model,
            "usage": use,
            "stopReason": stop,
            "timestamp": ms - took + self.rng.randint(5, 80),
        }
        if error is not None:
            msg["errorMessage"] = error
        self.last_usage = use
        return self.add("message", {"message": msg}, ms=ms, parent=pid, state=state)

    def tool_result(
        self,
        call_id: str,
        name: str,
        text: str,
        *,
        is_error: bool = False,
        details: Entry | None = None,
        images: list[Entry] | None = None,
    ) -> str:
        ms = self.tick(40, 6_000)
        content: list[Entry] = [{"type": "text", "text": text}, *(images or [])]
        msg = {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": name,
            "content": content,
            "details": details if details is not None else {},
            "isError": is_error,
            "timestamp": ms - self.rng.randint(2, 30),
        }
        return self.add("message", {"message": msg}, ms=ms, tokens=tokens_of(content))

    def bash_execution(
        self, command: str, output: str, exit_code: int, *, exclude: bool = False
    ) -> str:
        """A command the user ran with ``!`` (``!!`` keeps it out of the context)."""
        ms = self.tick(5_000, 40_000)
        msg: Entry = {
            "role": "bashExecution",
            "command": command,
            "output": output,
            "exitCode": exit_code,
            "cancelled": False,
            "truncated": False,
            "timestamp": ms - self.rng.randint(50, 900),
        }
        if exclude:
            msg["excludeFromContext"] = True
        tokens = 0 if exclude else (len(command) + len(output)) // 4
        return self.add("message", {"message": msg}, ms=ms, tokens=tokens)

    def custom_role(
        self,
        custom_type: str,
        content: str,
        *,
        display: bool = True,
        details: Entry | None = None,
    ) -> str:
        """An extension message stored as a message (role ``custom``; ``hookMessage`` < v3)."""
        ms = self.tick(20, 900)
        msg: Entry = {
            "role": "custom",
            "customType": custom_type,
            "content": content,
            "display": display,
        }
        if details is not None:
            msg["details"] = details
        msg["timestamp"] = ms - self.rng.randint(1, 10)
        return self.add("message", {"message": msg}, ms=ms, tokens=tokens_of(content))

    # -- other entry types ------------------------------------------------------------
    def model_change(self, model: str) -> str:
        self.model = model
        ctx, _, _ = self.state(self.head)
        provider = MODELS[model][0]
        return self.add("model_change", {"provider": provider, "modelId": model}, state=(ctx, 0, 0))

    def thinking_level(self, level: str) -> str:
        self.thinking = level
        return self.add("thinking_level_change", {"thinkingLevel": level})

    def service_tier(self, tier: str) -> str:
        return self.add("service_tier_change", {"serviceTier": tier})

    def compaction(
        self,
        summary: str,
        first_kept: str,
        details: Entry,
        *,
        parent: str | None = _HEAD,
        instructions: str | None = None,
    ) -> str:
        """A compaction; tokensBefore/after come from the token counts on the path."""
        pid = self.head if parent == _HEAD else parent
        ctx, _, _ = self.state(pid)
        kept_ctx, _, kept_own = self.state(first_kept)
        kept = max(ctx - (kept_ctx - kept_own), 0)
        own = len(summary) // 4
        ms = self.tick(20_000, 60_000)
        fields: Entry = {
            "summary": summary,
            "firstKeptEntryId": first_kept,
            "tokensBefore": SYSTEM_TOKENS + ctx,
            "details": details,
        }
        if instructions is not None:
            fields["customInstructions"] = instructions
        fields["_tokensAfter"] = SYSTEM_TOKENS + own + kept
        return self.add("compaction", fields, ms=ms, parent=pid, state=(own + kept, 0, own))

    def branch_summary(
        self, from_id: str, summary: str, details: Entry, *, parent: str | None = _HEAD
    ) -> str:
        ms = self.tick(8_000, 30_000)
        fields = {"fromId": from_id, "summary": summary, "details": details}
        return self.add("branch_summary", fields, ms=ms, tokens=len(summary) // 4, parent=parent)

    def custom(self, custom_type: str, data: Any) -> str:
        return self.add("custom", {"customType": custom_type, "data": data})

    def custom_message(
        self,
        custom_type: str,
        content: str | list[Entry],
        *,
        display: bool = True,
        details: Entry | None = None,
    ) -> str:
        fields: Entry = {"customType": custom_type, "content": content, "display": display}
        if details is not None:
            fields["details"] = details
        return self.add("custom_message", fields, tokens=tokens_of(content))

    def label(self, target: str, label: str | None) -> str:
        """Set (or, with ``None``, clear: the key is left out) the label of ``target``."""
        fields: Entry = {"targetId": target}
        if label is not None:
            fields["label"] = label
        return self.add("label", fields, ms=self.tick(1_000, 20_000))

    def session_info(self, name: str) -> str:
        return self.add("session_info", {"name": name})

    def session_state(self, status: str) -> str:
        return self.add("session_state", {"state": {"status": status}})

    def agent_status(self, summary: str, task_state: str, count: int) -> str:
        status = {"summary": summary, "taskState": task_state, "basedOnMessageCount": count}
        return self.add("agent_status", {"status": status})

    def git_state(self, branch: str, dirty: bool) -> str:
        git = {
            "branch": branch,
            "commit": f"{self.rng.getrandbits(160):040x}",
            "dirty": dirty,
            "ahead": self.rng.randint(0, 3),
            "behind": 0,
        }
        return self.add("git_state", {"git": git})

    def child_usage(self, target: str, child: Entry, target_usage: Entry) -> str:
        fields = {
            "targetId": target,
            "childUsage": child,
            "aggregateUsage": add_usage(target_usage, child),
        }
        return self.add("child_usage_attributed", fields)


# ------------------------------------------------------------------------------------
# dialect / version conversion
# ------------------------------------------------------------------------------------
_SPEC_TYPES: Final = {
    "model_change": "modelChange",
    "thinking_level_change": "thinkingLevel",
    "branch_summary": "branchSummary",
}


class Converter:
    """Turn internal entries into one version (1-3) and dialect ("prime" or "spec").

    Streaming-safe: it keeps only a small id remap (spec dialect) and, for version 1,
    the index of every entry (v1 files are small and linear).
    """

    def __init__(self, version: int, dialect: str, new_id: Callable[[], str]) -> None:
        if version not in (1, 2, 3):
            raise ValueError(f"version must be 1, 2 or 3, not {version!r}")
        if dialect not in ("prime", "spec"):
            raise ValueError(f"dialect must be 'prime' or 'spec', not {dialect!r}")
        self.version = version
        self.spec = dialect == "spec"
        self._new_id = new_id
        self._remap: dict[str, str] = {}  # assistant id -> its last toolCall entry id
        self._index: dict[str, int] = {}
        self._pos = 1  # header is index 0

    def header(
        self, h: Entry, *, provider: str = "", model: str = "", thinking: str = "off"
    ) -> Entry:
        """The first line; v1 prime headers also carry the starting model and level."""
        if self.spec:
            out: Entry = {"type": "header"}
            if self.version > 1:
                out["version"] = self.version
            out |= {"id": h["id"], "workingDir": h["cwd"], "timestamp": h["timestamp"]}
            return out
        out = {"type": "session"}
        if self.version > 1:
            out["version"] = self.version
        out |= {"id": h["id"], "timestamp": iso(h["timestamp"]), "cwd": h["cwd"]}
        if self.version == 1:
            out |= {"provider": provider, "modelId": model, "thinkingLevel": thinking}
        return out

    def convert(self, e: Entry) -> list[Entry]:
        out = self._spec(e) if self.spec else [self._prime(e)]
        if self.version == 1:
            out = [self._v1(x) for x in out]
        return out

    def _role(self, msg: Entry) -> Entry:
        if self.version < 3 and msg.get("role") == "custom":
            return {**msg, "role": "hookMessage"}
        return msg

    def _prime(self, e: Entry) -> Entry:
        out = dict(e)
        out["timestamp"] = iso(e["timestamp"])
        out.pop("_tokensAfter", None)
        if e["type"] == "message":
            out["message"] = self._role(e["message"])
        return out

    def _spec(self, e: Entry) -> list[Entry]:
        t = e["type"]
        pid = e["parentId"]
        base: Entry = {
            "id": e["id"],
            "parentId": self._remap.get(pid, pid) if pid else pid,
            "timestamp": e["timestamp"],
        }
        if t in _SPEC_TYPES:
            rest = {k: v for k, v in e.items() if k not in ("type", "id", "parentId", "timestamp")}
            if t == "branch_summary":
                rest["fromId"] = self._remap.get(rest["fromId"], rest["fromId"])
            return [{"type": _SPEC_TYPES[t], **base, **rest}]
        if t == "compaction":
            return [
                {
                    "type": t,
                    **base,
                    "summary": e["summary"],
                    "firstKeptEntryId": e["firstKeptEntryId"],
                    "tokensBefore": e["tokensBefore"],
                    "tokensAfter": e["_tokensAfter"],
                    "details": e["details"],
                }
            ]
        if t in ("custom", "custom_message"):
            kind = "custom" if self.version >= 3 else "hookMessage"
            rest = {k: v for k, v in e.items() if k not in ("type", "id", "parentId", "timestamp")}
            return [{"type": kind, **base, **rest}]
        if t != "message":
            return [{**e, "parentId": base["parentId"]}]
        msg = e["message"]
        role = msg.get("role")
        if role == "toolResult":
            return [
                {
                    "type": "toolResult",
                    **base,
                    "toolCallId": msg["toolCallId"],
                    "toolName": msg["toolName"],
                    "content": msg["content"],
                    "isError": msg["isError"],
                }
            ]
        if role == "assistant" and any(b.get("type") == "toolCall" for b in msg["content"]):
            kept = [b for b in msg["content"] if b.get("type") != "toolCall"]
            out = [{"type": "message", **base, "message": {**msg, "content": kept}}]
            prev = e["id"]
            for k, block in enumerate(b for b in msg["content"] if b.get("type") == "toolCall"):
                cid = self._new_id()
                out.append(
                    {
                        "type": "toolCall",
                        "id": cid,
                        "parentId": prev,
                        "timestamp": e["timestamp"] + k + 1,
                        "toolCallId": block["id"],
                        "name": block["name"],
                        "arguments": block["arguments"],
                    }
                )
                prev = cid
            self._remap[e["id"]] = prev
            if len(self._remap) > 8192:
                for old in list(self._remap)[:4096]:
                    del self._remap[old]
            return out
        return [{"type": "message", **base, "message": self._role(msg)}]

    def _v1(self, e: Entry) -> Entry:
        self._index[e["id"]] = self._pos
        self._pos += 1
        out: Entry = {}
        for k, v in e.items():
            if k in ("id", "parentId") or (k == "details" and e["type"] == "compaction"):
                continue  # v1 had no tree and no compaction details
            if k == "firstKeptEntryId":
                out["firstKeptEntryIndex"] = self._index[v]
            else:
                out[k] = v
        return out


def write_jsonl(path: str | Path, entries: Sequence[Entry]) -> Path:
    """Write entries as JSONL the way the agent does: one line each, "\\n" after every line."""
    out = Path(path)
    out.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in entries))
    return out
