"""Write docs/tables.md, the column reference of every table, from the schema modules.

Why: the dtypes live in one place, ``prime_nb.session._schema`` and
``prime_nb.analysis._schemas``, which the tables are built to and the tests check. A
reference written by hand drifted from them; this one is generated, and
``tests/test_docs_reference.py`` fails when the file is older than the schemas.

    python docs/make_reference.py          # rewrite docs/tables.md
"""

from __future__ import annotations

import sys
from pathlib import Path

from prime_nb.analysis import _schemas as research
from prime_nb.session import _schema as session

OUT = Path(__file__).with_name("tables.md")

#: what each column of the Session's tables holds (the schema module gives its dtype)
DESCRIPTIONS: dict[str, dict[str, str]] = {
    "entries": {
        "id": "the index: the entry's id (a missing or repeated id gets a unique name)",
        "parent_id": "the parent's id; missing for a root",
        "type": "entry type, canonical names (`message`, `compaction`, ...)",
        "role": "the message role, for messages",
        "timestamp": "when the entry was written",
        "line": "line number in the file (the header is line 1)",
        "depth": "distance from its root",
        "children": "number of children",
        "text": "a preview of the entry's text",
        "tool_name": "tool(s) called, or the tool a result answers",
        "provider": "provider of an assistant message or model change",
        "model": "model of an assistant message or model change",
        "input_tokens": "input tokens as the provider reported them (missing: no usage)",
        "output_tokens": "output tokens, as reported",
        "cache_read_tokens": "tokens read from the provider's cache, as reported",
        "cache_write_tokens": "tokens written to the provider's cache, as reported",
        "total_tokens": "`totalTokens`, else the sum of the four parts",
        "cost": "cost in dollars (NaN: none recorded)",
        "stop_reason": "why an assistant message stopped",
        "is_error": "error stop, failed tool result, non-zero exit",
        "has_text": "the message has text",
        "has_thinking": "the message has thinking",
        "has_image": "the message has an image",
        "n_tool_calls": "tool calls in the message",
        "custom_type": "`customType` of custom entries and messages",
        "label": "the label in force on the entry",
        "is_leaf": "the entry has no children",
        "on_active_path": "on the path root -> active leaf (the last line)",
        "byte_offset": "where its line starts in the file",
        "byte_length": "its line's length in bytes, newline included",
    },
    "tool_calls": {
        "call_id": "the tool call's id",
        "name": "the tool",
        "arguments": "its arguments as written (read from disk when the table is built)",
        "assistant_id": "the assistant message that made the call",
        "result_id": "the tool result answering it; missing while it waits",
        "is_error": "whether the result is an error; missing while it waits",
        "latency": "seconds from call to result",
        "timestamp": "when the call was made",
    },
    "compactions": {
        "id": "the index: the compaction's id",
        "parent_id": "its parent",
        "first_kept_entry_id": "the first entry kept after the summary",
        "first_kept_on_path": "that entry is on the compaction's path",
        "tokens_before": "context tokens before, as recorded",
        "tokens_after": "context tokens after, when recorded",
        "summary": "the summary",
        "details": "the details as written (read and modified files)",
        "from_hook": "written by an extension hook",
        "custom_instructions": "the instructions given to the compaction, when any",
        "line": "its line number",
        "timestamp": "when it was written",
        "entries_summarised": "context entries it folded into the summary",
    },
    "leaves": {
        "leaf_id": "the index: the leaf's id",
        "depth": "its depth",
        "path_length": "entries on the path root -> leaf",
        "tokens": "the turns' `total_tokens` summed along the path, so cached context "
        "counts again on every turn (clipped at 2**63-1)",
        "cost": "cost along the path",
        "last_timestamp": "the leaf's time",
        "type": "the leaf's entry type",
        "role": "the leaf's role",
        "is_active": "the active leaf (the last line)",
    },
    "problems": {
        "line": "the line the problem is on",
        "kind": "`invalid_json`, `orphan`, `duplicate_id`, `bad_value`, `lone_surrogate`, ...",
        "message": "what is wrong, and what was done about it",
        "entry_id": "the entry concerned, when there is one",
        "severity": "`error` (a line or an entry lost, or the tree changed: `invalid_json`, "
        "`glued_entries`, `orphan`, `duplicate_id`, ...) or `warning` (an odd value kept as "
        "written, or missing where a column cannot hold it: `bad_value`, `blank_line`, ...); "
        "`prime-nb validate` exits 1 on errors",
    },
}

INTRO = """\
# Tables and their dtypes

Generated by `python docs/make_reference.py` from the schema modules; do not edit by hand.

Each table has one schema, whatever the session holds (empty, clean or hostile); the tests
check every table against it. Text is pandas' `str` (missing = NaN), times are
`datetime64[us, UTC]` (missing, or past ±292,000 years = NaT), counts that may be missing
are `Int64`. A value of the wrong kind in the file (a `stopReason` that is an object, a
token count past 2**63-1, a timestamp out of range...) is missing here and reported in
`session.problems` with its line.
"""


def _columns(schema: dict[str, str], index: tuple[str, str] | None) -> list[tuple[str, str]]:
    """The table's columns in order, its named index first."""
    return ([index] if index else []) + list(schema.items())


def render() -> str:
    """The whole reference, as docs/tables.md holds it."""
    parts = [INTRO]
    for table, schema in session.SCHEMAS.items():
        described = DESCRIPTIONS[table]
        parts.append(f"\n## `session.{table}`\n\n| column | dtype | what |\n|---|---|---|\n")
        for column, dtype in _columns(schema, session.INDEX[table]):
            parts.append(f"| `{column}` | `{dtype}` | {described[column]} |\n")
    parts.append(
        "\n# Research tables\n\nThe tables of `prime_nb.analysis`; the corpus's research "
        "tables are these with `session` and `path` in front.\n"
    )
    for table, schema in research.SCHEMAS.items():
        parts.append(f"\n## `analysis.{table}`\n\n| column | dtype |\n|---|---|\n")
        for column, dtype in _columns(schema, research.INDEX.get(table)):
            parts.append(f"| `{column}` | `{dtype}` |\n")
    return "".join(parts)


def missing_descriptions() -> list[str]:
    """Columns of the Session's tables that have no description here."""
    return [
        f"{table}.{column}"
        for table, schema in session.SCHEMAS.items()
        for column, _ in _columns(schema, session.INDEX[table])
        if column not in DESCRIPTIONS.get(table, {})
    ]


if __name__ == "__main__":
    if missing := missing_descriptions():
        sys.exit(f"describe these columns in docs/make_reference.py: {', '.join(missing)}")
    OUT.write_text(render(), "utf-8")
    print(f"wrote {OUT}")
