"""Side-by-side comparison of two runs: two branches of one session, or two sessions.

When a user rewinds and retries, or runs the same task twice, the question is "what did
the second attempt do differently, and was it cheaper?". Two branches are compared from
the point where they diverged; two sessions from their roots. The runs are aligned turn
by turn (a turn: a user prompt and what the agent did until the next one): prompts first,
then, where prompts differ, the turns' tool-call sequences, so that a retry whose prompt
was reworded still lines up with the turn it retried.

Everything shown comes from untrusted session files, so the HTML escapes every value and
the exported page carries a Content-Security-Policy that lets nothing run.
"""

from __future__ import annotations

import difflib
import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..session import Session, SessionLike, as_session, message_text
from ._common import relative_path, session_cwd, tool_path
from ._schemas import SCHEMAS, conform

SIDE_COLUMNS = ["entry_id", "tools", "tokens", "cost", "files", "text"]
#: characters of a prompt kept in the turns table and shown side by side
PROMPT_CHARS = 200
#: the statuses of an aligned turn
STATUSES = ("same", "changed", "only_a", "only_b")
#: the exported page may load nothing and run nothing; its one style sheet is inline
CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
#: a tool call as a turn reads it: tool, file relative to cwd (or None), command (or "")
_Call = tuple[str, str | None, str]


@dataclass
class Turn:
    """One turn of a run: its prompt and what followed until the next prompt."""

    prompt_id: str | None
    prompt: str
    tools: list[str]
    #: (tool, path relative to cwd or whitespace-collapsed command): what difflib aligns
    signature: tuple[tuple[str, str], ...]
    tokens: int
    errors: int


@dataclass(repr=False)
class Comparison:
    """The result of :func:`compare`; shows itself as the two runs side by side.

    ``turns``: one row per aligned turn (``status``: same, changed, only_a, only_b) with
    both sides' prompt preview, tools, tokens and errors; ``frame``: one row per
    assistant message after the divergence, n-th beside n-th; ``totals``: each side's
    sums; ``diff``: a unified diff of the two last assistant messages.
    """

    ancestor_id: str | None
    leaf_a: str
    leaf_b: str
    frame: pd.DataFrame
    totals: pd.DataFrame
    final_a: str
    final_b: str
    diff: str = field(repr=False)
    turns: pd.DataFrame = field(default_factory=lambda: conform(pd.DataFrame(), "compare_turns"))
    #: the two files compared (the same file for two branches)
    file_a: str = ""
    file_b: str = ""

    def __repr__(self) -> str:
        counts = self.turns["status"].value_counts()
        statuses = ", ".join(f"{int(counts[s])} {s}" for s in STATUSES if s in counts)
        return (
            f"Comparison of {self.leaf_a!r} (a) and {self.leaf_b!r} (b): "
            f"{len(self.turns)} aligned turns ({statuses or 'none'})"
        )

    def _repr_html_(self) -> str:
        return f"<style>{_STYLE}</style>{_page_body(self)}"

    def to_html(self, path: str | Path) -> Path:
        """Write the comparison as a self-contained page (no script; a strict CSP) and
        return its path."""
        target = Path(path)
        target.write_text(
            '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f"<title>{html.escape(f'{self.leaf_a} vs {self.leaf_b}')}</title>"
            f"<style>{_STYLE}</style></head><body>{_page_body(self)}</body></html>\n",
            encoding="utf-8",
        )
        return target


_STYLE = (
    ".pnb-cmp{font-family:sans-serif;font-size:13px;border-collapse:collapse;width:100%}"
    ".pnb-cmp td,.pnb-cmp th{border:1px solid #ccc;padding:4px;vertical-align:top;"
    "text-align:left;white-space:pre-wrap;word-break:break-word}"
    ".pnb-same{background:#f6f6f6}.pnb-changed{background:#fff4d6}"
    ".pnb-only_a{background:#fde2e2}.pnb-only_b{background:#e0f2e0}"
)


def _cell(value: Any) -> str:
    """A table cell's text, escaped (missing values show as nothing)."""
    if value is None or (not isinstance(value, list | str) and pd.isna(value)):
        return ""
    return html.escape(str(value))


def _side(row: pd.Series, side: str) -> str:
    if pd.isna(row[f"{side}_tokens"]):
        return "<td></td>"
    prompt = _cell(row[f"{side}_prompt"]) or "<i>(no prompt)</i>"
    return (
        f"<td><b>{prompt}</b><br>tools: {_cell(row[f'{side}_tools']) or '-'}<br>"
        f"{_cell(row[f'{side}_tokens'])} tokens, {_cell(row[f'{side}_errors'])} errors</td>"
    )


