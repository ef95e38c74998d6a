"""A session file with realistic secrets in every place a session holds text.

Why a generator: redaction was once judged by a handful of planted keys, and an attack
test then found hundreds that survived: secrets under JSON keys, in escaped JSON, in torn
lines, short or digitless passwords, keys wrapped over two lines, base64-encoded
``.env`` files. This module plants every *kind* of secret in every *place* (and in the
raw-line variants: torn, invalid, duplicate key), each placement with a secret of its own
drawn from a seeded generator, so that the file-wide pass cannot hide a place the rules
miss. It also plants ordinary sentences that look like secrets and are not.

:func:`build` writes the file and returns what was planted: ``whole`` strings that must
not appear anywhere after redaction, and ``random`` parts (a token without its public
prefix) none of whose 6-character pieces may appear.
"""

from __future__ import annotations

import base64
import csv
import gzip
import io
import json
import quopri
import random
import textwrap
import urllib.parse
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from more_secrets import KINDS_MORE, LOOKALIKES
from redteam3_secrets import ENCODINGS_RED3, KINDS_RED3, LOOKALIKES_RED3, STRUCTURE_RED3
from redteam5_secrets import LOOKALIKES_RED5
from redteam_secrets import ENCODINGS, KINDS_RED, LOOKALIKES_MORE
from secret_kinds import KINDS_FIRST, Planted

#: every kind of secret planted: the first list, the shapes an attack found missing, and
#: the kinds a later attack wrote without reading the rules
KINDS = [*KINDS_FIRST, *KINDS_MORE, *KINDS_RED, *KINDS_RED3]


@dataclass
class Corpus:
    """What :func:`build` wrote: the file, the secrets, the ordinary sentences' lines."""

    path: Path
    planted: list[tuple[str, str, Planted]] = field(default_factory=list)  # place, kind, ...
    #: ordinary sentence -> the 1-based line numbers that hold it
    ordinary: dict[str, list[int]] = field(default_factory=dict)
    #: config or command look-alike -> the 1-based line numbers that hold it
    lookalikes: dict[str, list[int]] = field(default_factory=dict)


# -- the places a session holds text ------------------------------------------------------


class _Session:
    """Entries in a chain, each with an id that no hex secret can share a piece with."""

    def __init__(self, spec: bool = False) -> None:
        self.spec = spec  # the specification's dialect: timestamps in Unix ms
        self.lines: list[str] = []
        self.n = 0
        self.last: str | None = None
        self.call = "toolu_01"

    def new_id(self) -> str:
        self.n += 1
        return f"n{self.n:05d}zq"

    def add(self, entry_type: str, **fields: Any) -> int:
        entry = {
            "type": entry_type,
            "id": self.new_id(),
            "parentId": self.last,
            "timestamp": 1767607200000 + self.n * 1000
            if self.spec
            else f"2026-01-05T10:{self.n // 60 % 60:02d}:{self.n % 60:02d}.000Z",
            **fields,
        }
        self.last = entry["id"]
        self.lines.append(json.dumps(entry, ensure_ascii=False))
        return len(self.lines)

    def message(self, role: str, content: Any, **extra: Any) -> int:
        message: dict[str, Any] = {"role": role, "content": content, "timestamp": 1767607200000}
        if role == "assistant":
            message.update(provider="anthropic", model="claude-sonnet-4-5", stopReason="stop")
        message.update(extra)
        return self.add("message", message=message)

    def call_with(self, arguments: dict[str, Any], name: str = "write") -> int:
        self.call = f"toolu_{self.n:06d}"
        block = {"type": "toolCall", "id": self.call, "name": name, "arguments": arguments}
        return self.message("assistant", [{"type": "text", "text": "Writing it."}, block])

    def result(self, text: str, **extra: Any) -> int:
        fields = {"toolCallId": self.call, "toolName": "bash", "isError": False, **extra}
        return self.message("toolResult", [{"type": "text", "text": text}], **fields)

    def bash(self, command: str, output: str) -> int:
        message = {
            "role": "bashExecution",
            "command": command,
            "output": output,
            "exitCode": 0,
            "cancelled": False,
            "truncated": False,
            "timestamp": 1767607200000,
        }
        return self.add("message", message=message)


Place = Callable[[_Session, str], int]


def _svg(text: str) -> str:
    """An SVG image (base64, as image blocks hold it) that shows ``text``."""
    svg = f'<svg xmlns="http://www.w3.org/2000/svg"><text y="12">{text}</text></svg>'
    return base64.b64encode(svg.encode()).decode()


