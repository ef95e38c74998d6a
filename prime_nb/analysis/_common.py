"""Shared plumbing for the research helpers: tree arrays, token estimates, file paths.

Why a module of its own: compaction forensics, branching and comparison all need the same
three things (each entry's parent as a row number, per-entry spend, and tool-call file paths
normalised against the session's cwd), and they must agree on them to the token.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

import numpy as np
import orjson

from ..session import view

if TYPE_CHECKING:
    from ..session import Session

#: chars the agent counts for one image block (it estimates an image as 1200 tokens)
IMAGE_CHARS = 4800
#: tools whose ``path`` argument is a file the model read
READ_TOOLS = frozenset({"read", "read_file", "view"})
PATH_KEYS = ("path", "file_path", "filePath", "file")


def _json_len(value: Any) -> int:
    try:
        return len(orjson.dumps(value).decode())
    except TypeError:
        return len(str(value))


def _content_chars(content: Any) -> int:
    if isinstance(content, str):
        return len(content)
    chars = 0
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                chars += len(block["text"])
            elif block.get("type") == "image":
                chars += IMAGE_CHARS
    return chars


def blocks_of(message: dict[str, Any]) -> list[Any]:
    """A message's content blocks: none when its content is text, a number or missing
    (a session may hold anything there; the agent finds no block objects in a string)."""
    content = message.get("content")
    return content if isinstance(content, list) else []


def message_chars(message: dict[str, Any]) -> int:
    """Characters of a context message as the agent counts them for its token estimate."""
    role = message.get("role")
    if role == "assistant":
        chars = 0
        for block in blocks_of(message):
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                chars += len(block["text"])
            elif kind == "thinking" and isinstance(block.get("thinking"), str):
                chars += len(block["thinking"])
            elif kind == "toolCall":
                chars += len(str(block.get("name") or "")) + _json_len(block.get("arguments"))
        return chars
    if role == "bashExecution":
        return len(str(message.get("command") or "")) + len(str(message.get("output") or ""))
    if role in ("branchSummary", "compactionSummary"):
        return len(str(message.get("summary") or ""))
    return _content_chars(message.get("content"))


def estimate_tokens(message: dict[str, Any]) -> int:
    """Token estimate of one context message: ceil(chars / 4).

    This is the agent's own heuristic (it uses it to decide when to compact), so numbers
    here match what the agent believed, not what a provider's tokenizer would count.
    Images count as 4800 chars (1200 tokens), as the agent counts them.
    """
    return math.ceil(message_chars(message) / 4)


@lru_cache(maxsize=4096)
def relative_path(path: str, cwd: str | None) -> str:
    """A file path relative to the session's cwd when it lies below it, else unchanged.

    Compaction details list files relative to the project while tool calls use absolute
    paths; comparing them needs one spelling. Cached: a session reads the same few files
    again and again, and pathlib's parsing cost more than the rest of the forensics.
    """
    pure = PurePosixPath(path)
    if cwd and pure.is_absolute():
        try:
            return str(pure.relative_to(PurePosixPath(cwd)))
        except ValueError:
            return path
    return str(pure) if path else path


def session_cwd(session: Session) -> str | None:
    """The header's cwd that file paths are made relative to (None unless it is text:
    the header is untrusted)."""
    cwd = session.header.get("cwd")
    return cwd if isinstance(cwd, str) else None


def read_paths(calls: Iterable[tuple[int, Any, Any]], cwd: str | None) -> dict[int, list[str]]:
    """Row -> the files its read tools (``READ_TOOLS``) opened, relative to ``cwd``, in
    call order, from ``(row, tool name, arguments)`` triples: what forensics counts as a
    file read again, from the entries table or from the corpus's summary read alike."""
    out: dict[int, list[str]] = {}
    for row, name, arguments in calls:
        target = tool_path(arguments) if name.__class__ is str and name in READ_TOOLS else None
        if target is not None:
            out.setdefault(row, []).append(relative_path(target, cwd))
    return out


def tool_path(arguments: Any) -> str | None:
    """The file a tool call names in its arguments, if any."""
    if isinstance(arguments, dict):
        for key in PATH_KEYS:
            value = arguments.get(key)
            if isinstance(value, str) and value:
                return value
    return None


@dataclass
class TreeArrays:
    """The session's tree as arrays in file order (row = position in entries)."""

    ids: list[str]
    parent: np.ndarray
    depth: np.ndarray
    tokens: np.ndarray
    cost: np.ndarray
    row_of: dict[str, int]

    def subtree_figures(
        self,
    ) -> tuple[list[float], list[float], list[float], list[float], list[int]]:
        """Per row, over its subtree (each entry once): entries, tokens, cost, leaves, and
        the last leaf in file order (the branch the agent would resume there).

        Deepest rows first (ties in file order), each added to its parent: one walk over
        Python lists (reading or writing one numpy item costs more than a list's), so the
        float sums are the same additions in the same order wherever they are asked for.
        """
        parent: list[int] = self.parent.tolist()
        n = len(parent)
        is_leaf = [True] * n
        for up in parent:
            if up >= 0:
                is_leaf[up] = False
        size = [1.0] * n
        tokens: list[float] = self.tokens.astype(np.float64).tolist()
        cost: list[float] = self.cost.astype(np.float64).tolist()
        leaves = [1.0 if leaf else 0.0 for leaf in is_leaf]
        last = [row if leaf else -1 for row, leaf in enumerate(is_leaf)]
        for row in np.argsort(-self.depth, kind="stable").tolist():
            up = parent[row]
            if up >= 0:
                size[up] += size[row]
                tokens[up] += tokens[row]
                cost[up] += cost[row]
                leaves[up] += leaves[row]
                if last[row] > last[up]:
                    last[up] = last[row]
        return size, tokens, cost, leaves, last

    def last_leaf(self) -> np.ndarray:
        """Per row, the last leaf in file order below it."""
        return np.array(self.subtree_figures()[4], dtype=np.int64)


def tree_arrays(session: Session) -> TreeArrays:
    """The tree arrays straight from the session's read, with no entries table (a corpus
    summary read has none): total tokens and cost per row, 0 without usage (a value the
    loader kept as missing is 0 in the usage column's arrays, as in the entries table)."""
    cols, tree = session._cols, session._tree
    n = len(cols)
    tokens: np.ndarray = view(cols.usage.tokens, np.int64).reshape(-1, 5)[:, 4]
    return TreeArrays(
        ids=cols.ids,
        parent=np.fromiter(tree.parent, dtype=np.int64, count=n),
        depth=tree.depths(),
        tokens=tokens.astype(np.float64),
        cost=np.nan_to_num(view(cols.usage.cost, np.float64)),
        row_of=cols.index_of,
    )
