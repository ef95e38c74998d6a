"""Compaction retention: what each compaction's summary kept of its span, and what the
loss cost later.

Why: what a summary leaves out is only visible later, when the agent reads a file again,
runs a command again or meets an error again. It works on whole entries
(``session.read_entries``) and the compaction walk, never on a table, so the corpus's
summary pass gives the same rows (:func:`corpus_retention_rows`).

The definitions, so that counts can be checked by hand:

- ``file``: the path a tool call names (``path``, ``file_path``...), relative to cwd when
  below it. The summary names it in any spelling: relative, ``./`` relative, or absolute.
- ``command``: a tool call's ``command`` argument, whitespace collapsed; the summary must
  hold it exactly (whitespace collapsed too).
- ``error``: the first non-empty line of an error tool result, whitespace collapsed.
- ``url``: every ``http(s)://`` address in a tool call's string arguments.
- ``identifier``: a name given in a tool call's ``name``, ``symbol``, ``pattern``...
  argument (``IDENTIFIER_KEYS``) when the whole value is one identifier (``load_rows``,
  ``pkg.Class.method``); the summary names it as a whole word.

A fact is needed later as :func:`compaction_retention` says.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..session import ColumnsRead, Session, SessionLike, as_session
from ._common import PATH_KEYS, blocks_of, estimate_tokens, relative_path, session_cwd, tree_arrays
from ._compaction import kept_rows, walk_compactions
from ._schemas import conform

#: the kinds of fact, in the order of the tables
KINDS = ("file", "command", "error", "url", "identifier")
#: argument keys whose value, when it is one identifier, is a name the model gave
IDENTIFIER_KEYS = (
    "name",
    "symbol",
    "identifier",
    "pattern",
    "query",
    "function",
    "class",
    "method",
    "variable",
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*")
_URL = re.compile(r"https?://[^\s'\"<>`\\)\]}]+")
#: characters that continue a URL: a summary naming a longer address does not name this one
_URL_TAIL = re.compile(r"[^\s'\"<>`\\)\]},.;:!?]")
#: longest error line kept (an error that is a whole stack trace is still one fact)
ERROR_CHARS = 300


def _squeeze(text: str) -> str:
    return " ".join(text.split())


@dataclass
class Use:
    """One tool call's facts, where it sits, and what it cost."""

    entry_id: str
    facts: set[tuple[str, str]]
    tokens: int


def _string_values(value: Any, depth: int = 0) -> Iterable[str]:
    """Every string inside a call's arguments (nested lists and objects included)."""
    if isinstance(value, str):
        yield value
    elif depth < 20 and isinstance(value, dict):
        for item in value.values():
            yield from _string_values(item, depth + 1)
    elif depth < 20 and isinstance(value, list):
        for item in value:
            yield from _string_values(item, depth + 1)


def call_facts(arguments: Any, cwd: str | None) -> set[tuple[str, str]]:
    """The (kind, value) facts a tool call's arguments name (see the module docstring)."""
    facts: set[tuple[str, str]] = set()
    if not isinstance(arguments, dict):
        return facts
    for key in PATH_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            facts.add(("file", relative_path(value, cwd)))
            break
    command = arguments.get("command")
    if isinstance(command, str) and command.strip():
        facts.add(("command", _squeeze(command)))
    for text in _string_values(arguments):
        for url in _URL.findall(text):
            facts.add(("url", url.rstrip(".,;:!?")))
    for key in IDENTIFIER_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and _IDENTIFIER.fullmatch(value):
            facts.add(("identifier", value))
    return facts


def error_fact(message: dict[str, Any]) -> str | None:
    """The error a tool result reports (its first non-empty line), None when it is no error."""
    if message.get("role") != "toolResult" or message.get("isError") is not True:
        return None
    content = message.get("content")
    texts = [content] if isinstance(content, str) else []
    for block in blocks_of(message):
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            texts.append(block["text"])
    for text in texts:
        for line in text.splitlines():
            if line.strip():
                return _squeeze(line)[:ERROR_CHARS]
    return None


