"""compare() of two runs, aligned turn by turn: two sessions, two (session, leaf) pairs, or
two leaves of one session; and its HTML, which must show session text and never run it."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from conftest import header, msg, write_lines
from schema_checks import mismatches
from session_matrix import CASES, write_case

import prime_nb
from prime_nb.analysis import compare

HOSTILE = '<script>alert(1)</script><img src=x onerror="alert(2)">'


def _run(path: Path, turns: list[tuple[str, list[tuple[str, dict[str, Any]]]]]) -> Path:
    """A linear session: per turn a prompt, one assistant message with its tool calls,
    their results (the first result of a ``fail`` tool is an error), and an answer."""
    lines: list[dict[str, Any]] = [header(cwd="/proj")]
    parent: str | None = None
    for t, (prompt, calls) in enumerate(turns):
        lines.append(msg(f"u{t}", parent, "user", prompt, t))
        blocks = [
            {"type": "toolCall", "id": f"c{t}-{k}", "name": name, "arguments": arguments}
            for k, (name, arguments) in enumerate(calls)
        ]
        lines.append(msg(f"a{t}", f"u{t}", "assistant", "", t, content=blocks))
        parent = f"a{t}"
        for k, (name, _) in enumerate(calls):
            lines.append(
                msg(
                    f"r{t}-{k}",
                    parent,
                    "toolResult",
                    "out",
                    t,
                    toolCallId=f"c{t}-{k}",
                    toolName=name,
                    isError=name == "fail",
                )
            )
            parent = f"r{t}-{k}"
        lines.append(msg(f"f{t}", parent, "assistant", f"answer {t}", t))
        parent = f"f{t}"
    return write_lines(path, lines)


READ_A = ("read", {"path": "/proj/src/a.py"})
READ_B = ("read", {"path": "/proj/src/b.py"})
TEST = ("bash", {"command": "make  test"})
BASE = [("fix the bug", [READ_A]), ("run the tests", [TEST]), ("ship it", [READ_B])]


def _statuses(result: prime_nb.analysis.Comparison) -> list[str]:
    return result.turns["status"].tolist()


def test_two_sessions_of_one_task_align_turn_by_turn(tmp_path: Path) -> None:
    a = _run(tmp_path / "a.jsonl", BASE)
    same = compare(a, _run(tmp_path / "same.jsonl", BASE))
    assert _statuses(same) == ["same"] * 3
    assert mismatches("compare_turns", same.turns) == []
    assert same.turns["a_prompt"].tolist() == ["fix the bug", "run the tests", "ship it"]
    assert same.turns["b_tools"].tolist() == ["read", "bash", "read"]
    assert repr(same).endswith("(b): 3 aligned turns (3 same)")
    # one tool call reads another file: exactly that turn changed
    other = [BASE[0], BASE[1], ("ship it", [("read", {"path": "/proj/src/c.py"})])]
    assert _statuses(compare(a, _run(tmp_path / "c.jsonl", other))) == ["same", "same", "changed"]
    # the same command spelled with other spaces, the same file by a relative path: same
    spelled = [
        ("fix the bug", [("read", {"path": "src/a.py"})]),
        ("run the tests", [("bash", {"command": "make test"})]),
        BASE[2],
    ]
    assert _statuses(compare(a, _run(tmp_path / "s.jsonl", spelled))) == ["same"] * 3


def test_an_extra_turn_stands_alone_on_its_side(tmp_path: Path) -> None:
    a = _run(tmp_path / "a.jsonl", BASE)
    longer = _run(tmp_path / "b.jsonl", [BASE[0], ("also lint", [TEST]), *BASE[1:]])
    result = compare(a, longer)
    assert _statuses(result) == ["same", "only_b", "same", "same"]
    assert result.turns["b_prompt"].tolist()[1] == "also lint"
    assert result.turns["a_prompt"].isna().tolist() == [False, True, False, False]
    assert _statuses(compare(longer, a)) == ["same", "only_a", "same", "same"]


def test_where_prompts_differ_the_tool_calls_align(tmp_path: Path) -> None:
    """A retry with a reworded prompt lines up with the turn whose calls it repeats."""
    a = _run(tmp_path / "a.jsonl", [("look at a", [READ_A]), ("look at b", [READ_B])])
    b = _run(tmp_path / "b.jsonl", [("please open b", [READ_B])])
    result = compare(a, b)
    assert _statuses(result) == ["only_a", "changed"]
    assert result.turns["b_prompt"].tolist()[1] == "please open b"


def test_totals_count_tokens_errors_and_files(tmp_path: Path) -> None:
    a = _run(tmp_path / "a.jsonl", BASE)
    b = _run(tmp_path / "b.jsonl", [*BASE, ("again", [("fail", {"path": "/proj/x.py"})])])
    result = compare(a, b)
    assert result.totals.loc["errors"].tolist() == [0, 1]
    assert result.turns["b_errors"].tolist() == [0, 0, 0, 1]
    assert result.totals.loc["tokens"].tolist() == [6 * 15, 8 * 15]
    assert result.totals.loc["files_touched", "b"] == ["src/a.py", "src/b.py", "x.py"]
    assert result.ancestor_id is None and result.file_b == "b.jsonl"


def test_totals_count_each_tool_call_once_whatever_its_name(tmp_path: Path) -> None:
    """A tool's name is untrusted text: one with a comma in it, or an empty one, is still
    one call, in the totals as in the turns table (the totals once re-split the joined
    names, and counted 3 calls here)."""
    odd = [("odd names", [("grep, then read", {"pattern": "x"}), ("", {"path": "/proj/y.py"})])]
    result = compare(_run(tmp_path / "a.jsonl", BASE), _run(tmp_path / "b.jsonl", odd))
    assert result.turns["b_tool_calls"].sum() == 2
    assert result.totals.loc["tool_calls"].tolist() == [3, 2]


def test_pairs_pick_a_leaf_and_the_old_call_still_works(tmp_path: Path) -> None:
    a = prime_nb.load(_run(tmp_path / "a.jsonl", BASE))
    early = compare((a, "f0"), (a, None))
    assert _statuses(early) == ["same", "only_b", "only_b"]
    assert early.leaf_a == "f0" and early.leaf_b == "f2"
    branches = compare(a, "f0", "f2")  # two leaves of one session, from their ancestor
    assert branches.ancestor_id == "f0" and _statuses(branches) == ["only_b", "only_b"]
    with pytest.raises(TypeError, match=r"give the second run or the second leaf"):
        compare(a, "f0")
    with pytest.raises(TypeError, match=r"takes a side as .* pair; got a tuple of 3"):
        compare((a, "f0", "f1"), a)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", CASES)
def test_every_session_compared_with_itself_is_all_same(name: str, tmp_path: Path) -> None:
    path = write_case(name, tmp_path)
    session = prime_nb.load(path)
    result = compare(session, path)
    assert mismatches("compare_turns", result.turns) == []
    assert set(_statuses(result)) <= {"same"}
    roles = session.entries.loc[session.path(), "role"].tolist()
    before = roles[: roles.index("user")] if "user" in roles else roles
    acted = any(role in ("assistant", "toolResult") for role in before)
    assert len(result.turns) == roles.count("user") + acted  # + a turn before any prompt


def _change_one_call(path: Path, out: Path) -> str:
    """A copy of ``path`` whose middle tool call on the active path names another file
    (or, without a file, another tool); returns the assistant entry changed."""
    session = prime_nb.load(path)
    on_path = set(session.path())
    calls = session.tool_calls[session.tool_calls["assistant_id"].isin(on_path)]
    call = calls.iloc[len(calls) // 2]
    lines = path.read_text("utf-8").splitlines()
    for n, line in enumerate(lines):
        obj = json.loads(line)
        if obj.get("id") != call["assistant_id"]:
            continue
        for block in obj["message"]["content"]:
            if block.get("type") == "toolCall" and block.get("id") == call["call_id"]:
                if isinstance(block.get("arguments"), dict) and "path" in block["arguments"]:
                    block["arguments"]["path"] += ".other"
                else:
                    block["name"] = f"{block['name']}_other"
        lines[n] = json.dumps(obj)
    out.write_text("\n".join(lines) + "\n", "utf-8")
    return str(call["assistant_id"])


@pytest.mark.parametrize(
    "name",
    ["synthetic-v3-prime-forks0", "synthetic-v3-prime-forks5", "comp-on2-off2-forks6-v3-prime"],
)
def test_one_changed_call_is_one_changed_turn(name: str, tmp_path: Path) -> None:
    path = write_case(name, tmp_path)
    changed = _change_one_call(path, tmp_path / "changed.jsonl")
    result = compare(path, tmp_path / "changed.jsonl")
    statuses = _statuses(result)
    assert statuses.count("changed") == 1 and set(statuses) == {"same", "changed"}
    row = result.turns[result.turns["status"] == "changed"].iloc[0]
    session = prime_nb.load(path)
    turn_of = session.path()[: session.path().index(changed) + 1]
    prompts = [i for i in turn_of if session.entries.at[i, "role"] == "user"]
    assert row["a_prompt_id"] == prompts[-1]


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attributes: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes.update(name for name, _ in attrs)


def _tags(page: str) -> _Tags:
    parser = _Tags()
    parser.feed(page)
    return parser


def test_the_html_shows_session_text_and_runs_none_of_it(tmp_path: Path) -> None:
    a = _run(tmp_path / "a.jsonl", [(HOSTILE, [("read", {"path": HOSTILE})])])
    b = _run(tmp_path / f"{HOSTILE[:8]}.jsonl", [(HOSTILE + "!", [TEST])])
    result = compare(a, b)
    page = result.to_html(tmp_path / "page.html").read_text("utf-8")
    for html in (result._repr_html_(), page):
        parsed = _tags(html)
        assert "script" not in parsed.tags and "img" not in parsed.tags
        assert not {a for a in parsed.attributes if a.startswith("on") or a == "src"}
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    allowed = {
        "html",
        "head",
        "meta",
        "title",
        "style",
        "body",
        "p",
        "code",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "b",
        "br",
        "i",
        "h4",
        "pre",
    }
    assert _tags(page).tags <= allowed
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    assert csp is not None and "default-src 'none'" in csp.group(1)
    assert "script-src" not in csp.group(1)