def _shown_as(encode: Callable[[str], str]) -> Place:
    """A tool result that shows the snippet as ``encode`` writes it."""
    return lambda s, t: s.result(encode(t))


PLACES: dict[str, Place] = {
    "user-text": lambda s, t: s.message("user", t),
    "user-block": lambda s, t: s.message("user", [{"type": "text", "text": t}]),
    "assistant-text": lambda s, t: s.message(
        "assistant", [{"type": "text", "text": f"I found this:\n{t}"}]
    ),
    "thinking": lambda s, t: s.message(
        "assistant",
        [
            {"type": "thinking", "thinking": f"The file holds {t}", "thinkingSignature": "c2ln"},
            {"type": "text", "text": "Done."},
        ],
    ),
    "tool-arguments": lambda s, t: s.call_with({"path": ".env", "content": t}),
    "tool-arguments-nested": lambda s, t: s.call_with(
        {"request": {"headers": [{"note": t}], "retries": 2}, "dryRun": False}
    ),
    "tool-arguments-key": lambda s, t: s.call_with({"env": {t: "1"}, "cwd": "."}),
    "tool-result": lambda s, t: s.result(t),
    "tool-result-error": lambda s, t: s.result(f"Error: {t}", isError=True),
    "tool-result-details": lambda s, t: s.result("ok", details={"stdout": t, "exitCode": 0}),
    "bash-command": lambda s, t: s.bash(t, "ok"),
    "bash-output": lambda s, t: s.bash("cat config.txt", t),
    "custom-data": lambda s, t: s.add(
        "custom", customType="ext-state", data={"history": [{"input": t, "n": 1}]}
    ),
    "custom-data-key": lambda s, t: s.add(
        "custom", customType="ext-cache", data={"cache": {t: {"hits": 3}}}
    ),
    "custom-message": lambda s, t: s.add(
        "custom_message", customType="hook", content=t, display=True
    ),
    "custom-message-blocks": lambda s, t: s.add(
        "custom_message",
        customType="hook",
        content=[{"type": "text", "text": t}],
        display=False,
        details={"source": "pre-commit"},
    ),
    "custom-message-details": lambda s, t: s.add(
        "custom_message", customType="hook", content="hook ran", display=True, details={"log": t}
    ),
    "custom-role-message": lambda s, t: s.message("custom", t, customType="reminder", display=True),
    "compaction-summary": lambda s, t: s.add(
        "compaction",
        summary=f"## Goal\nDeploy the app.\n## Notes\n{t}",
        firstKeptEntryId=s.last,
        tokensBefore=50000,
    ),
    "compaction-details": lambda s, t: s.add(
        "compaction",
        summary="Deployed.",
        firstKeptEntryId=s.last,
        tokensBefore=50000,
        details={"readFiles": [".env"], "modifiedFiles": [], "notes": t},
    ),
    "branch-summary": lambda s, t: s.add("branch_summary", fromId=s.last, summary=t),
    "label": lambda s, t: s.add("label", targetId=s.last, label=t),
    "session-name": lambda s, t: s.add("session_info", name=t),
    "git-state": lambda s, t: s.add("git_state", git={"branch": "main", "remote": t}),
    "agent-status": lambda s, t: s.add(
        "agent_status", status={"summary": t, "basedOnMessageCount": 3}
    ),
    "model-change": lambda s, t: s.add("model_change", provider="custom", modelId=t),
    "assistant-error": lambda s, t: s.message(
        "assistant", [], stopReason="error", errorMessage=f"401 Unauthorized: {t}"
    ),
    "json-escaped": lambda s, t: s.result(json.dumps({"level": "info", "msg": t})),
    "json-escaped-twice": lambda s, t: s.result(
        json.dumps({"status": 200, "body": json.dumps({"log": [t]})})
    ),
    "log-line-json": lambda s, t: s.bash(
        "tail -n1 app.log",
        "2026-01-05T10:00:00Z INFO request " + json.dumps({"cfg": {"note": t}}),
    ),
    "markdown-fence": lambda s, t: s.message(
        "assistant", [{"type": "text", "text": f"Run this:\n\n```bash\n{t}\n```\n"}]
    ),
    "edit-new-text": lambda s, t: s.call_with(
        {"path": "config/app.py", "oldText": "settings = {}", "newText": t}, "edit"
    ),
    "diff-hunk": lambda s, t: s.result(
        "--- a/.env\n+++ b/.env\n@@ -1,2 +1,3 @@\n APP_ENV=production\n"
        + "\n".join("+" + line for line in t.split("\n"))
    ),
    "yaml-block": lambda s, t: s.result(
        "jobs:\n  deploy:\n    script: |\n" + textwrap.indent(t, "      ")
    ),
    "image-alt-text": lambda s, t: s.message(
        "assistant", [{"type": "text", "text": f"![{t}](screenshots/login.png)"}]
    ),
    "read-path": lambda s, t: s.call_with({"path": t}, "read"),
    "svg-image": lambda s, t: s.message(
        "toolResult",
        [
            {"type": "text", "text": "The chart:"},
            {"type": "image", "mimeType": "image/svg+xml", "data": _svg(t)},
        ],
        toolCallId=s.call,
        toolName="render",
        isError=False,
    ),
    "url-encoded": lambda s, t: s.result(
        "GET /oauth/callback?state=" + urllib.parse.quote(t, safe="") + " 302"
    ),
    "hex-encoded": lambda s, t: s.result("$ xxd -p note.bin\n" + t.encode().hex()),
    **{name: _shown_as(encode) for name, encode in ENCODINGS.items()},
    "base32": lambda s, t: s.result(base64.b32encode(t.encode()).decode()),
    "base64url": lambda s, t: s.result(
        "state=" + base64.urlsafe_b64encode(t.encode()).decode().rstrip("=")
    ),
    "quoted-printable": lambda s, t: s.result(
        "Content-Transfer-Encoding: quoted-printable\n\n"
        + quopri.encodestring(("Note: " + t).encode()).decode()
    ),
    "gzip-base64": lambda s, t: s.result(
        "H4sI blob: " + base64.b64encode(gzip.compress(t.encode(), mtime=0)).decode()
    ),
    "csv-output": lambda s, t: s.bash("cat export.csv", _csv(["name", "value"], ["cfg", t])),
    "markdown-link": lambda s, t: s.message(
        "assistant", [{"type": "text", "text": f"See [the config](<{t}>) for details."}]
    ),
    "diff-removed": lambda s, t: s.result(
        "--- a/.env\n+++ b/.env\n@@ -1,3 +1,1 @@\n APP_ENV=production\n"
        + "\n".join("-" + line for line in t.split("\n"))
    ),
    # the snippet is cut inside its secret first (see ``_cut``)
    "cut-mid-secret": lambda s, t: s.result(t + "\n[output truncated]"),
    "crlf-output": lambda s, t: s.bash("type config.txt", t.replace("\n", "\r\n") + "\r\n"),
    "tool-arguments-array": lambda s, t: s.call_with(
        {"argv": ["deploy", ["--note", [t]]], "env": [{"name": "NOTE", "value": t}]}, "bash"
    ),
    "tool-result-string": lambda s, t: s.add(
        "message",
        message={
            "role": "toolResult",
            "toolCallId": s.call,
            "toolName": "bash",
            "content": t,
            "isError": False,
            "timestamp": 1767607200000,
        },
    ),
    "assistant-model": lambda s, t: s.message(
        "assistant", [{"type": "text", "text": "ok"}], model=t, provider="custom"
    ),
    "file-name": lambda s, t: s.call_with({"folder": "/tmp/cache", "name": t + ".json"}, "save"),
    **{name: _shown_as(encode) for name, encode in ENCODINGS_RED3.items()},
    **STRUCTURE_RED3,
}


