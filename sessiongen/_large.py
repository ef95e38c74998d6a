"""Plausible coding-agent conversations, from a handful of entries to 100 MB, streamed.

Why: the widgets and loaders must be measured on sessions shaped like real ones (branchy,
compacted, tool-heavy, with a few huge lines), and the small synthetic sessions use the
same turn machinery so both exercise the same shapes.

:class:`Story` knows the active ("main") path since the last compaction, which is all it
needs to place forks, rewinds and compactions correctly while entries are streamed away.
"""

from __future__ import annotations

import base64
import random
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ._core import (
    Builder,
    Converter,
    Entry,
    make_png,
    tiny_png,
    tool_call_id,
    usage,
)


@dataclass(frozen=True)
class Scale:
    """Character ranges for generated texts (small for unit tests, large for benchmarks)."""

    user: tuple[int, int]
    thinking: tuple[int, int]
    text: tuple[int, int]
    tool: tuple[int, int]
    big: tuple[int, int]
    big_p: float
    summary: tuple[int, int]
    noise_png: int  # side of the random PNG for pasted screenshots, 0: use the tiny one


SMALL = Scale((20, 160), (60, 360), (60, 420), (60, 500), (1_200, 2_400), 0.04, (300, 900), 0)
LARGE = Scale(
    (20, 300), (200, 2_500), (150, 2_000), (200, 8_000), (20_000, 60_000), 0.07, (2_000, 6_000), 72
)

