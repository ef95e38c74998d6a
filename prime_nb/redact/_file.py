"""`redact`: write a copy of a session file with its secrets replaced, and say what was.

The copy is made line by line from the file as it is on disk: every line stays a line
(so line numbers, version-1 indexes and derived ids are unchanged). A line is copied byte
for byte only when it parsed cleanly, has no repeated key and nothing in it changed; any
other line that parses is written as the agent writes one (compact JSON, the last of a
repeated key's values, as every reader keeps). A line that is not JSON (torn, broken, not
UTF-8) is withheld: a placeholder line says why, and nothing of it is copied, since no
rule can vouch for text whose structure is unknown. The source is never written to.
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

import orjson
import pandas as pd

from ..format import (
    BOM,
    INVALID_JSON,
    Migrator,
    deep_enough,
    glued_spans,
    lenient_loads,
    path_kind,
    trim_depth,
)
from ..session import Session
from ._deep import with_deep_stack
from ._embedded import StreamScrubber
from ._report import HitColumns
from ._rule import Finder, Rule
from ._rules import as_rule, default_rules
from ._scrub import Hit, Scrubber
from ._stream import NotStreamable, StreamWalk, deeper_than, repeated_keys

RuleLike = Rule | str | re.Pattern[str] | Finder

REPORT_COLUMNS = ["line", "entry_id", "field", "rule", "placeholder"]
#: the ``field`` of a line that is not JSON (withheld)
UNPARSED = "(unparsed line)"
#: the ``field`` of a line written anew though no rule fired (see ``_Line.rewrite``)
REWRITTEN = "(whole line)"
#: the rule and placeholder a withheld line is reported with
HEADERS = ("session", "header")
WITHHELD_RULE = "unparsed-line"
WITHHELD = "[WITHHELD:unparsed-line]"
#: what a withheld line becomes: still not JSON, so every reader skips it as before
WITHHELD_LINE = (
    WITHHELD + " prime-nb redact withheld this line: it is not valid JSON (torn or broken), "
    "so it was not copied"
).encode()


#: the columns of :attr:`Redaction.suspects`: where, and why (never the value)
SUSPECT_COLUMNS = ["line", "entry_id", "field", "reason"]


class _Result(NamedTuple):
    path: Path | None
    report: pd.DataFrame


class Redaction(_Result):
    """What :func:`redact` did: the new file (None for a dry run) and the report; it
    unpacks as ``path, report``.

    ``suspects`` lists what still looks like a secret and was kept (a long random token
    beside a word like ``token``), one row per finding with ``line``, ``entry_id``,
    ``field`` and ``reason``, never the value: review them before sharing.
    """

    suspects: pd.DataFrame

    def __new__(
        cls, path: Path | None, report: pd.DataFrame, suspects: pd.DataFrame | None = None
    ) -> Redaction:
        self = super().__new__(cls, path, report)
        empty = pd.DataFrame(columns=SUSPECT_COLUMNS)
        self.suspects = empty if suspects is None else suspects
        return self

    def summary(self) -> pd.DataFrame:
        """Replacements by rule: ``rule``, ``replacements``, ``values`` (distinct
        placeholders) and ``lines``, most replacements first."""
        report = self.report
        if report.empty:
            return pd.DataFrame(columns=["rule", "replacements", "values", "lines"])
        table = report.groupby("rule", sort=False).agg(
            replacements=("placeholder", "size"),
            values=("placeholder", "nunique"),
            lines=("line", "nunique"),
        )
        table = table.reset_index().sort_values(["replacements", "rule"], ascending=[False, True])
        return table.reset_index(drop=True)

    def __repr__(self) -> str:
        table = self.summary()
        by_rule = ", ".join(
            f"{rule}: {n}" for rule, n in zip(table["rule"], table["replacements"], strict=True)
        )
        return (
            f"Redaction(path={str(self.path) if self.path else None!r}, "
            f"replacements={len(self.report)}"
            + (f" ({by_rule})" if by_rule else "")
            + f", suspects={len(self.suspects)})"
        )


class _Glued(NamedTuple):
    """A line holding JSON values glued together (``{...}{...}``: a writer that stopped
    between two writes): each is redacted, and the line stays glued, as written."""

    text: str
    spans: list[tuple[int, int, Any]]  # (start, end, value) of each value in ``text``
    #: values nested past ``KEEP_DEPTH`` were cut to null (as ``load()`` cuts them): each
    #: value is written anew, so that nothing the walk did not read is copied
    cut: bool = False


class _Line(NamedTuple):
    number: int
    offset: int  # where the line starts in the file
    #: the line as on disk, with its line end; None for a line longer than
    #: :data:`KEEP_RAW`, which is copied from the file when it is kept as it is
    raw: bytes | None
    length: int  # its bytes, line end included
    head: bytes  # the BOM before the JSON, or b""
    tail: bytes  # the line end after it ("\n", "\r\n", or b"" for a last line)
    #: the JSON value; a _Glued for glued values; INVALID_JSON when the line is no JSON;
    #: None when blank
    obj: Any
    #: why the raw bytes may hold more than ``obj``: a key repeated (its earlier values
    #: are dropped), a line repaired by the lenient parser; None when they hold ``obj``
    rewrite: str | None


#: a line longer than this is not held as bytes once parsed: its parsed value and, when
#: it changes, the new line are all that is held of it at a time (a copy kept as it is
#: is read again from the file)
KEEP_RAW = 1 << 20


def _lines(path: Path, streamed: Callable[[int], bool]) -> Iterator[_Line]:
    """Each line parsed, or held as bytes (:data:`STREAMED`) when ``streamed(number)``
    and :func:`_many_values`. Why the list: a line's bytes are handed to :func:`_line` in
    a list it empties, so that no name here holds them while the line is redacted."""
    with open(path, "rb") as fh:
        offset, number = 0, 0
        # readline, not ``for raw in enumerate(fh)``: enumerate keeps its last tuple, and
        # so the line's bytes, alive while the line is redacted
        while raw := fh.readline():
            number += 1
            at, offset = offset, offset + len(raw)
            held = [raw]
            del raw
            yield _line(number, at, held, streamed(number))


def _line(number: int, offset: int, held: list[bytes], streamed: bool = False) -> _Line:
    raw = held.pop()
    length = len(raw)
    tail = _line_end(raw)
    head = BOM if raw.startswith(BOM) else b""
    if streamed and _many_values(raw):
        return _Line(number, offset, raw, length, head, tail, STREAMED, None)
    kept = raw if length <= KEEP_RAW else None
    # orjson reads the line with its line end (JSON whitespace), so no copy without it
    # is made; only a line with a BOM is cut
    body = raw[len(head) : length - len(tail)] if head else raw
    if not body or body.isspace():
        return _Line(number, offset, kept, length, head, tail, None, None)
    try:
        obj = orjson.loads(body)
    except orjson.JSONDecodeError:
        body = body[: len(body) - len(tail)] if body is raw else body
        glued = _glued(body)
        if glued is not None:
            return _Line(number, offset, kept, length, head, tail, glued, None)
        obj, _repair = lenient_loads(body.decode("utf-8", errors="replace"))
        # the parser nests as deep as the stack allows, and redaction's stack is deep
        # (``with_deep_stack``): cut as ``load()`` cuts, so the walk fits in it too
        obj = _fit(obj) if deep_enough(body) else obj
        return _Line(number, offset, kept, length, head, tail, obj, "repaired-line")
    repeated = repeated_keys(obj, body)
    return _Line(
        number, offset, kept, length, head, tail, obj, "repeated-key" if repeated else None
    )


#: a line longer than this whose values are many and small (:func:`_many_values`) is
#: walked as a stream of its values (``_stream.py``), not parsed into a tree
STREAM_MIN = 1 << 18
#: what one value costs as a Python object, at least (an object's header and a pointer)
VALUE_COST = 64
#: the ``obj`` of a line held as bytes, to be walked as a stream
STREAMED = object()


def _many_values(raw: bytes) -> bool:
    """Whether the line's tree would cost more than its bytes: a value per
    :data:`VALUE_COST` bytes or more (strings and commas counted at C speed; the
    escaped quotes inside strings are not strings)."""
    if len(raw) <= STREAM_MIN:
        return False
    strings = (raw.count(b'"') - raw.count(b'\\"')) // 2
    return (strings + raw.count(b",")) * VALUE_COST > len(raw)


def _line_end(raw: bytes) -> bytes:
    """The ``\\n`` ending ``raw`` and the ``\\r`` before it (no stripped copy of a long line)."""
    end = len(raw)
    if end and raw[end - 1] == 0x0A:
        end -= 1
    while end and raw[end - 1] == 0x0D:
        end -= 1
    return raw[end:]


def _glued(body: bytes) -> _Glued | None:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return None
    spans = glued_spans(text)
    if spans is None:
        return None
    if not deep_enough(body):
        return _Glued(text, spans)
    deep = any(deeper_than(value, ORJSON_DEPTH) for _, _, value in spans)
    if not deep:
        return _Glued(text, spans)
    return _Glued(text, [(start, end, trim_depth(value)[0]) for start, end, value in spans], True)


#: how deep orjson reads; the walk is tested to this depth and beyond (``_deep.py``)
ORJSON_DEPTH = 1024


def _fit(value: Any) -> Any:
    """``value``, cut as ``load()`` cuts it when it nests deeper than orjson reads."""
    return trim_depth(value)[0] if deeper_than(value, ORJSON_DEPTH) else value


def _rules(
    rules: Iterable[RuleLike] | None, extra_rules: Iterable[RuleLike], hostnames: Any
) -> list[Rule]:
    if rules is None:
        base = default_rules(hostnames)
    else:
        base = [as_rule(r, i, "rule") for i, r in enumerate(rules)]
    extra = [as_rule(r, i) for i, r in enumerate(extra_rules)]
    return [*extra, *base]  # the user's rules first: they win an overlap


def _source_path(session_or_path: Session | str | os.PathLike[str]) -> Path:
    source = Path(session_or_path.file if isinstance(session_or_path, Session) else session_or_path)
    if not source.is_file():
        if not source.exists():
            raise FileNotFoundError(f"{source}: no such session file; check the path")
        kind = path_kind(source) or "not a regular file"
        if kind == "a folder":
            raise FileNotFoundError(f"{source}: is a folder; pass one .jsonl session file")
        raise FileNotFoundError(
            f"{source}: is {kind}, not a regular file; pass one .jsonl session file"
        )
    return source


def _check_dest(source: Path, dest: Path) -> None:
    if dest.exists() and (dest.resolve() == source.resolve() or os.path.samefile(dest, source)):
        raise FileExistsError(
            f"{dest}: is the source session; redaction never writes in place, "
            "pass a new file name as dest"
        )
    if dest.exists():
        raise FileExistsError(
            f"{dest}: already exists; redaction writes a new file only, "
            "pass a path that does not exist yet"
        )
    if not dest.parent.is_dir():
        raise FileNotFoundError(f"{dest.parent}: no such folder; create it first")


def redact(
    session_or_path: Session | str | os.PathLike[str],
    dest: str | os.PathLike[str] | None = None,
    *,
    rules: Iterable[RuleLike] | None = None,
    extra_rules: Iterable[RuleLike] = (),
    hostnames: Sequence[str] | None = None,
    dry_run: bool = False,
) -> Redaction:
    """Write a redacted copy of a session to ``dest``; return it with a report.

    The copy has the same version, dialect, ids and tree: only free text changes, each
    distinct secret into one placeholder (``[REDACTED:aws-key:1]``, ``email-2@redacted.
    invalid``, ``/home/user-1``); docs/redaction.md says what is found and where it is
    replaced. A line that is not JSON is withheld (a placeholder line says why); a line
    with a repeated key is written anew without the dropped values.

    Parameters
    ----------
    session_or_path : Session or path
        The session to redact (read from its file on disk).
    dest : path
        The new file. It must not exist, and is never the source. Not needed for a dry run.
    rules : iterable, optional
        Replace the default rules (:func:`default_rules`): each a :class:`Rule`, a regex
        (its first group that matched, else the whole match, is redacted) or a callable
        ``text -> iterable of (start, end) spans or substrings``.
    extra_rules : iterable
        Rules added to ``rules`` (or to the defaults); they win where rules overlap.
    hostnames : sequence of str, optional
        Host names to hide (default: this machine's; ``[]`` for none).
    dry_run : bool
        Only report; write nothing.

    Returns
    -------
    Redaction
        ``path`` (None for a dry run) and ``report``: one row per replacement with
        ``line``, ``entry_id``, ``field``, ``rule``, ``placeholder``; never the secret (a
        key that is one shows as ``(key)`` in ``field``). ``suspects``: what still looks
        like a secret and was kept, for review (``line``, ``entry_id``, ``field``,
        ``reason``); ``summary()``: replacements by rule.

    Raises
    ------
    FileNotFoundError
        The source (or dest's folder) does not exist.
    FileExistsError
        ``dest`` exists, or is the source.
    ValueError
        No ``dest`` and not a dry run; a user rule is not a valid regex.
    """
    if dest is None and not dry_run:
        raise ValueError("redact: no dest; pass the new file's path, or dry_run=True")
    source = _source_path(session_or_path)
    target = Path(dest) if dest is not None else None
    if target is not None and not dry_run:
        _check_dest(source, target)
    scrubber = StreamScrubber(_rules(rules, extra_rules, hostnames), secret_keys=rules is None)
    return with_deep_stack(lambda: _redact(source, target, scrubber, dry_run))


def _redact(source: Path, target: Path | None, scrubber: Scrubber, dry_run: bool) -> Redaction:
    streamed = _learn(source, scrubber)
    hits = HitColumns()
    out = None if dry_run or target is None else open(target, "xb")  # noqa: SIM115
    try:
        with open(source, "rb") as again:  # long lines kept as they are are copied from it
            for line, parts, entry_id in _redacted_lines(source, scrubber, streamed, out, hits):
                hits.close_line(line.number, entry_id)
                if out is not None:
                    if parts is None:
                        _copy_line(again, line, out)
                    else:
                        out.writelines(parts)
                del line, parts  # held no longer while the next line is read
    except BaseException:
        if out is not None:
            out.close()
            assert target is not None
            target.unlink(missing_ok=True)
        raise
    if out is not None:
        out.close()
    report = hits.report(REPORT_COLUMNS)
    found = hits.suspect_report(SUSPECT_COLUMNS)
    return Redaction(None if dry_run else target, report, found)


def _learn(source: Path, scrubber: Scrubber) -> set[int]:
    """Pass 1: learn every secret value; returns the numbers of the lines walked as
    streams (a function, so that nothing of the last line is held when pass 2 reads it
    again). A line the stream walk cannot vouch for is parsed and learned as a tree:
    what the walk learned of it before (a prefix of the same walk) is learned again."""
    streamed: set[int] = set()
    for line in _lines(source, lambda number: True):
        if line.obj is STREAMED:
            assert line.raw is not None
            end = line.length - len(line.tail)
            walk = StreamWalk(scrubber, line.raw, len(line.head), end, None, None)
            try:
                walk.run()
            except NotStreamable:
                line = _line(line.number, line.offset, [line.raw])
            else:
                streamed.add(line.number)
                continue
        values = [v for _, _, v in line.obj.spans] if isinstance(line.obj, _Glued) else [line.obj]
        for value in values:
            if value is not None and value is not INVALID_JSON:
                scrubber.learn(value, _where(value))
    return streamed


#: how much of a long line kept as it is is copied at a time
_COPY_PIECE = 1 << 20


def _copy_line(source: BinaryIO, line: _Line, out: BinaryIO) -> None:
    """A line kept as it is, copied from the source a piece at a time."""
    source.seek(line.offset)
    left = line.length
    while left:
        piece = source.read(min(left, _COPY_PIECE))
        if not piece:
            raise OSError(f"{source.name}: shorter than when it was read; redact it again")
        out.write(piece)
        left -= len(piece)


def _redacted_lines(
    source: Path, scrubber: Scrubber, streamed: set[int], out: BinaryIO | None, hits: HitColumns
) -> Iterator[tuple[_Line, list[bytes] | None, str | None]]:
    """Pass 2: each line as it goes into the copy (its pieces; None: the line as it is
    in the source), with its replacements; a line walked as a stream is written to
    ``out`` as it is walked (its pieces are then empty). No name here holds a line while
    the next is read, nor while it is redacted (see :func:`_redacted_line`)."""
    migrator: Migrator | None = None
    for line in _lines(source, streamed.__contains__):
        if migrator is None and line.obj is STREAMED and _header(line):
            assert line.raw is not None
            line = _line(line.number, line.offset, [line.raw])  # a header is read whole
        obj = line.obj
        if isinstance(obj, dict) and migrator is None and obj.get("type") in HEADERS:
            migrator = Migrator(obj)
        del obj
        held = [line]
        del line
        result = _redacted_line(held, scrubber, migrator, out, hits)
        yield result
        del result


def _header(line: _Line) -> bool:
    """Whether a line held as bytes is a session header (or cannot be read as a stream)."""
    assert line.raw is not None
    walk = StreamWalk(Scrubber([]), line.raw, len(line.head), line.length - len(line.tail))
    try:
        top = walk.top_shell()
    except NotStreamable:
        return True
    return top is not None and top.get("type") in HEADERS


def _redacted_line(
    held: list[_Line],
    scrubber: Scrubber,
    migrator: Migrator | None,
    out: BinaryIO | None,
    hits: HitColumns,
) -> tuple[_Line, list[bytes] | None, str | None]:
    """One line redacted. A changed line's parsed value is let go before the new one is
    serialised, so that the old value, the new one and the new bytes are not all held."""
    line = held.pop()
    if line.obj is STREAMED:
        if migrator is None or migrator.version >= 2:  # version 1 ids need the entry
            streamed = _streamed_line(line, scrubber, migrator, out, hits)
            if streamed is not None:
                return streamed
        assert line.raw is not None
        line = _line(line.number, line.offset, [line.raw])
    if line.obj is None:  # a blank line: nothing to hide
        return line, _kept(line), None
    if line.obj is INVALID_JSON:
        hits.append(Hit(UNPARSED, WITHHELD_RULE, WITHHELD))
        return line, [line.head, WITHHELD_LINE, line.tail], None
    if isinstance(line.obj, _Glued):
        ids: list[str | None] = []
        for _, _, value in line.obj.spans:
            kind = value.get("type") if isinstance(value, dict) else None
            if migrator is not None and isinstance(kind, str) and kind not in HEADERS:
                ids.append(_entry_id(migrator, value))
        new = _glued_line(line, line.obj, scrubber, hits)
        return line, new, next((i for i in ids if i is not None), None)
    obj = line.obj
    entry_id: str | None = None
    kind = obj.get("type") if isinstance(obj, dict) else None
    if migrator is not None and isinstance(kind, str) and kind not in HEADERS:
        entry_id = _entry_id(migrator, obj)
    fixed_obj = scrubber.scrub(obj, hits, _where(obj))
    if line.rewrite is not None:
        hits.append(Hit(REWRITTEN, line.rewrite, f"[REWRITTEN:{line.rewrite}]"))
    if fixed_obj is obj and line.rewrite is None:
        return line, _kept(line), entry_id
    del obj
    line = line._replace(obj=None)
    body = _dumps(fixed_obj)
    return line, [line.head, body, line.tail], entry_id


def _streamed_line(
    line: _Line,
    scrubber: Scrubber,
    migrator: Migrator | None,
    out: BinaryIO | None,
    hits: HitColumns,
) -> tuple[_Line, list[bytes] | None, str | None] | None:
    """A line walked as a stream, written to ``out`` as it goes (the bytes the tree walk
    writes); when nothing changed, what was written is taken back and the line is kept
    as it is. None when the walk fails after all (the file changed since pass 1):
    nothing of it is left written, and the caller walks its tree."""
    assert line.raw is not None
    start = out.tell() if out is not None else 0
    if out is not None:
        out.write(line.head)
    end = line.length - len(line.tail)
    write = None if out is None else out.write
    walk = StreamWalk(scrubber, line.raw, len(line.head), end, hits, write)
    try:
        changed = walk.run()
    except NotStreamable:
        if out is not None:
            out.seek(start)
            out.truncate()
        hits.clear_line()
        return None
    top = walk.top
    kind = top.get("type") if top is not None else None
    entry_id: str | None = None
    if migrator is not None and top is not None and isinstance(kind, str) and kind not in HEADERS:
        entry_id = _entry_id(migrator, top)
    if changed:
        if out is not None:
            out.write(line.tail)
        return line._replace(raw=None), [], entry_id
    if out is not None:
        out.seek(start)
        out.truncate()
    return line, [line.raw], entry_id


def _kept(line: _Line) -> list[bytes] | None:
    return None if line.raw is None else [line.raw]


def _glued_line(
    line: _Line, glued: _Glued, scrubber: Scrubber, hits: HitColumns
) -> list[bytes] | None:
    """Each glued value redacted in its place; what lies between them kept as written."""
    parts: list[str] = []
    at = 0
    for start, end, value in glued.spans:
        fixed = scrubber.scrub(value, hits, _where(value))
        parts.append(glued.text[at:start])
        kept = fixed is value and not glued.cut
        parts.append(glued.text[start:end] if kept else _dumps(fixed).decode("utf-8"))
        at = end
    parts.append(glued.text[at:])
    text = "".join(parts)
    if text == glued.text:
        return _kept(line)
    return [line.head, text.encode("utf-8"), line.tail]


def _dumps(obj: Any) -> bytes:
    """Compact JSON, as the agent writes a line; deeper than orjson writes (255 levels),
    by the standard library's encoder."""
    try:
        return orjson.dumps(obj)
    except TypeError:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _where(obj: Any) -> str:
    """An entry's fields have a schema; any other JSON value on a line is free data."""
    return "entry" if isinstance(obj, dict) and isinstance(obj.get("type"), str) else "data"


def _entry_id(migrator: Migrator, obj: dict[str, Any]) -> str | None:
    """The id prime_nb loads the entry with (derived for version 1 files)."""
    if migrator.version >= 2:
        migrator.ids_by_index.append(None)
        value = obj.get("id")
        return value if isinstance(value, str) else None
    entry = migrator.apply(copy.deepcopy(obj))
    value = entry.get("id")
    return value if isinstance(value, str) else None