def _cut(item: Planted) -> str:
    """The snippet cut two thirds into its longest random part, keeping six characters
    of it at least: what a tool that truncates its output at a length shows."""
    shown = [part for part in item.random if part in item.snippet]
    if not shown:
        return item.snippet
    part = max(shown, key=len)
    at = item.snippet.rfind(part)
    return item.snippet[: at + max(len(part) * 2 // 3, min(len(part), 6))]


def _csv(*rows: list[str]) -> str:
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    return out.getvalue()


#: raw lines that are not plain entries: a repeated key, a broken line, a torn last line
RAW_PLACES = ("duplicate-key", "invalid-line", "torn-line")
#: header fields hold a list of every kind (one header per file)
HEADER_PLACE = "header"

#: sentences that look like secrets and are not: none may change
ORDINARY = [
    "Each token gpt-4o-2024-08-06 emits is billed at the output rate.",
    "The basic python3.11-slim image is enough for the tests.",
    "pwd: /srv/app/releases/2024-11-02",
    "$ pwd\n/srv/www/site",
    "Using claude-3-5-sonnet-20241022 with max_tokens: 8192.",
    "Model: claude-sonnet-4-5-20250929, thinking: high",
    "docker pull example.org/tools/uv:0.4.18-python3.12-bookworm-slim",
    "image: postgres:16.4-alpine3.20",
    "FROM node:20.17.0-bookworm-slim AS build",
    "commit 3f9a1c2e8b7d4f6a0e5c9b1d2a7e8f3c4b5a6d7e\nAuthor: Dev <dev@example.com>",
    "HEAD is now at 9fceb02 Fix token refresh race",
    "Merge: 1a2b3c4 5d6e7f8",
    "digest sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "Entry n00012zq is the parent of n00013zq.",
    "session 123e4567-e89b-12d3-a456-426614174000 loaded",
    "Generated UUID 9b2f0c1e-6a4d-4e2b-8f3c-1d5e7a9b0c2d for the new tenant.",
    "request_id: req_011CUjk3Nf6uq2VmxyzAbCdE returned 200",
    "tool call toolu_01A09q90qw90lq917835lq9 returned",
    "pip install torch==2.4.1+cu121 transformers==4.44.2",
    "node v20.17.0, npm 10.8.2",
    "Python 3.11.9 (main, Aug  7 2024, 17:17:28) [GCC 12.2.0]",
    "export PATH=/usr/local/go/bin:$PATH",
    "export NODE_OPTIONS=--max-old-space-size=8192",
    "The password field is required and must be at least 12 characters.",
    "Reset your password from the account settings page.",
    "Set the token_budget to 200000 in the config.",
    "The auth middleware now checks the session before the handler runs.",
    "Use `gh auth login` to sign in; the token is stored by the CLI.",
    "password: ${DB_PASSWORD}",
    "API_KEY=<your-api-key>",
    "Authorization: Bearer $TOKEN",
    "max_tokens: 4096, temperature: 0.2",
    "input_tokens=15230 output_tokens=812 cache_read_tokens=14000",
    "Wrote dist/prime_nb-0.9.2-py3-none-any.whl",
    "kubectl rollout restart deployment/api-server -n prod",
    "git checkout -b fix/token-expiry-handling",
    "The secret to fast tests is running them in parallel.",
    "SELECT id, name FROM users WHERE password_reset_at IS NULL;",
    "curl -s https://api.github.com/repos/owner/repo/commits?per_page=5",
    "pytest -k 'test_token and not slow' -q",
    "AKIA is the prefix AWS uses for access key ids.",
    "base64 of hello world is aGVsbG8gd29ybGQ=",
    "mysql -u root -p mydb prompts for the password",
    "Bearer tokens expire after 3600 seconds.",
    "token_type: bearer, expires_in: 3600",
    "SECRET_KEY must be set in production (see settings.py).",
    "version: 2.14.0-rc.1+build.5843",
    "ruff 0.6.9, mypy 1.11.2 (compiled: yes)",
    "Read /srv/data/2024/q3/report.parquet in 3 chunks",
    "the access_token field is missing from the response",
]
#: where each ordinary sentence is written
ORDINARY_PLACES = ("assistant-text", "tool-result", "bash-output", "tool-arguments")
#: where each look-alike is written
LOOKALIKE_PLACES = (*ORDINARY_PLACES, "markdown-fence", "edit-new-text", "yaml-block", "thinking")


def plant(seed: int = 33) -> list[tuple[str, Planted]]:
    """(place, planted) for every kind in every place, each with a secret of its own."""
    r = random.Random(seed)
    places = [*PLACES, *RAW_PLACES, HEADER_PLACE]
    return [(place, make(r)) for place in places for make in KINDS]


def build(path: Path, seed: int = 33) -> Corpus:
    """Write the corpus session to ``path``; return what it holds."""
    corpus = Corpus(path)
    session = _Session()
    header_notes: list[str] = []
    torn: str | None = None
    planted = plant(seed)
    ordinary = iter([(sentence, place) for sentence in ORDINARY for place in ORDINARY_PLACES])
    for i, (place, item) in enumerate(planted):
        corpus.planted.append((place, item.kind, item))
        if place in PLACES:
            PLACES[place](session, _cut(item) if place == "cut-mid-secret" else item.snippet)
        elif place == HEADER_PLACE:
            header_notes.append(item.snippet)
        elif place == "duplicate-key":
            entry = {
                "type": "message",
                "id": session.new_id(),
                "parentId": session.last,
                "timestamp": "2026-01-05T11:00:00.000Z",
            }
            session.last = entry["id"]
            head = json.dumps(entry)[:-1]
            content = json.dumps(item.snippet)
            session.lines.append(
                head + ', "message": {"role": "user", "content": '
                f'{content}, "content": "nothing to see", "timestamp": 0}}}}'
            )
        elif place == "invalid-line":
            session.lines.append(
                '{"type": "message", "id": "broken", "message": {"content": '
                + json.dumps(item.snippet)
                + ", <cut here"
            )
        elif place == "torn-line" and torn is None:
            torn = item.snippet  # the last line of the file, written below
        elif place == "torn-line":
            # only one line can be the torn tail; the others are torn mid-file
            line = json.dumps(
                {
                    "type": "message",
                    "message": {"role": "user", "content": item.snippet + " and then"},
                }
            )
            session.lines.append(line[: line.index(" and then") + 4])
        if i % 4 == 0:
            sentence_place = next(ordinary, None)
            if sentence_place is not None:
                sentence, where = sentence_place
                PLACES[where](session, sentence)
                corpus.ordinary.setdefault(sentence, []).append(len(session.lines))
    for sentence, where in ordinary:
        PLACES[where](session, sentence)
        corpus.ordinary.setdefault(sentence, []).append(len(session.lines))
    for lookalike in [*LOOKALIKES, *LOOKALIKES_MORE, *LOOKALIKES_RED3, *LOOKALIKES_RED5]:
        for where in LOOKALIKE_PLACES:
            PLACES[where](session, lookalike)
            corpus.lookalikes.setdefault(lookalike, []).append(len(session.lines))
    head = {
        "type": "session",
        "version": 3,
        "id": "0b7c3a52-6a8e-4c1e-9d0f-2f6b1c9e8a71",
        "timestamp": "2026-01-05T10:00:00.000Z",
        "cwd": "/srv/app",
        "git": {"branch": "main", "notes": header_notes},
    }
    lines = [json.dumps(head, ensure_ascii=False), *session.lines]
    corpus.ordinary = {s: [n + 1 for n in ns] for s, ns in corpus.ordinary.items()}
    corpus.lookalikes = {s: [n + 1 for n in ns] for s, ns in corpus.lookalikes.items()}
    body = "\n".join(lines) + "\n"
    if torn is not None:
        tail = json.dumps({"type": "message", "id": "torn", "message": {"content": torn + " ok"}})
        body += tail[: tail.index(" ok")]
    path.write_text(body, encoding="utf-8")
    return corpus


def pieces(text: str, n: int = 6) -> Iterable[str]:
    """Every ``n``-character piece of ``text``, but those of digits only (a piece of a
    timestamp is as likely as one of a secret)."""
    for i in range(len(text) - n + 1):
        piece = text[i : i + n]
        if not piece.isdigit():
            yield piece


#: the places only the specification's dialect has (top-level tool calls and results,
#: ``hookMessage``-era custom entries, its own type names)
SPEC_PLACES: dict[str, Callable[[_Session, str], int]] = {
    "spec-tool-call": lambda s, t: s.add(
        "toolCall",
        toolCallId=f"call_{s.n}",
        name="bash",
        arguments={"command": t, "env": {t: "1"}},
    ),
    "spec-tool-result": lambda s, t: s.add(
        "toolResult",
        toolCallId=f"call_{s.n - 1}",
        toolName="bash",
        content=[{"type": "text", "text": t}],
        isError=False,
    ),
    "spec-custom": lambda s, t: s.add(
        "custom", customType="hook", content=t, display=True, details={"raw": t}
    ),
    "spec-branch-summary": lambda s, t: s.add("branchSummary", fromId=s.last, summary=t),
    "spec-model-change": lambda s, t: s.add("modelChange", provider="custom", modelId=t),
}


def build_spec(path: Path, seed: int = 34) -> Corpus:
    """The corpus in the specification's dialect: every kind in its own places, and in
    the header's fields."""
    corpus = Corpus(path)
    session = _Session(spec=True)
    r = random.Random(seed)
    notes = []
    for place in [*SPEC_PLACES, HEADER_PLACE]:
        for make in KINDS:
            item = make(r)
            corpus.planted.append((place, item.kind, item))
            if place == HEADER_PLACE:
                notes.append(item.snippet)
            else:
                SPEC_PLACES[place](session, item.snippet)
    head = {
        "type": "header",
        "version": 3,
        "id": "5d1e7a3c-0b9f-4e62-8a14-c7f3b2d6e905",
        "workingDir": "/srv/app",
        "timestamp": 1767607200000,
        "notes": notes,
    }
    lines = [json.dumps(head, ensure_ascii=False), *session.lines]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return corpus