def _page_body(result: Comparison) -> str:
    """The two runs side by side, turn by turn, then the totals and the final diff; every
    value from the sessions escaped."""
    head = (
        f"<p>a: <code>{html.escape(result.file_a)}</code> at <code>"
        f"{html.escape(result.leaf_a)}</code>; b: <code>{html.escape(result.file_b)}</code> "
        f"at <code>{html.escape(result.leaf_b)}</code>; common ancestor <code>"
        f"{html.escape(str(result.ancestor_id))}</code></p>"
    )
    rows = "".join(
        f'<tr class="pnb-{html.escape(str(row["status"]))}"><td>{turn}</td>'
        f"<td>{html.escape(str(row['status']))}</td>{_side(row, 'a')}{_side(row, 'b')}</tr>"
        for turn, row in result.turns.iterrows()
    )
    table = (
        '<table class="pnb-cmp"><thead><tr><th>turn</th><th>status</th><th>a</th><th>b</th>'
        f"</tr></thead><tbody>{rows}</tbody></table>"
    )
    totals = "".join(
        f"<tr><th>{html.escape(str(name))}</th><td>{_cell(values['a'])}</td>"
        f"<td>{_cell(values['b'])}</td></tr>"
        for name, values in result.totals.iterrows()
    )
    diff = html.escape(result.diff) or "(final assistant messages are identical)"
    return (
        f'{head}{table}<h4>totals</h4><table class="pnb-cmp"><tr><th></th><th>a</th>'
        f"<th>b</th></tr>{totals}</table><h4>final message diff</h4><pre>{diff}</pre>"
    )


def common_ancestor(session: SessionLike, leaf_a: str, leaf_b: str) -> str | None:
    """The deepest entry on both paths (None when they share no root)."""
    session = as_session(session, "analysis.common_ancestor")
    ancestor = None
    for a, b in zip(session.path(leaf_a), session.path(leaf_b), strict=False):
        if a != b:
            break
        ancestor = a
    return ancestor


def _calls_by_assistant(session: Session, ids: Sequence[str]) -> dict[str, list[_Call]]:
    """The tool calls of the entries ``ids``, grouped by the assistant entry that made
    them, each as (tool, file relative to cwd or None, command whitespace-collapsed or
    ""): one pass over the calls table."""
    cwd = session_cwd(session)
    calls = session.tool_calls
    wanted = set(ids)
    by_assistant: dict[str, list[_Call]] = {}
    for assistant_id, name, arguments in zip(
        calls["assistant_id"], calls["name"], calls["arguments"], strict=True
    ):
        if assistant_id in wanted:
            target = tool_path(arguments)
            command = arguments.get("command") if isinstance(arguments, dict) else None
            by_assistant.setdefault(assistant_id, []).append(
                (
                    str(name),
                    relative_path(target, cwd) if target else None,
                    " ".join(command.split()) if isinstance(command, str) else "",
                )
            )
    return by_assistant


def _path_turns(session: Session, ids: Sequence[str]) -> tuple[list[dict[str, Any]], list[Turn]]:
    """The assistant messages of the path ``ids`` (``Comparison.frame``'s sides) and its
    turns: each user message starts one (assistant messages or tool results before the
    first user message make a turn without a prompt)."""
    entries = session.entries.loc[list(ids)] if ids else session.entries.iloc[:0]
    by_assistant = _calls_by_assistant(session, ids)
    messages: list[dict[str, Any]] = []
    turns: list[Turn] = []
    current: Turn | None = None
    for entry_id, role, text, tokens, cost, is_error, stop in zip(
        entries.index,
        entries["role"].astype(object),
        entries["text"].astype(object),
        entries["total_tokens"].astype(object),
        entries["cost"].astype(object),
        entries["is_error"],
        entries["stop_reason"].astype(object),
        strict=True,
    ):  # columns, not a row lookup per entry: a whole path of a long session is compared
        text = text if isinstance(text, str) else ""
        if role == "user":
            current = Turn(entry_id, text, [], (), 0, 0)
            turns.append(current)
        elif current is None and role in ("assistant", "toolResult"):
            current = Turn(None, "", [], (), 0, 0)  # the agent acted before any prompt
            turns.append(current)
        if role == "assistant":
            assert current is not None
            made = by_assistant.get(entry_id, [])
            spent = 0 if pd.isna(tokens) else int(tokens)
            messages.append(
                {
                    "entry_id": entry_id,
                    "tools": ", ".join(name for name, _, _ in made),
                    "tokens": spent,
                    "cost": 0.0 if pd.isna(cost) else float(cost),
                    "files": sorted({f for _, f, _ in made if f}),
                    "text": text,
                }
            )
            current.tools += [name for name, _, _ in made]
            # what difflib compares: the tool, and its file or else its command
            current.signature += tuple((name, f if f else c) for name, f, c in made)
            current.tokens += spent
            current.errors += int(stop == "error")
        elif role == "toolResult" and current is not None and bool(is_error):
            current.errors += 1
    return messages, turns


