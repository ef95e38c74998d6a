"""The widget's Python side: compact columns, answers to requests, live appends, export."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pytest
from conftest import header, msg, write_lines
from widget_support import shown_by_filter

import prime_nb
import sessiongen
from prime_nb.widget import SessionWidget, export_html, read_export, show
from prime_nb.widget._data import (
    ASSISTANT,
    COLUMN_NAMES,
    COMPACTION,
    FLAG_ERROR,
    FLAG_THINKING,
    FLAG_TOOL_CALLS,
    FLAG_TOOL_ONLY,
    LABEL,
    OTHER,
    TOOL_RESULT,
    USER,
    SessionData,
)
from prime_nb.widget._page import inline_script, json_for_html


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = sessiongen.synthetic_session(tmp_path_factory.mktemp("wd") / "s.jsonl")
    return prime_nb.load(path)


def cols(tree: dict[str, Any]) -> dict[str, np.ndarray]:
    return {
        "parent": np.frombuffer(tree["parent"], "<i4"),
        "kind": np.frombuffer(tree["kind"], np.uint8),
        "flags": np.frombuffer(tree["flags"], np.uint8),
        "tokens": np.frombuffer(tree["tokens"], "<u4"),
        "output": np.frombuffer(tree["output"], "<u4"),
        "time": np.frombuffer(tree["time"], "<f4"),
    }


def test_columns_match_the_entries_table(synthetic: Any) -> None:
    e = synthetic.entries
    data = SessionData(synthetic)
    tree = data.tree()
    n = len(e)
    assert tree["n"] == n
    assert tree["ids"] == "".join(e.index).encode()
    c = cols(tree)
    assert all(len(v) == n for v in c.values())
    ids = list(e.index)
    for i, parent in enumerate(e["parent_id"]):
        assert c["parent"][i] == (ids.index(parent) if isinstance(parent, str) else -1)
    roles = e["role"].astype(object)
    types = e["type"].astype(object)
    assert (c["kind"][(types == "message") & (roles == "user")] == USER).all()
    assert (c["kind"][(types == "message") & (roles == "toolResult")] == TOOL_RESULT).all()
    assert (c["kind"][types == "compaction"] == COMPACTION).all()
    assert (c["kind"][types == "label"] == LABEL).all()
    assert (c["kind"][types == "future_thing"] == OTHER).all()
    assistant = c["kind"] == ASSISTANT
    assert (c["tokens"][assistant] == e["total_tokens"][assistant].fillna(0).to_numpy()).all()
    assert (c["tokens"][~assistant] == 0).all()
    # Output tokens, a column of its own (summed on folded rows and boxes).
    assert (c["output"] == e["output_tokens"].fillna(0).to_numpy()).all()
    assert c["output"][assistant].sum() > 0
    errors = (c["flags"] & FLAG_ERROR) > 0
    assert errors.any()
    assert set(np.flatnonzero(errors)) == set(
        np.flatnonzero((e["is_error"] & (roles == "toolResult")) | stop_error(e)).tolist()
    )
    calls = (c["flags"] & FLAG_TOOL_CALLS) > 0
    assert (calls == (e["n_tool_calls"] > 0).to_numpy()).all()
    tool_only = (c["flags"] & FLAG_TOOL_ONLY) > 0
    assert (tool_only == (calls & ~e["has_text"].to_numpy() & assistant)).all()
    assert ((c["flags"] & FLAG_THINKING) > 0).sum() == e["has_thinking"].sum()
    assert c["time"][0] == 0
    assert (np.diff(c["time"][e["on_active_path"].to_numpy()]) >= -1).all()
    assert tree["active_leaf"] == n - 1
    assert tree["name"] == synthetic.name
    assert tree["cwd"] == synthetic.header["cwd"]
    labels = {data.ids[i]: text for i, text in tree["labels"]}
    assert labels == {k: v[:80] for k, v in synthetic.labels.items()}
    comp = synthetic.compactions
    assert [[data.ids[i], data.ids[k], t] for i, k, t in tree["compactions"]] == [
        [cid, row["first_kept_entry_id"], row["tokens_before"]] for cid, row in comp.iterrows()
    ]


def stop_error(e: Any) -> Any:
    return e["stop_reason"].astype(object).isin(["error", "aborted"]) & (e["role"] == "assistant")


def test_up_front_bytes_per_entry(synthetic: Any) -> None:
    tree = SessionData(synthetic).tree()
    binary = sum(len(v) for v in tree.values() if isinstance(v, bytes))
    rest = len(orjson.dumps({k: v for k, v in tree.items() if not isinstance(v, bytes)}))
    assert binary == 26 * tree["n"]
    assert (binary + rest) / tree["n"] <= 40


def test_ids_that_are_not_eight_chars_travel_as_a_list(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "odd.jsonl",
        [
            header(),
            msg("root", None, "user", "hi"),
            msg("a-much-longer-id", "root", "assistant", "hello", minute=1),
        ],
    )
    tree = SessionData(prime_nb.load(path)).tree()
    assert tree["ids"] is None
    assert tree["id_list"] == ["root", "a-much-longer-id"]
    assert list(cols(tree)["parent"]) == [-1, 0]


def test_entries_answers_many_rows_as_entry_does_one(synthetic: Any) -> None:
    """The Transcript's batch: each row's answer is the "entry" answer, read in one pass."""
    data = SessionData(synthetic)
    calls = synthetic.tool_calls.dropna(subset=["result_id"])
    rows = [data.row_of[calls["assistant_id"].iloc[0]], 0, data.row_of[calls["result_id"].iloc[0]]]
    rows += [data.n - 1, 10**6, -1]
    got = data.answer({"what": "entries", "indices": rows})["entries"]
    assert got[:4] == [data.answer({"what": "entry", "index": i}) for i in rows[:4]]
    assert got[4] == {"index": 10**6, "error": "no entry at index 1000000"}
    assert got[5]["error"] == "no entry at index -1"
    reads: list[int] = []
    read_entries = synthetic.read_entries
    synthetic.read_entries = lambda ids: reads.append(len(ids)) or read_entries(ids)
    try:
        data.answer({"what": "entries", "indices": rows[:4]})
    finally:
        del synthetic.read_entries
    assert len(reads) == 1 and reads[0] >= 4  # the rows and their calls' results, at once
    with pytest.raises(ValueError, match="entries needs a list of indices"):
        data.answer({"what": "entries", "indices": 3})


def test_answers(synthetic: Any) -> None:
    data = SessionData(synthetic)
    e = synthetic.entries
    calls = synthetic.tool_calls.dropna(subset=["result_id"])
    call = calls.iloc[0]
    a = data.row_of[call["assistant_id"]]
    detail = data.answer({"what": "entry", "index": a})
    assert detail["id"] == call["assistant_id"]
    assert detail["entry"] == synthetic.entry(call["assistant_id"])
    assert detail["kind"] == ASSISTANT
    paired = detail["tool_results"][call["call_id"]]
    assert paired["id"] == call["result_id"] and paired["index"] == data.row_of[call["result_id"]]
    assert detail["usage"]["totalTokens"] == e["total_tokens"].iloc[a]
    result = data.answer({"what": "entry", "index": data.row_of[call["result_id"]]})
    assert result["tool_call"]["assistant_index"] == a
    assert result["tool_call"]["name"] == call["name"]
    json.dumps(detail)  # plain JSON, ready for the comm

    preview = data.answer({"what": "preview", "index": a})
    assert preview["role"] == "assistant" and preview["tokens"] == e["total_tokens"].iloc[a]
    assert preview["first_line"] and "\n" not in preview["first_line"]

    lines = data.answer({"what": "lines", "indices": [a, 0, 10**6]})["lines"]
    assert lines == [preview["first_line"], data.preview(0)["first_line"], ""]

    label_row = data.row_of[next(iter(synthetic.labels))]
    label_words = next(iter(synthetic.labels.values())).split()[:2]
    assert (
        label_row
        in data.answer({"what": "search", "query": " ".join(label_words).upper()})["indices"]
    )
    assert data.search("   ") == []

    leaf = len(e) - 1
    ctx = data.answer({"what": "context", "index": leaf})
    ref = synthetic.context(synthetic.leaf_id)
    assert len(ctx["messages"]) == len(ref)
    assert [m["entry_id"] for m in ctx["messages"]] == [m.get("entry_id") for m in ref]
    assert ctx["model"] == ref.model and ctx["thinking_level"] == ref.thinking_level
    assert all(m["tokens"] >= 0 and len(m["text"]) <= 240 for m in ctx["messages"])

    with pytest.raises(ValueError, match=f"^no entry at index {len(e)}$"):
        data.answer({"what": "entry", "index": len(e)})
    with pytest.raises(ValueError, match=r"^unknown request 'nope'$"):
        data.answer({"what": "nope", "index": 0})


def test_search_reads_full_text(tmp_path: Path) -> None:
    long_text = "start " + "filler " * 200 + "needle-at-the-end"
    path = write_lines(
        tmp_path / "s.jsonl",
        [header(), msg("aaaaaaaa", None, "user", long_text), msg("bbbbbbbb", "aaaaaaaa", "user")],
    )
    data = SessionData(prime_nb.load(path))
    assert data.search("NEEDLE-at-the-END start") == [0]


class Sent:
    """Captures what a widget sends to the front end."""

    def __init__(self, widget: SessionWidget) -> None:
        self.messages: list[tuple[dict[str, Any], list[bytes]]] = []

        def send(content: dict[str, Any], buffers: list[bytes] | None = None) -> None:
            self.messages.append((content, list(buffers or [])))

        widget.send = send  # type: ignore[method-assign]


def test_widget_answers_requests_and_selects(synthetic: Any) -> None:
    w = SessionWidget(synthetic)
    sent = Sent(w)
    w._on_msg(w, {"type": "request", "rid": "r1", "what": "preview", "index": 0}, [])
    w._on_msg(w, {"type": "request", "rid": "r2", "what": "entry", "index": 10**6}, [])
    (ok, _), (bad, _) = sent.messages
    assert ok["rid"] == "r1" and ok["data"]["type"] == synthetic.entries["type"].iloc[0]
    assert bad["rid"] == "r2" and "ValueError" in bad["error"]

    seen: list[str | None] = []
    w.on_select(seen.append)
    w.selected_id = synthetic.leaf_id
    w.selected_id = None
    assert seen == [synthetic.leaf_id, None]
    with pytest.raises(Exception, match="no entry"):
        w.selected_id = "zzzzzzzz"
    assert w.filter == "default" and w.view == "tree"
    w.filter = "user-only"
    with pytest.raises(
        Exception, match=r"The 'filter' trait of a SessionWidget instance expected any of .*'bogus'"
    ):  # traitlets raises TraitError
        w.filter = "bogus"


def test_refresh_sends_only_new_rows(tmp_path: Path) -> None:
    path = sessiongen.synthetic_session(tmp_path / "live.jsonl")
    session = prime_nb.load(path)
    w = show(session)
    sent = Sent(w)
    n = len(session.entries)
    assert w.refresh() == 0 and sent.messages == []
    leaf = session.leaf_id
    with open(path, "ab") as fh:
        fh.write(orjson.dumps(msg("feed0001", leaf, "user", "more")) + b"\n")
        fh.write(orjson.dumps(msg("feed0002", "feed0001", "assistant", "ok", minute=59)) + b"\n")
        label = {
            "type": "label",
            "id": "feed0003",
            "parentId": "feed0002",
            "timestamp": "2026-01-05T11:00:00.000Z",
            "targetId": "feed0001",
            "label": "new",
        }
        fh.write(orjson.dumps(label) + b"\n")
    assert w.refresh() == 3
    ((content, buffers),) = sent.messages
    assert content["type"] == "append" and content["n"] == 3
    assert content["columns"] == list(COLUMN_NAMES)
    assert buffers[0] == b"feed0001feed0002feed0003"
    assert list(np.frombuffer(buffers[1], "<i4")) == [n - 1, n, n + 1]
    assert content["active_leaf"] == n + 2
    assert [n, "new"] in content["labels"]
    # a new page (full state request) gets every row
    state = w.get_state()
    assert state["_tree"]["n"] == n + 3
    assert w.get_state("filter") == {"filter": "default"}


def test_refresh_after_rewrite_resends_everything(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "r.jsonl", [header(), msg("aaaaaaaa", None, "user", "a")])
    w = SessionWidget(path)
    sent = Sent(w)
    replaced = tmp_path / "r2.jsonl"
    write_lines(replaced, [header(), msg("bbbbbbbb", None, "user", "b")])
    replaced.replace(path)
    w.refresh()
    assert sent.messages == []
    assert w._tree["ids"] == b"bbbbbbbb"


def test_watch_follows_appends(tmp_path: Path) -> None:
    path = sessiongen.synthetic_session(tmp_path / "w.jsonl")
    w = show(path, watch=True)
    sent = Sent(w)
    assert w._watcher is not None
    w._watcher.interval = 0.05
    with open(path, "ab") as fh:
        fh.write(orjson.dumps(msg("feed0009", prime_nb.load(path).leaf_id, "user", "x")) + b"\n")
    import time

    deadline = time.monotonic() + 20
    while not sent.messages and time.monotonic() < deadline:
        time.sleep(0.05)
    w.unwatch()
    assert sent.messages and sent.messages[0][0]["n"] == 1


def test_export_html_is_one_safe_file(synthetic: Any, tmp_path: Path) -> None:
    out = export_html(synthetic, tmp_path / "e.html", filter="all")
    text = out.read_text("utf-8")
    data = text.split('<script type="application/json" id="pnb-data">', 1)[1].split("</script>")[0]
    assert "<" not in data
    payload = read_export(out)
    n = len(synthetic.entries)
    assert payload["tree"]["n"] == n and len(payload["entries"]) == n
    assert len(payload["lines"]) == n and len(payload["texts"]) == n
    assert payload["state"] == {"filter": "all"}
    # the active leaf's context is always carried
    active = synthetic.entries.index.get_loc(synthetic.leaf_id)
    assert str(active) in payload["contexts"]
    # what the live widget answers from
    live = SessionData(synthetic)
    assert payload["entries"] == json.loads(
        json.dumps(synthetic.read_entries(live.ids), default=str)
    )
    assert payload["texts"] == live.search_texts()
    assert set(shown_by_filter(synthetic, "all")) <= set(synthetic.entries.index)


def test_export_is_smaller_than_the_session(tmp_path: Path) -> None:
    from sessiongen import large_session_entries, write_jsonl

    path = write_jsonl(tmp_path / "big.jsonl", large_session_entries(3_000))
    out = export_html(path, tmp_path / "big.html", progress=False)
    assert out.stat().st_size < path.stat().st_size
    assert len(read_export(out)["entries"]) == len(prime_nb.load(path).entries)


def test_read_export_refuses_other_pages(tmp_path: Path) -> None:
    page = tmp_path / "x.html"
    page.write_text("<html></html>")
    with pytest.raises(ValueError, match="not a page written by"):
        read_export(page)


def test_inline_script_escapes_closing_tags() -> None:
    code = inline_script('var a="</script>",b="</SCRIPT";export{a as default,b as other};', "go()")
    assert "</script" not in code.lower()
    assert code.startswith('(function(){"use strict";')
    assert code.endswith("const __pnb={default:a,other:b};\ngo()\n}).call(undefined);")
    with pytest.raises(
        ValueError, match=r"^the widget bundle holds '<script' and cannot be inlined safely$"
    ):
        inline_script('var a="<script>";export{a as default};', "")
    assert json_for_html({"x": "</script><!--&"}) == (
        '{"x":"\\u003c/script\\u003e\\u003c!--\\u0026"}'
    )


def test_context_panel_counts_tokens_as_the_analysis_does() -> None:
    """The panel's per-message tokens are ``analysis.context_frame``'s (the agent's
    heuristic). A second estimator once counted tool arguments in UTF-8 bytes, not in the
    agent's JSON characters: this fixture's non-ASCII edits told the two apart."""
    from prime_nb import analysis

    session = prime_nb.load(Path(__file__).parents[1] / "fixtures" / "before-compaction.jsonl")
    data = SessionData(session)
    for leaf in session.leaves.index:
        panel = [m["tokens"] for m in data.context(data.row_of[leaf])["messages"]]
        assert panel == list(analysis.context_frame(session, leaf)["tokens_est"])
