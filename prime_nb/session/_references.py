"""The links an entry makes besides its parent, checked once the whole file is read: a
compaction's first kept entry and a label's target.

Why: such a link may name no entry of the file (a hand edit, a copy cut short, a writer
of another tool), or a compaction may name an entry that is not above it on its path
(itself, a later entry, another branch). The file is read as the agent reads it (the
compaction keeps no entry before it, the label applies to nothing), so it loads; but
the context or the labels then differ from what the writer meant, and the problems
table says so, at the line of the entry that links (``dangling_reference``, a
warning: nothing is lost that the file holds).
"""

from __future__ import annotations

from ..format import Problem
from ._columns import EntryColumns
from ._text import clip
from ._tree import Tree, preorder_of, preorder_spans

#: what the context keeps when a compaction's link cannot be followed
_NONE_KEPT = "the context keeps no entry before the compaction"


def reference_problems(cols: EntryColumns, tree: Tree) -> list[Problem]:
    """A ``dangling_reference`` warning for each compaction whose ``firstKeptEntryId``
    names no entry or one not above it, and each label whose ``targetId`` names no
    entry."""
    found: list[Problem] = []
    spans: tuple[list[int], list[int]] | None = None  # one walk of the tree, if any kept
    for compaction in cols.compactions:
        row = compaction["index"]
        kept = compaction["first_kept_entry_id"]
        if kept is None:
            continue  # none written, or one that is not a string (a ``bad_value`` already)
        kept_row = cols.index_of.get(kept)
        if kept_row is not None and kept_row != row:
            if spans is None:
                parent = tree.parent
                spans = preorder_spans(parent, preorder_of(parent, tree.children))
            enter, size = spans
            if 0 <= enter[row] - enter[kept_row] < size[kept_row]:
                continue
        if kept_row is None:
            why = f"firstKeptEntryId {clip(repr(kept), 40)} names no entry of the file"
        elif kept_row == row:
            why = "firstKeptEntryId names the compaction itself"
        else:
            why = (
                f"firstKeptEntryId {clip(repr(kept), 40)} (line {cols.lines[kept_row]}) is "
                "not above the compaction on its path"
            )
        found.append(_problem(cols, row, f"{why}; {_NONE_KEPT}"))
    for row, target, _ in cols.label_events:
        if target is not None and target not in cols.index_of:
            message = f"targetId {clip(repr(target), 40)} names no entry of the file"
            found.append(_problem(cols, row, f"{message}; the label applies to nothing"))
    return found


def _problem(cols: EntryColumns, row: int, message: str) -> Problem:
    return Problem(cols.lines[row], "dangling_reference", message, cols.ids[row])