def uses_of(entries: Sequence[dict[str, Any]], cwd: str | None) -> list[Use]:
    """The tool calls of ``entries`` (in file order: a result after its call), each with
    its facts and cost (the call and, once it comes, its result); an error result is a use
    of its own, at the result's entry, costing the call and the result."""
    out: list[Use] = []
    by_call: dict[str, Use] = {}
    for entry in entries:
        message = entry.get("message")
        if entry.get("type") != "message" or not isinstance(message, dict):
            continue
        entry_id = str(entry.get("id"))
        if message.get("role") == "assistant":
            for block in blocks_of(message):
                if not isinstance(block, dict) or block.get("type") != "toolCall":
                    continue
                # the call's tokens as the agent estimates them in its context
                tokens = estimate_tokens({"role": "assistant", "content": [block]})
                use = Use(entry_id, call_facts(block.get("arguments"), cwd), tokens)
                out.append(use)
                if isinstance(block.get("id"), str):
                    by_call[block["id"]] = use
        elif message.get("role") == "toolResult":
            call_id = message.get("toolCallId")  # anything: the file is untrusted
            call = by_call.get(call_id) if isinstance(call_id, str) else None
            tokens = estimate_tokens(message)
            if call is not None:
                call.tokens += tokens
            error = error_fact(message)
            if error is not None:
                # met at the result: its own use, costing the call and the result
                cost = call.tokens if call is not None else tokens
                out.append(Use(entry_id, {("error", error)}, cost))
    return out


def _spellings(path: str, cwd: str | None) -> list[str]:
    """The ways a summary may write a file: as stored, ``./`` relative, absolute."""
    out = [path]
    if cwd and not path.startswith("/"):
        out += [f"./{path}", f"{cwd.rstrip('/')}/{path}"]
    return out


def named_in(kind: str, value: str, summary: str, cwd: str | None) -> bool:
    """Does the summary text name this fact (see the module docstring for each kind)?"""
    if kind == "file":
        for spelling in _spellings(value, cwd):
            pattern = rf"(?<![\w./~-]){re.escape(spelling)}(?![\w/-]|\.\w)"
            if re.search(pattern, summary):
                return True
        return False
    if kind in ("command", "error"):
        return _squeeze(value) in _squeeze(summary)
    if kind == "url":
        start = summary.find(value)
        while start >= 0:
            end = start + len(value)
            if end == len(summary) or not _URL_TAIL.match(summary[end]):
                return True
            start = summary.find(value, start + 1)
        return False
    return re.search(rf"(?<![\w.]){re.escape(value)}(?![\w]|\.\w)", summary) is not None


class _Continuation:
    """The tool calls on the path to one leaf, so that "the first use of a fact below a
    compaction" is a binary search: every compaction continuing to this leaf shares the
    path, and walking it once per compaction was quadratic on chained compactions."""

    def __init__(self, path: Sequence[str], by_entry: dict[str, list[Use]]) -> None:
        self.position = {entry_id: n for n, entry_id in enumerate(path)}
        self.uses = [use for entry_id in path for use in by_entry.get(entry_id, ())]
        #: fact -> the path positions of the uses of it, and those uses' places, in order
        self.where: dict[tuple[str, str], tuple[list[int], list[int]]] = {}
        for place, use in enumerate(self.uses):
            at = self.position[use.entry_id]
            for fact in use.facts:
                positions, places = self.where.setdefault(fact, ([], []))
                positions.append(at)
                places.append(place)

    def first(self, fact: tuple[str, str], below: str) -> tuple[int, Use] | None:
        """The first use of ``fact`` below the entry ``below`` (and its place), if any."""
        found = self.where.get(fact)
        start = self.position.get(below)
        if found is None or start is None:
            return None
        k = bisect_right(found[0], start)
        return (found[1][k], self.uses[found[1][k]]) if k < len(found[0]) else None


