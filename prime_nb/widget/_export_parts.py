"""What an exported page holds beside the tree, each thing once: what the kernel's
answers are made from (``exported.ts`` turns them back into the answers):

- ``lines``: the line that says what each entry is (the tree's text column): small, and
  placed before the page's script, so that the first draw has its text at once;
- ``previews``: the rest of the tooltip's fields, as columns (role, type, time, tokens, tool);
- ``entries-K``: every entry as the file holds it (canonical), in chunks of rows, each
  row on a line of its own, so the page decodes only the chunk of the entry opened and
  parses only the rows asked for;
- ``extras``: what an entry's detail adds to the entry: labels, costs, and which tool
  call each result answers;
- ``texts``: the search text of every entry;
- ``contexts``: the contexts of the active leaf and the newest leaves, within a budget.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ._data import SessionData, _strings
from ._pack import ROWS_CLOSE, ROWS_OPEN, ROWS_SEP, Packer, dumps
from ._page import PageWriter

#: a chunk of entries ends at this many rows or this many bytes of JSON, whichever first
CHUNK_ROWS = 5_000
CHUNK_BYTES = 4 << 20
#: entries read from the file at once
READ_BATCH = 2_000
#: messages of all carried contexts together (see ``contexts``)
MAX_CONTEXT_ITEMS = 10_000


def detail_extras(data: SessionData) -> dict[str, Any]:
    """Labels in force, cost per row, and every tool call (``session.tool_calls``, in file
    order) with its calling row and the row of its result (-1 for none): the page puts a
    result's content beside its call itself, rather than the file carrying it twice."""
    session, row_of = data.session, data.row_of
    calls = session.tool_calls
    return {
        "labels": [[row_of[i], text] for i, text in session.labels.items() if i in row_of],
        "cost": data.costs(),
        "calls": {
            "assistant": [row_of[i] for i in calls["assistant_id"].tolist()],
            "call_id": _strings(calls["call_id"]),
            "name": _strings(calls["name"]),
            "result": [row_of.get(i, -1) if i else -1 for i in _strings(calls["result_id"])],
        },
    }


def write_entries(
    page: PageWriter,
    data: SessionData,
    see: Callable[[int, dict[str, Any]], Any],
    done: Callable[[int], Any],
) -> list[int]:
    """The ``entries-K`` parts; ``see(row, entry)`` is called with each on the way.
    Returns the first row of each part."""
    starts: list[int] = []
    packer: Packer | None = None
    for row, entry in enumerate(_each_entry(data, done)):
        if packer is None or row - starts[-1] == CHUNK_ROWS or packer.taken >= CHUNK_BYTES:
            if packer is not None:
                packer.write(ROWS_CLOSE)
                page.end(packer)
            starts.append(row)
            packer = page.begin(f"entries-{len(starts) - 1}")
            packer.write(ROWS_OPEN + dumps(entry))
        else:
            packer.write(ROWS_SEP + dumps(entry))
        see(row, entry)
    if packer is not None:
        packer.write(ROWS_CLOSE)
        page.end(packer)
    return starts


def _each_entry(data: SessionData, done: Callable[[int], Any]) -> Iterator[dict[str, Any]]:
    """Every entry in row order, read a batch at a time; ``done(k)`` after each batch."""
    for start in range(0, data.n, READ_BATCH):
        ids = data.ids[start : start + READ_BATCH]
        yield from data.session.read_entries(ids)
        done(len(ids))


def context_leaves(data: SessionData) -> list[int]:
    """Rows of the leaves whose context the page carries: the active leaf first, then the
    newest leaves (see ``contexts``)."""
    leaves = [i for i, leaf in enumerate(data.session.entries["is_leaf"].tolist()) if leaf]
    active = data.row_of.get(data.session.leaf_id or "", -1)
    return sorted(leaves, key=lambda row: (row != active, -row))


def contexts(data: SessionData, budget: int = MAX_CONTEXT_ITEMS) -> dict[str, Any]:
    """``{leaf row: context answer}`` for leaves until ``budget`` messages are used.

    The active leaf's is always there. Every leaf's context of a big session would be
    most of the page (each repeats its whole branch); the page says when a leaf's context
    was left out, and the notebook widget builds any of them on request.
    """
    out: dict[str, Any] = {}
    total = 0
    for row in context_leaves(data):
        answer = data.context(row)
        total += len(answer["messages"])
        if total > budget and out:
            break
        out[str(row)] = answer
    return out