USER_PROMPTS = (
    "The CSV export drops the last row when the file has no trailing newline. Can you fix it?",
    "Run the test suite and tell me what fails.",
    "Add type hints to the loader module and make mypy happy.",
    "Why is `parse_dates` so slow on big files?",
    "Refactor the retry logic into a small helper, keep the behaviour identical.",
    "Please add a regression test for the empty-header case.",
    "continue",
    "ok, go on",
    "looks good. commit it with a short message",
    "Can you explain what `merge_rows` does and where it is called from?",
    "Rename `cfg` to `config` everywhere in src/.",
    "The CLI prints a traceback for a missing file; make it a friendly error instead.",
    "hmm, that broke the windows path handling. revert that part",
    "Write a short section for the README about the new --strict flag.",
    "Is there dead code in utils.py? Remove it if so.",
    "Check the coverage report and add tests for the uncovered branches.",
    "Make the logger quieter by default, debug only with -v.",
    "What's left on the todo list?",
)
SENTENCES = (
    "Let me look at how the loader handles this case.",
    "The failure comes from the header row being consumed twice.",
    "I'll check the call sites before changing the signature.",
    "The tests pass locally, so this is probably an ordering issue.",
    "This function is only used in two places, both in the CLI.",
    "I need to keep the public API unchanged for the 1.x releases.",
    "Reading the file in chunks keeps memory flat for large inputs.",
    "The retry loop swallows the original exception, which hides the real error.",
    "A small helper makes the intent clearer and is easy to test.",
    "The edge case is an empty file with only a header line.",
    "I'll run the linter and the type checker after the edit.",
    "mypy complains because the function can return None on the early exit.",
    "That matches the behaviour described in the issue.",
    "The regression test fails without the fix and passes with it.",
    "Windows paths need the raw string here, otherwise the backslashes are escapes.",
    "I'll keep the change minimal and leave the refactor for a follow-up.",
    "The benchmark shows most of the time is spent in the date parser.",
    "Caching the compiled pattern removes the hot spot.",
)
CODE_BLOCKS = (
    'def load_rows(path: Path, *, delimiter: str = ",") -> list[dict[str, str]]:\n'
    '    """Read a CSV file into a list of dicts."""\n'
    '    with path.open(newline="", encoding="utf-8") as fh:\n'
    "        reader = csv.DictReader(fh, delimiter=delimiter)\n"
    "        return [dict(row) for row in reader]\n",
    "class RetryPolicy:\n"
    "    def __init__(self, attempts: int = 3, backoff: float = 0.5) -> None:\n"
    "        self.attempts = attempts\n"
    "        self.backoff = backoff\n\n"
    "    def delays(self) -> Iterator[float]:\n"
    "        for n in range(self.attempts):\n"
    "            yield self.backoff * 2**n\n",
    'def parse_dates(values: Iterable[str], fmt: str = "%Y-%m-%d") -> list[date]:\n'
    "    out = []\n"
    "    for value in values:\n"
    "        value = value.strip()\n"
    "        if not value:\n"
    "            out.append(None)\n"
    "            continue\n"
    "        out.append(datetime.strptime(value, fmt).date())\n"
    "    return out\n",
    '@pytest.mark.parametrize("text", ["", "a\\n", "a,b\\n1,2"])\n'
    "def test_roundtrip(tmp_path: Path, text: str) -> None:\n"
    '    src = tmp_path / "in.csv"\n'
    "    src.write_text(text)\n"
    "    assert dump_rows(load_rows(src)) == text\n",
    "def main(argv: list[str] | None = None) -> int:\n"
    "    args = build_parser().parse_args(argv)\n"
    "    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING)\n"
    "    try:\n"
    "        rows = load_rows(Path(args.input))\n"
    "    except FileNotFoundError:\n"
    '        print(f"error: no such file: {args.input}", file=sys.stderr)\n'
    "        return 2\n"
    "    write_rows(sys.stdout, rows)\n"
    "    return 0\n",
    "def merge_rows(left: list[Row], right: list[Row], key: str) -> list[Row]:\n"
    "    index = {row[key]: row for row in right}\n"
    "    merged = []\n"
    "    for row in left:\n"
    "        other = index.get(row[key], {})\n"
    "        merged.append({**row, **other})\n"
    "    return merged\n",
    "export function formatDuration(ms: number): string {\n"
    "  if (ms < 1000) return `${ms}ms`;\n"
    "  const s = Math.floor(ms / 1000);\n"
    "  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${s % 60}s`;\n"
    "}\n",
)
OUTPUT_LINES = (
    "tests/test_loader.py::test_roundtrip[] PASSED",
    "tests/test_loader.py::test_roundtrip[a\\n] PASSED",
    "tests/test_cli.py::test_missing_file FAILED",
    "tests/test_merge.py::test_merge_keeps_left_order PASSED",
    'src/app/loader.py:42: error: Incompatible return value type (got "None", '
    'expected "list[dict[str, str]]")  [return-value]',
    "src/app/cli.py:17:1: F401 [*] `os` imported but unused",
    "Found 2 errors in 1 file (checked 14 source files)",
    "E       AssertionError: assert 'a,b\\n1,2' == 'a,b\\n1,2\\n'",
    "=========================== short test summary info ===========================",
    "==================== 1 failed, 57 passed in 1.92s ====================",
    " M src/app/loader.py",
    "?? tests/test_regressions.py",
    " src/app/loader.py | 14 ++++++++------",
    "All checks passed!",
)
PATHS = (
    "src/app/loader.py",
    "src/app/cli.py",
    "src/app/merge.py",
    "src/app/utils.py",
    "src/app/dates.py",
    "tests/test_loader.py",
    "tests/test_cli.py",
    "tests/test_merge.py",
    "README.md",
    "pyproject.toml",
)
COMMANDS = (
    "python -m pytest -q",
    "python -m pytest -q tests/test_loader.py -x",
    "git status --short",
    "ruff check src tests",
    "python -m mypy src",
    "git diff --stat",
    "ls -la src/app",
    "git log --oneline -5",
)
ERRORS = (
    '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    "Connection error.",
    "terminated",
    '500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}',
)
LABELS = (
    "good fix",
    "bug found",
    "checkpoint",
    "before refactor",
    "tests green",
    "wip",
    "revisit",
    "works",
)