def retention_details(
    session: Session,
    ids: Sequence[str],
    comps: Sequence[int],
    summaries: Sequence[str],
    summarised: Sequence[Sequence[int]],
    leaves: Sequence[int],
    cwd: str | None,
) -> list[dict[str, Any]]:
    """One row per (compaction, fact) of the compaction rows ``comps``: their summary
    texts, the rows each summarised and the leaf each continues to (the walk's), with
    ``needed_tokens`` (the cost of the first call that needed it, 0 if none) and ``call``
    (that call's place on the path to the leaf, so that a call is paid once).

    The entries are read from disk once for all compactions (``session.read_entries``),
    and their tool calls found once.
    """
    paths = {leaf: session.path(ids[leaf]) for leaf in sorted(set(leaves)) if leaf >= 0}
    row_of = {entry_id: n for n, entry_id in enumerate(ids)}
    wanted = sorted(
        {r for rows in summarised for r in rows}
        | {row_of[i] for path in paths.values() for i in path}
    )
    # every entry's tool calls once, in file order (a result follows its call), shared by
    # the spans and the paths: paths to different leaves share their beginnings
    by_entry: dict[str, list[Use]] = {}
    for use in uses_of(session.read_entries([ids[r] for r in wanted]), cwd):
        by_entry.setdefault(use.entry_id, []).append(use)
    continuing = {leaf: _Continuation(path, by_entry) for leaf, path in paths.items()}
    rows: list[dict[str, Any]] = []
    for k, row in enumerate(comps):
        in_span: dict[tuple[str, str], None] = {}  # file order, each fact once
        for r in summarised[k]:
            for use in by_entry.get(ids[r], ()):
                for fact in sorted(use.facts):
                    in_span.setdefault(fact)
        after = continuing.get(leaves[k])
        summary = summaries[k]
        for kind, value in in_span:
            named = named_in(kind, value, summary, cwd)
            found = None if named or after is None else after.first((kind, value), ids[row])
            call_at, first = found if found is not None else (None, None)
            rows.append(
                {
                    "compaction_id": ids[row],
                    "kind": kind,
                    "value": value,
                    "in_summary": named,
                    "needed_later": first is not None,
                    "first_needed_id": first.entry_id if first is not None else None,
                    "needed_tokens": first.tokens if first is not None else 0,
                    "call": call_at,
                }
            )
    return rows


def retention_counts(
    details: Sequence[dict[str, Any]], compaction_ids: Sequence[str]
) -> list[dict[str, Any]]:
    """The per-kind counts of ``details``: one row per compaction and kind, zeros
    included. A call that needed two facts of one kind is paid once."""
    counts: dict[tuple[str, str], dict[str, Any]] = {
        (cid, kind): {
            "compaction_id": cid,
            "kind": kind,
            "in_span": 0,
            "in_summary": 0,
            "needed_later": 0,
            "needed_later_tokens": 0,
        }
        for cid in compaction_ids
        for kind in KINDS
    }
    paid: set[tuple[str, str, Any]] = set()
    for row in details:
        out = counts[(row["compaction_id"], row["kind"])]
        out["in_span"] += 1
        out["in_summary"] += int(row["in_summary"])
        if row["needed_later"]:
            out["needed_later"] += 1
            key = (row["compaction_id"], row["kind"], row["call"])
            if key not in paid:
                paid.add(key)
                out["needed_later_tokens"] += row["needed_tokens"]
    return list(counts.values())


def _retention(session: Session) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The detail rows and the per-kind counts of every compaction of the session."""
    cols = session._cols
    comps = [c["index"] for c in cols.compactions]
    walked = walk_compactions(
        session._index,
        tree_arrays(session).last_leaf(),
        comps,
        kept_rows(session),
        [],
        {},
        [set() for _ in comps],
    )
    details = retention_details(
        session,
        cols.ids,
        comps,
        [c["summary"] if isinstance(c["summary"], str) else "" for c in cols.compactions],
        [w.summarised for w in walked],
        [w.leaf for w in walked],
        session_cwd(session),
    )
    return details, retention_counts(details, [cols.ids[r] for r in comps])


def compaction_retention(session: SessionLike, detail: bool = False) -> pd.DataFrame:
    """One row per compaction and kind of fact (``file``, ``command``, ``error``, ``url``,
    ``identifier``), compactions in file order, every kind even when it counts nothing.

    - ``in_span``: the distinct facts of the entries the compaction summarised (its
      ``summarised_ids`` in :func:`compaction_forensics`);
    - ``in_summary``: those its summary text names;
    - ``needed_later``: those a tool call on the continuing branch (to the last leaf below
      the compaction) uses again while the summary does not name them;
    - ``needed_later_tokens``: what those calls cost (each call once; chars / 4 of the
      call and its result, as the agent estimates).

    ``detail=True``: one row per fact instead, with its ``value``, ``in_summary``,
    ``needed_later`` and ``first_needed_id`` (the entry that used it again: the assistant
    entry of the call, or the error result's entry).
    """
    session = as_session(session, "analysis.compaction_retention")
    name = "compaction_retention_detail" if detail else "compaction_retention"
    if not session._cols.compactions:
        return conform(pd.DataFrame(), name)
    details, counts = _retention(session)
    return conform(pd.DataFrame(details if detail else counts), name)


def corpus_retention_rows(read: ColumnsRead, path: str) -> list[dict[str, Any]]:
    """:func:`compaction_retention` of a summary read, with ``session`` and ``path``."""
    session = Session.from_read(read)
    if not session._cols.compactions:
        return []
    return [{"session": session.id, "path": path, **row} for row in _retention(session)[1]]
