"""The summary column set: the loader's columns without text previews.

Why: a corpus row needs counts, spend, the first prompt and the tree's shape, never the
entries table, whose previews cost more than the parse itself for a file of a few
hundred entries. :class:`SummaryColumns` is the loader's own extraction (the same rows, ids,
usage, tool calls and problems) with a lighter per-message path: it keeps each row's
stop reason and the first user message's preview instead of every preview.
``read_columns(path, columns="summary")`` reads a file into it;
``tests/corpus/test_summary.py`` compares every column with the full ``load()`` path.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from ..format import Problem
from ._columns import EntryColumns, Usage, _odd, _odd_usage_problem, usage_tuple

_from_iso = datetime.fromisoformat


class SummaryColumns(EntryColumns):
    """The loader's columns without text previews: ``rest`` stays empty, ``stops`` holds
    each row's stop reason and ``first_user_text`` the first user message's preview.

    Tool-call arguments are kept only for the tools named in ``arguments`` (the corpus's
    compaction forensics needs the read tools' paths); other arguments stay on disk.
    """

    def __init__(self, arguments: Iterable[str] = ()) -> None:
        super().__init__()
        self.arguments = frozenset(arguments)
        self.stops: list[str | None] = []
        self.first_user_text: str | None = None

    def add(
        self, line: int, offset: int, length: int, entry: dict[str, Any], problems: list[Problem]
    ) -> None:
        """:meth:`_add_any`, with a shortcut for the common row: a message with a new id,
        an ISO time and a string or missing parent, that is not the first user message.

        Why: most rows of a session are such messages, and the shortcut does in one call
        what ``_start``, ``_when`` and ``timestamp_ms`` do in three, then appends the row
        with the loader's own ``_append_row`` (a few per cent of the whole pass). Anything
        else, or anything odd (a problem to report), goes to :meth:`_add_any` before a
        column changes; ``tests/corpus/test_summary.py`` holds every column equal to the
        full load.
        """
        entry_id = entry.get("id")
        stamp = entry.get("timestamp")
        message = entry.get("message")
        index_of = self.index_of
        if (
            entry_id.__class__ is not str
            or not entry_id
            or entry_id in index_of
            or stamp.__class__ is not str
            or message.__class__ is not dict
            or entry["type"] != "message"
            or self.spec_times
        ):
            return self._add_any(line, offset, length, entry, problems)
        role = message.get("role")
        parent = entry.get("parentId")
        if (role == "user" and self.first_user_text is None) or (
            parent.__class__ is not str and parent is not None
        ):
            return self._add_any(line, offset, length, entry, problems)
        try:
            moment = _from_iso(stamp)
        except ValueError:
            return self._add_any(line, offset, length, entry, problems)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        now = moment.timestamp() * 1000.0  # years 1 to 9999: always within MAX_MS
        # from here on as _start, _light and _finish do it, in their order
        row = len(self.ids)
        index_of[entry_id] = row
        role, provider, model, usage, stop = self._light(
            row, message, now, role, (line, entry_id), problems
        )
        self._append_row(
            line, offset, length, "message", entry_id, parent, role, now, provider, model, usage
        )
        self.stops.append(stop)  # _light leaves a string or None

    def _add_any(
        self, line: int, offset: int, length: int, entry: dict[str, Any], problems: list[Problem]
    ) -> None:
        """:meth:`EntryColumns.add` without previews; the same odd-value problems."""
        row, entry_id, message, now = self._start(line, entry, problems)
        stop: Any = None
        usage: Usage | None = None
        if message.__class__ is dict:
            role = message.get("role")
            if role == "user" and self.first_user_text is None:
                where = (line, entry_id, length)
                calls = len(self.tool_calls)
                role, provider, model, usage, rest = self._message(
                    row, message, now, where, problems
                )
                self.first_user_text = rest[0]
                self._keep_read_arguments(message, calls)
            else:
                role, provider, model, usage, stop = self._light(
                    row, message, now, role, (line, entry_id), problems
                )
        else:
            role = None
            provider, model, _ = self._other(row, entry["type"], entry, (line, entry_id), problems)
        self._finish(
            line, offset, length, entry, entry_id, role, now, provider, model, usage, problems
        )
        self.stops.append(stop)  # _light leaves a string or None

    def _keep_read_arguments(self, message: dict[str, Any], start: int) -> None:
        """The loader leaves every tool call's arguments on disk; the summary keeps those
        of the tools in ``arguments`` (as ``_light`` does)."""
        content = message.get("content")
        kept = self.arguments
        for k in range(start, len(self.tool_calls)):
            call = self.tool_calls[k]
            wanted = call.name.__class__ is str and call.name in kept
            block = content[call.block] if isinstance(content, list) else None
            if wanted and isinstance(block, dict):
                self.tool_calls.arguments[k] = block.get("arguments")

    def _light(
        self,
        row: int,
        message: dict[str, Any],
        now: float,
        role: Any,
        where: tuple[int, str],
        problems: list[Problem],
    ) -> tuple[Any, Any, Any, Usage | None, Any]:
        """Role, provider, model, usage and stop reason, as ``_message`` finds them (and
        the same problems for odd tool-call ids, stop reasons and usage)."""
        content = message.get("content")
        if content.__class__ is list:
            for position, block in enumerate(content):
                if block.__class__ is dict and block.get("type") == "toolCall":
                    name = block.get("name")
                    call_id = block.get("id")
                    if call_id.__class__ is not str and call_id is not None:
                        problems.append(_odd(where, "toolCall id", call_id, "kept as missing"))
                        call_id = None
                    calls = self.tool_calls
                    if name.__class__ is str and name in self.arguments:
                        calls.arguments[len(calls)] = block.get("arguments")
                    calls.add(call_id, name, row, now, position)
        if role == "assistant":
            stop = message.get("stopReason")
            if stop.__class__ is not str and stop is not None:
                problems.append(_odd(where, "stopReason", stop, "kept as missing"))
                stop = None
            raw_usage = message.get("usage")
            usage = None
            if raw_usage.__class__ is dict:
                usage = usage_tuple(raw_usage)
                if usage.__class__ is not tuple:
                    problems.append(_odd_usage_problem(where, raw_usage, usage))
            return role, message.get("provider"), message.get("model"), usage, stop
        if role == "toolResult":
            call_id = message.get("toolCallId")
            if call_id.__class__ is str:
                self.tool_results[call_id] = (row, bool(message.get("isError")), now)
        return (role if role.__class__ is str else None), None, None, None, None