class Texts:
    """Random but plausible texts; big ones are slices of a pool so 100 MB stays fast."""

    def __init__(self, rng: random.Random, scale: Scale) -> None:
        self.rng = rng
        self.scale = scale
        need = scale.big[1] + 4_096
        code: list[str] = []
        while sum(map(len, code)) < need:
            code.extend(block + "\n" for block in rng.choices(CODE_BLOCKS, k=64))
        out: list[str] = []
        while sum(map(len, out)) < need:
            out.extend(line + "\n" for line in rng.choices(OUTPUT_LINES, k=256))
        self._code = "".join(code)
        self._out = "".join(out)

    def _slice(self, pool: str, n: int) -> str:
        start = self.rng.randrange(0, len(pool) - n - 1)
        start = pool.find("\n", start) + 1
        return pool[start : start + n]

    def _prose(self, lo_hi: tuple[int, int]) -> str:
        n = self.rng.randint(*lo_hi)
        parts: list[str] = []
        size = 0
        while size < n:
            s = self.rng.choice(SENTENCES)
            parts.append(s)
            size += len(s) + 1
        return " ".join(parts)

    def code(self, n: int) -> str:
        return self._slice(self._code, n)

    def output(self, n: int) -> str:
        return self._slice(self._out, n)

    def tool_size(self) -> int:
        if self.rng.random() < self.scale.big_p:
            return self.rng.randint(*self.scale.big)
        return self.rng.randint(*self.scale.tool)

    def user_prompt(self) -> str:
        text = self.rng.choice(USER_PROMPTS)
        lo, hi = self.scale.user
        if hi > 200 and self.rng.random() < 0.3:
            text += " " + self._prose((lo, hi - 150))
        return text

    def thinking(self) -> str:
        return self._prose(self.scale.thinking)

    def signature(self) -> str:
        return base64.b64encode(self.rng.randbytes(72)).decode()

    def reply(self) -> str:
        """A markdown answer: prose, sometimes a list, a code fence or a table."""
        text = self._prose(self.scale.text)
        r = self.rng.random()
        if r < 0.25:
            items = self.rng.sample(SENTENCES, 3)
            text += "\n\n" + "\n".join(f"- {s}" for s in items)
        elif r < 0.45:
            text += "\n\n```python\n" + self.code(self.rng.randint(120, 500)) + "```"
        elif r < 0.55:
            rows = "\n".join(
                f"| `{p}` | {self.rng.randint(1, 40)} |" for p in self.rng.sample(PATHS, 3)
            )
            text += "\n\n| file | lines changed |\n|---|---|\n" + rows
        return text

    def summary(self, read: list[str], modified: list[str]) -> str:
        """A compaction or branch summary in the agent's usual markdown layout."""
        done = "\n".join(f"- {s}" for s in self.rng.sample(SENTENCES, 3))
        files = "\n".join(f"- `{p}`" for p in modified) or "- (none)"
        body = self._prose(self.scale.summary)
        return (
            f"## Goal\n{self.rng.choice(USER_PROMPTS)}\n\n## Progress\n{done}\n\n"
            f"## Files modified\n{files}\n\n## Notes\n{body}\n\n## Next steps\n"
            f"- {self.rng.choice(SENTENCES)}"
        )

    def image(self) -> Entry:
        side = self.scale.noise_png
        png = make_png(side, side, self.rng.randbytes(side * side * 3)) if side else tiny_png()
        return {"type": "image", "data": base64.b64encode(png).decode(), "mimeType": "image/png"}


