"""Small synthetic sessions that hold every entry type, for every version and dialect.

Why: the loader, the tree widgets and the writers must be exercised on files that hold
every entry type, every version (1-3) and both dialects ("prime", as the agent writes
them, and "spec", as the project's specification names things), without shipping private
sessions. Deterministic for a seed.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ._core import Builder, Converter, write_jsonl
from ._large import SMALL, Story, Texts

SAMPLE_CWD = "/home/dev/projects/sample-app"
MIN_TURNS = 12


def synthetic_entries(
    *,
    version: int = 3,
    dialect: str = "prime",
    seed: int = 0,
    turns: int = 30,
    forks: int = 3,
) -> list[dict[str, Any]]:
    """Header + entries exactly as on disk for ``version`` (1-3) and ``dialect``.

    Versions 2/3 hold every entry type of the format: two compactions on the active path,
    a rewind with a branch summary (fork 1), a side branch with its own compaction (fork 2),
    plain side branches (further forks), labels set/changed/cleared, two session names,
    a failing tool call, an assistant error, an image, thinking, a model change and one
    unknown entry type. Version 1 is linear (no ids, ``firstKeptEntryIndex``) and holds
    only what v1 knew: messages (incl. ``hookMessage``), model/thinking changes, compactions.
    """
    if turns < MIN_TURNS:
        raise ValueError(f"turns must be at least {MIN_TURNS} to fit every entry type")
    if forks < 0:
        raise ValueError("forks must be >= 0")
    rng = random.Random(seed)
    b = Builder(rng, cwd=SAMPLE_CWD)
    conv = Converter(version, dialect, b.new_id)  # validates version and dialect
    s = Story(b, Texts(rng, SMALL), cwd=SAMPLE_CWD)
    tree = version > 1
    start_model, start_level = b.model, "medium"
    if tree:
        s.on_main(lambda: b.model_change(start_model))
        s.on_main(lambda: b.thinking_level(start_level))
        s.on_main(lambda: b.session_state("active"))
        s.on_main(lambda: b.git_state("main", False))
        s.on_main(lambda: b.session_info("Sample app: CSV export fixes"))
    else:
        b.thinking = start_level
    compact_at = {round(turns * 0.4), round(turns * 0.75)}
    mid = turns // 2
    fork_at: dict[int, list[int]] = {}
    for i in range(forks if tree else 0):
        fork_at.setdefault(3 + (i + 1) * (turns - 5) // (forks + 1), []).append(i)
    marks: dict[str, str] = {}
    for t in range(turns):
        if t in compact_at:
            s.compact()
        if t == mid:
            s.on_main(lambda: b.model_change("claude-opus-4-5"))
            s.on_main(lambda: b.thinking_level("high"))
        if t == 2:
            s.on_main(lambda: b.bash_execution("git status --short", " M src/app/loader.py\n", 0))
        if t == 3:
            s.on_main(
                lambda: b.custom_role(
                    "git-guard",
                    "Reminder: 2 files have uncommitted changes.",
                    details={"files": ["src/app/loader.py", "tests/test_loader.py"]},
                )
            )
        end = s.main_turn(
            image=t == 0,
            fail=t == 1,
            error=t == mid,
            subagent=tree and t == mid + 1,
            thinking=True if t == 0 else None,
        )
        if tree:
            _specials(s, t, turns, end, marks)
        for kind in fork_at.get(t, []):
            _fork(s, kind)
    header = conv.header(b.header, provider="anthropic", model=start_model, thinking=start_level)
    return [header, *(x for e in b.out for x in conv.convert(e))]


def _specials(s: Story, t: int, turns: int, end: str, marks: dict[str, str]) -> None:
    """The bookkeeping entry types of v2/3, placed on the main path after turn ``t``.

    ``marks`` remembers label targets between calls (set, then changed or cleared).
    """
    b = s.b
    if t == 0:
        s.on_main(
            lambda: b.custom("todo", {"items": ["fix export", "add regression test"], "done": []})
        )
    elif t == 1:
        marks["bug"] = next(
            e["id"]
            for e in reversed(b.out)
            if e["type"] == "message" and e["message"].get("isError")
        )
        s.on_main(lambda: b.label(marks["bug"], "bug found"))
    elif t == 2:
        s.on_main(
            lambda: b.custom_message(
                "test-watcher",
                "pytest: 57 passed, 1 failed",
                details={"failed": ["tests/test_cli.py"]},
            )
        )
    elif t == 4:
        s.on_main(lambda: b.service_tier("priority"))
    elif t == turns // 2 + 1:
        s.child_usage()
    elif t == round(turns * 0.6):
        s.on_main(lambda: b.label(marks["bug"], "bug found: header row read twice"))
        s.on_main(lambda: b.agent_status("Fixing the CSV export", "in_progress", 40))
        s.on_main(lambda: b.add("future_thing", {"payload": {"note": "from a newer agent"}}))
    elif t == round(turns * 0.8):
        marks["wip"] = end
        s.on_main(lambda: b.label(end, "wip"))
    elif t == round(turns * 0.9):
        s.on_main(lambda: b.label(marks["wip"], None))
        s.on_main(lambda: b.session_info("Sample app: CSV export + CLI errors"))
        s.on_main(lambda: b.label(end, "good fix"))


def _fork(s: Story, kind: int) -> None:
    """Fork 0: rewind + branch summary; 1: side branch with a compaction; else: side."""
    rng = s.rng
    if kind == 0:
        s.rewind(with_summary=True)
    elif kind == 1:
        s.side(rng.choice(s.safe), 2, compaction=True)
    else:
        end = s.side(rng.choice([*s.old_safe, *s.safe]), rng.randint(1, 2))
        if kind == 2:
            s.on_main(lambda: s.b.label(end, "dead end"))


def synthetic_session(path: str | Path, **kwargs: Any) -> Path:
    """Write :func:`synthetic_entries` (same keyword arguments) to ``path``; return it."""
    return write_jsonl(path, synthetic_entries(**kwargs))