def _prompt_key(turn: Turn) -> str:
    return " ".join(turn.prompt.split())


def align(turns_a: Sequence[Turn], turns_b: Sequence[Turn]) -> list[tuple[int | None, int | None]]:
    """Pairs of turn positions (None: the turn has no partner), in order.

    Prompts align first (difflib over the prompt texts); inside a stretch where prompts
    differ, the turns' tool-call sequences align (difflib over their signatures), and
    what is left pairs up in order, the surplus standing alone.
    """
    out: list[tuple[int | None, int | None]] = []
    prompts = difflib.SequenceMatcher(
        None, [_prompt_key(t) for t in turns_a], [_prompt_key(t) for t in turns_b], autojunk=False
    )
    for tag, i1, i2, j1, j2 in prompts.get_opcodes():
        if tag == "equal":
            out += [(i1 + k, j1 + k) for k in range(i2 - i1)]
            continue
        tools = difflib.SequenceMatcher(
            None,
            [t.signature for t in turns_a[i1:i2]],
            [t.signature for t in turns_b[j1:j2]],
            autojunk=False,
        )
        for tag2, a1, a2, b1, b2 in tools.get_opcodes():
            width = min(a2 - a1, b2 - b1)
            out += [(i1 + a1 + k, j1 + b1 + k) for k in range(width)]
            out += [(i1 + a, None) for a in range(a1 + width, a2)]
            out += [(None, j1 + b) for b in range(b1 + width, b2)]
            del tag2
    return out


def _turns_frame(turns_a: Sequence[Turn], turns_b: Sequence[Turn]) -> pd.DataFrame:
    rows = []
    for i, j in align(turns_a, turns_b):
        a = turns_a[i] if i is not None else None
        b = turns_b[j] if j is not None else None
        if a is None:
            status = "only_b"
        elif b is None:
            status = "only_a"
        elif _prompt_key(a) == _prompt_key(b) and a.signature == b.signature:
            status = "same"
        else:
            status = "changed"
        row: dict[str, Any] = {"status": status}
        for side, turn in (("a", a), ("b", b)):
            if turn is None:
                continue
            row.update(
                {
                    f"{side}_prompt_id": turn.prompt_id,
                    f"{side}_prompt": turn.prompt[:PROMPT_CHARS],
                    f"{side}_tools": ", ".join(turn.tools),
                    f"{side}_tool_calls": len(turn.tools),
                    f"{side}_tokens": turn.tokens,
                    f"{side}_errors": turn.errors,
                }
            )
        rows.append(row)
    frame = pd.DataFrame(rows, columns=list(SCHEMAS["compare_turns"]))
    frame.index = pd.RangeIndex(1, len(rows) + 1, name="turn")
    return conform(frame, "compare_turns")


def _final_text(session: Session, ids: list[str]) -> str:
    roles = session.entries["role"]
    for entry_id in reversed(ids):
        if roles.at[entry_id] == "assistant":
            message = session.entry(entry_id).get("message")
            return message_text(message) if isinstance(message, dict) else ""
    return ""


def _as_side(value: Any) -> tuple[Session, str | None]:
    """A side of a two-run comparison: a Session or path (its active leaf), or a
    ``(session or path, leaf)`` pair."""
    if isinstance(value, tuple):
        if len(value) != 2 or not (value[1] is None or isinstance(value[1], str)):
            raise TypeError(
                "analysis.compare takes a side as a Session, a path, or a (session, leaf_id) "
                f"pair; got a tuple of {len(value)} items"
            )
        return as_session(value[0], "analysis.compare"), value[1]
    return as_session(value, "analysis.compare"), None