class Story:
    """Turns, forks, rewinds and compactions on top of a :class:`Builder`.

    It remembers the active path only since the last compaction (plus a few older fork
    points), which is what compaction (``firstKeptEntryId``) and rewinds need.
    """

    def __init__(self, b: Builder, texts: Texts, *, cwd: str) -> None:
        self.b = b
        self.t = texts
        self.rng = b.rng
        self.cwd = cwd
        self.since: list[str] = []  # main path ids since (and incl.) the last compaction
        self.safe: list[str] = []  # turn ends etc. on that stretch: where forks may start
        self.users: list[str] = []  # user messages on that stretch: compaction cut points
        self.old_safe: deque[str] = deque(maxlen=64)
        self.read: dict[str, None] = {}
        self.modified: dict[str, None] = {}
        self.subagent: tuple[str, Entry] | None = None

    # -- main path bookkeeping ------------------------------------------------------
    def on_main(self, make: Callable[[], str], *, safe: bool = True) -> str:
        """Run ``make`` at the main head and record what it appended as main path."""
        start = len(self.b.out)
        end = make()
        for e in self.b.out[start:]:
            self.since.append(e["id"])
            if e["type"] == "message" and e["message"]["role"] == "user":
                self.users.append(e["id"])
        if safe:
            self.safe.append(end)
        return end

    def main_turn(self, **kw: Any) -> str:
        return self.on_main(lambda: self.turn(**kw))

    def compact(self) -> str:
        """Compact at the main head; the first kept entry is a recent user message."""
        if not self.users:
            raise ValueError("nothing to compact: no user message since the last compaction")
        n = len(self.users)
        first_kept = self.users[self.rng.randint(n // 2, n - 1)]
        cid = self.b.compaction(self.summary(), first_kept, self.details())
        self.old_safe.extend(self.safe[-8:])
        self.since, self.safe, self.users = [cid], [cid], []
        return cid

    def details(self) -> Entry:
        return {"readFiles": sorted(self.read), "modifiedFiles": sorted(self.modified)}

    def summary(self) -> str:
        return self.t.summary(sorted(self.read), sorted(self.modified))

    def side(self, parent: str, turns: int, *, compaction: bool = False) -> str:
        """A side branch off ``parent`` that the user later leaves; head returns to main."""
        saved = self.b.head
        self.b.head = parent
        users: list[str] = []
        end = parent
        for i in range(turns):
            start = len(self.b.out)
            end = self.turn()
            users.append(self.b.out[start]["id"])
            if compaction and i == 0:
                first_kept = users[-1]
                end = self.b.compaction(self.summary(), first_kept, self.details())
        self.b.head = saved
        return end

    def rewind(self, *, with_summary: bool = True) -> str:
        """Try something from the main head, abandon it, and go on from the same point."""
        parent = self.b.head
        assert parent is not None
        attempt_end = self.turn()
        self.b.head = parent
        if not with_summary:
            return parent
        summary = "The user rewound and abandoned this branch.\n\n" + self.summary()
        return self.on_main(lambda: self.b.branch_summary(attempt_end, summary, self.details()))

    # -- one user turn --------------------------------------------------------------
    def turn(
        self,
        *,
        image: bool = False,
        fail: bool = False,
        error: bool = False,
        subagent: bool = False,
        thinking: bool | None = None,
        rounds: int | None = None,
        calls: int | None = None,
    ) -> str:
        """User message, 0-3 rounds of tool calls with their results, final answer."""
        b, t, rng = self.b, self.t, self.rng
        text = t.user_prompt()
        if image:
            text = "Here is a screenshot of the failing run. " + rng.choice(USER_PROMPTS[:6])
            b.user([{"type": "text", "text": text}, t.image()])
        elif rng.random() < 0.3:
            b.user(text)
        else:
            b.user([{"type": "text", "text": text}])
        if error:
            return b.assistant([], stop="error", error=rng.choice(ERRORS))
        n_rounds = rounds if rounds is not None else rng.choice((0, 1, 1, 2, 2, 3))
        if fail or subagent:
            n_rounds = max(n_rounds, 1)  # they need a tool call
        think = thinking if thinking is not None else rng.random() < 0.4
        for r in range(n_rounds):
            blocks: list[Entry] = []
            if (think and r == 0) or rng.random() < 0.15:
                blocks.append(
                    {
                        "type": "thinking",
                        "thinking": t.thinking(),
                        "thinkingSignature": t.signature(),
                    }
                )
            if rng.random() < 0.5:
                blocks.append({"type": "text", "text": rng.choice(SENTENCES)})
            if subagent and r == 0:
                n_calls = 1
            else:
                n_calls = calls if calls is not None else rng.choice((1, 1, 1, 2, 3))
            made = []
            for k in range(n_calls):
                name = "subagent" if subagent and r == 0 else self._tool_name()
                made.append(self._tool(name, fail=fail and r == 0 and k == 0))
                blocks.append(
                    {"type": "toolCall", "id": made[-1][0], "name": name, "arguments": made[-1][1]}
                )
            aid = b.assistant(blocks, stop="toolUse")
            if subagent and r == 0:
                self.subagent = (aid, b.last_usage)
            for cid, _args, name, out, details, is_error in made:
                b.tool_result(cid, name, out, is_error=is_error, details=details)
        blocks = [{"type": "text", "text": t.reply()}]
        if think and n_rounds == 0:
            blocks.insert(
                0,
                {"type": "thinking", "thinking": t.thinking(), "thinkingSignature": t.signature()},
            )
        return b.assistant(blocks)

    def _tool_name(self) -> str:
        return self.rng.choices(
            ("read", "bash", "edit", "grep", "write"), weights=(35, 30, 20, 8, 7)
        )[0]

    def _tool(self, name: str, *, fail: bool) -> tuple[str, Entry, str, str, Entry, bool]:
        """One tool call: (call id, arguments, name, result text, details, isError)."""
        rng, t = self.rng, self.t
        cid = tool_call_id(rng)
        path = rng.choice(PATHS)
        details: Entry = {}
        if name == "read":
            self.read[path] = None
            args: Entry = {"path": f"{self.cwd}/{path}"}
            out = (
                f"ENOENT: no such file or directory, open '{self.cwd}/{path}'"
                if fail
                else t.code(t.tool_size())
            )
        elif name == "bash":
            args = {"command": rng.choice(COMMANDS)}
            out = t.output(t.tool_size())
            if fail:
                out += "\n\nCommand exited with code 1"
        elif name == "edit":
            old = t.code(rng.randint(60, 700))
            new = t.code(rng.randint(60, 700))
            args = {"path": f"{self.cwd}/{path}", "oldText": old, "newText": new}
            if fail:
                out = (
                    f"Could not find the exact text in {self.cwd}/{path}. The old text "
                    "must match exactly including all whitespace and newlines."
                )
            else:
                self.modified[path] = None
                out = f"Successfully replaced text in {self.cwd}/{path}."
                diff = "\n".join(
                    [f"-{x}" for x in old.splitlines()[:8]]
                    + [f"+{x}" for x in new.splitlines()[:8]]
                )
                details = {"diff": diff}
        elif name == "write":
            content = t.code(rng.randint(200, 1_500))
            self.modified[path] = None
            args = {"path": f"{self.cwd}/{path}", "content": content}
            out = (
                f"EACCES: permission denied, open '{self.cwd}/{path}'"
                if fail
                else f"Successfully wrote {len(content)} bytes to {self.cwd}/{path}"
            )
        elif name == "grep":
            args = {
                "pattern": rng.choice(("load_rows", "RetryPolicy", "TODO", "cfg\\b")),
                "path": "src",
            }
            lines = t.code(rng.randint(100, 900)).splitlines()
            out = "\n".join(f"{rng.choice(PATHS)}:{rng.randint(1, 300)}: {x}" for x in lines)
            if fail:
                out = "grep: src/app/missing: No such file or directory"
        else:  # subagent
            args = {"task": "Review the diff of the last change and list any risks."}
            out = "Review done. " + " ".join(rng.sample(SENTENCES, 3))
            details = {"childSession": f"{rng.getrandbits(64):016x}"}
        return cid, args, name, out, details, fail

    def child_usage(self) -> str | None:
        """Attribute a sub-agent's usage to the assistant message that started it."""
        if self.subagent is None:
            return None
        target, target_usage = self.subagent
        self.subagent = None
        n_in = self.rng.randint(8_000, 40_000)
        child = usage("claude-sonnet-4-5", 40, self.rng.randint(500, 3_000), n_in, 6_000)
        return self.on_main(lambda: self.b.child_usage(target, child, target_usage))


# ------------------------------------------------------------------------------------
# the streamed large session
# ------------------------------------------------------------------------------------
class _LargeGen:
    """Emits a branchy v3 session step by step; each step ends on the main path."""

    def __init__(self, seed: int, scale: Scale) -> None:
        rng = random.Random(seed)
        self.rng = rng
        self.b = Builder(rng, cwd="/home/dev/projects/sample-app", prune=20_000)
        self.s = Story(self.b, Texts(rng, scale), cwd="/home/dev/projects/sample-app")
        self.since_fork = 0
        self.fork_gap = rng.randint(40, 60)
        self.since_comp = 0
        self.comp_gap = rng.randint(350, 450)
        self.since_label = 0
        self.label_gap = rng.randint(80, 160)
        self.labeled: deque[str] = deque(maxlen=32)

    def drain(self) -> list[Entry]:
        out, self.b.out = self.b.out, []
        return out

    def opening(self) -> list[Entry]:
        b, s = self.b, self.s
        for make in (
            lambda: b.model_change("claude-sonnet-4-5"),
            lambda: b.thinking_level("medium"),
            lambda: b.session_state("active"),
            lambda: b.git_state("main", False),
            lambda: b.session_info("Benchmark session"),
        ):
            s.on_main(make)
        return self.drain()

    def step(self, budget: int) -> list[Entry]:
        """One step of at most ``budget`` entries (budget >= 40)."""
        b, s, rng = self.b, self.s, self.rng
        if self.since_comp >= self.comp_gap and s.users:
            s.compact()
            self.since_comp, self.comp_gap = 0, rng.randint(350, 450)
        elif self.since_fork >= self.fork_gap and budget > 120:
            self.since_fork, self.fork_gap = 0, rng.randint(40, 60)
            r = rng.random()
            if r < 0.3:
                s.rewind(with_summary=r < 0.2)
            else:
                pool = list(s.safe[-10:])
                if rng.random() < 0.2 and s.old_safe:
                    pool = list(s.old_safe)
                s.side(rng.choice(pool), rng.randint(1, 3), compaction=rng.random() < 0.08)
        elif self.since_label >= self.label_gap:
            self.since_label, self.label_gap = 0, rng.randint(80, 160)
            r = rng.random()
            if r < 0.6 or not self.labeled:
                target = rng.choice(s.since[-20:])
                self.labeled.append(target)
                s.on_main(lambda: b.label(target, rng.choice(LABELS)))
            else:
                old = rng.choice(self.labeled)
                text = rng.choice(LABELS) if r < 0.85 else None
                s.on_main(lambda: b.label(old, text))
        else:
            self._extra()
        if s.subagent is not None:
            s.child_usage()
        r = rng.random()
        s.main_turn(
            image=r < 0.004,
            fail=0.004 <= r < 0.06,
            error=0.06 <= r < 0.07,
            subagent=0.07 <= r < 0.08,
        )
        if s.subagent is not None:
            s.child_usage()
        out = self.drain()
        self.since_fork += len(out)
        self.since_comp += len(out)
        self.since_label += len(out)
        return out

    def _extra(self) -> None:
        """Now and then one of the rarer entry types, at the main head."""
        b, s, rng = self.b, self.s, self.rng
        r = rng.random()
        makers: list[tuple[float, Callable[[], str]]] = [
            (
                0.004,
                lambda: b.model_change(
                    rng.choice(("claude-sonnet-4-5", "claude-opus-4-5", "gpt-5.1-codex"))
                ),
            ),
            (0.010, lambda: b.thinking_level(rng.choice(("off", "low", "medium", "high")))),
            (0.020, lambda: b.custom("todo", {"items": rng.sample(SENTENCES, 2)})),
            (0.030, lambda: b.custom_message("test-watcher", s.t.output(200))),
            (0.050, lambda: b.bash_execution(rng.choice(COMMANDS), s.t.output(300), 0)),
            (0.060, lambda: b.agent_status(rng.choice(SENTENCES), "in_progress", len(s.since))),
            (0.065, lambda: b.git_state("main", True)),
            (0.067, lambda: b.service_tier(rng.choice(("priority", "default")))),
            (0.069, lambda: b.custom_role("reminder", rng.choice(SENTENCES))),
        ]
        for limit, make in makers:
            if r < limit:
                s.on_main(make)
                return

    def fill(self, n: int) -> list[Entry]:
        """Exactly ``n`` more entries on the main path, ending on a finished turn."""
        b, s = self.b, self.s
        while n >= 6:
            s.main_turn(rounds=1, calls=1)
            n -= 4
        if n == 5:
            s.main_turn(rounds=1, calls=2)
        elif n == 4:
            s.main_turn(rounds=1, calls=1)
        elif n in (2, 3):
            if n == 3:
                s.on_main(lambda: b.session_info("Benchmark session (end)"))
            s.main_turn(rounds=0)
        elif n == 1:
            s.on_main(lambda: b.session_info("Benchmark session (end)"))
        return self.drain()


def large_session_entries(n: int, *, seed: int = 0, dialect: str = "prime") -> Iterator[Entry]:
    """Yield the header, then exactly ``n`` entries of a branchy v3 session (small texts).

    For widget benchmarks at 1k/10k/100k entries; nothing is held beyond a bounded window.
    In the spec dialect ``n`` counts entries before tool calls are split out, so a few
    more lines come out (one per tool call).
    """
    gen = _LargeGen(seed, SMALL)
    conv = Converter(3, dialect, gen.b.new_id)
    yield conv.header(gen.b.header)
    left = n
    chunk = gen.opening()[:n]  # cut only for tiny n (the opening is bookkeeping)
    while True:
        left -= len(chunk)
        for e in chunk:
            yield from conv.convert(e)
        if left <= 0:
            return
        chunk = gen.fill(left) if left < 40 else gen.step(left)


def write_large_session(
    path: str | Path, target_bytes: int, *, seed: int = 0, dialect: str = "prime"
) -> Path:
    """Stream a realistic branchy v3 session of about ``target_bytes`` to ``path``.

    Realistic sizes (tool outputs 0.2-8 KB, file reads up to 60 KB, screenshots), a fork
    every ~50 entries, a compaction every ~400. Stops at the first finished main-path
    step past the target, so the file ends on its active leaf.
    """
    gen = _LargeGen(seed, LARGE)
    conv = Converter(3, dialect, gen.b.new_id)
    dumps = orjson.dumps
    out = Path(path)
    written = 0
    with out.open("wb", buffering=1 << 20) as fh:
        lines = [dumps(conv.header(gen.b.header))]
        chunk = gen.opening()
        while True:
            for e in chunk:
                lines.extend(dumps(x) for x in conv.convert(e))
            data = b"\n".join(lines) + b"\n"
            fh.write(data)
            written += len(data)
            if written >= target_bytes:
                break
            lines = []
            chunk = gen.step(1 << 30)
    return out