def compare(
    session: SessionLike | tuple[SessionLike, str | None],
    leaf_a: str | SessionLike | tuple[SessionLike, str | None] | None = None,
    leaf_b: str | None = None,
) -> Comparison:
    """Align two runs turn by turn.

    - ``compare(session, leaf_a, leaf_b)``: two branches of one session, from their common
      ancestor;
    - ``compare(run_a, run_b)``: two sessions (or session files) at their active leaves,
      or ``(session, leaf_id)`` pairs, from their roots.

    ``turns`` has one row per aligned turn with its ``status`` (same: same prompt and same
    tool calls; changed; only_a; only_b) and each side's prompt preview, tools, tokens and
    errors; ``frame`` one row per assistant message (n-th of a beside n-th of b) with its
    tools, tokens, cost, files touched and text preview; ``totals`` sums each side;
    ``diff`` is a unified diff of the last assistant messages.
    """
    if leaf_b is not None:
        if not isinstance(leaf_a, str):
            raise TypeError(
                "analysis.compare takes two leaf ids after one session "
                f"(session, leaf_a, leaf_b); leaf_a is a {type(leaf_a).__name__}"
            )
        one = as_session(session, "analysis.compare")
        path_a, path_b = one.path(leaf_a), one.path(leaf_b)
        ancestor = common_ancestor(one, leaf_a, leaf_b)
        shared = path_a.index(ancestor) + 1 if ancestor is not None else 0
        return _compare(one, path_a[shared:], leaf_a, one, path_b[shared:], leaf_b, ancestor)
    if leaf_a is None or (
        isinstance(session, Session) and isinstance(leaf_a, str) and leaf_a in session.entries.index
    ):
        raise TypeError(
            "analysis.compare takes two runs (run_a, run_b) or one session and two leaf ids "
            "(session, leaf_a, leaf_b); give the second run or the second leaf"
        )
    session_a, at_a = _as_side(session)
    session_b, at_b = _as_side(leaf_a)
    path_a, path_b = session_a.path(at_a), session_b.path(at_b)
    name_a = at_a if at_a is not None else session_a.leaf_id or ""
    name_b = at_b if at_b is not None else session_b.leaf_id or ""
    return _compare(session_a, path_a, name_a, session_b, path_b, name_b, None)


def _compare(
    session_a: Session,
    rest_a: list[str],
    leaf_a: str,
    session_b: Session,
    rest_b: list[str],
    leaf_b: str,
    ancestor: str | None,
) -> Comparison:
    """The comparison of the two paths (the parts after any shared ancestor)."""
    turns_a, prompts_a = _path_turns(session_a, rest_a)
    turns_b, prompts_b = _path_turns(session_b, rest_b)
    length = max(len(turns_a), len(turns_b))
    empty: dict[str, Any] = dict.fromkeys(SIDE_COLUMNS)
    rows = []
    for k in range(length):
        a = turns_a[k] if k < len(turns_a) else empty
        b = turns_b[k] if k < len(turns_b) else empty
        rows.append(
            {**{f"a_{c}": a[c] for c in SIDE_COLUMNS}, **{f"b_{c}": b[c] for c in SIDE_COLUMNS}}
        )
    frame = pd.DataFrame(
        rows,
        columns=[f"{side}_{c}" for c in SIDE_COLUMNS for side in ("a", "b")],
        index=pd.RangeIndex(1, length + 1, name="turn"),
    )
    frame = conform(frame, "compare")

    def totals(ids: list[str], turns: list[dict[str, Any]], prompts: list[Turn]) -> dict[str, Any]:
        return {
            "entries": len(ids),
            "assistant_turns": len(turns),
            "tool_calls": sum(len(t.tools) for t in prompts),
            "tokens": sum(t.tokens for t in prompts),
            "cost": sum(t["cost"] for t in turns),
            "errors": sum(t.errors for t in prompts),
            "files_touched": sorted({f for t in turns for f in t["files"]}),
            "leaf_id": ids[-1] if ids else None,
        }

    final_a, final_b = _final_text(session_a, rest_a), _final_text(session_b, rest_b)
    diff = "\n".join(
        difflib.unified_diff(
            final_a.splitlines(),
            final_b.splitlines(),
            fromfile=f"a ({leaf_a})",
            tofile=f"b ({leaf_b})",
            lineterm="",
        )
    )
    return Comparison(
        ancestor_id=ancestor,
        leaf_a=leaf_a,
        leaf_b=leaf_b,
        frame=frame,
        totals=pd.DataFrame(
            {
                "a": totals(rest_a, turns_a, prompts_a),
                "b": totals(rest_b, turns_b, prompts_b),
            }
        ),
        final_a=final_a,
        final_b=final_b,
        diff=diff,
        turns=_turns_frame(prompts_a, prompts_b),
        file_a=Path(session_a.file).name,
        file_b=Path(session_b.file).name,
    )
