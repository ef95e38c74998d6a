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

from .._names import shown_text
from ..format import INVALID_JSON, Migrator, holds_no_utf8_lines, no_header, path_kind
from ..session import Session
from ._deep import with_deep_stack
from ._disguise import forget_decoded_runs
from ._embedded import StreamScrubber
from ._lines import REPAIRED, STREAMED, Glued, Line, Raw, parse_line, read_lines
from ._pending import PendingTexts
from ._report import HitColumns
from ._rule import Finder, Rule
from ._rules import as_rule, default_rules
from ._scrub import Hit, Scrubber
from ._stream import NotStreamable, StreamWalk

RuleLike = Rule | str | re.Pattern[str] | Finder

REPORT_COLUMNS = ["line", "entry_id", "field", "rule", "placeholder"]
#: the ``field`` of a line that is not JSON (withheld)
UNPARSED = "(unparsed line)"
#: the ``field`` of a line written anew though no rule fired (see ``Line.rewrite``)
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
        table["rule"] = table["rule"].astype(str)  # a few rows: text, not the report's codes
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
            raise FileNotFoundError(shown_text(f"{source}: no such session file; check the path"))
        kind = path_kind(source) or "not a regular file"
        if kind == "a folder":
            raise FileNotFoundError(
                shown_text(f"{source}: is a folder; pass one .jsonl session file")
            )
        raise FileNotFoundError(
            shown_text(f"{source}: is {kind}, not a regular file; pass one .jsonl session file")
        )
    with open(source, "rb") as fh:
        # compressed, UTF-16 or UTF-32: no line of it is JSON, so every line would be
        # withheld; ``load`` refuses it with the same error, from the same first bytes
        if holds_no_utf8_lines(fh.read(4096)):
            raise no_header(source, fh.fileno())
    return source


def _check_dest(source: Path, dest: Path) -> None:
    if dest.exists() and (dest.resolve() == source.resolve() or os.path.samefile(dest, source)):
        raise FileExistsError(
            shown_text(
                f"{dest}: is the source session; redaction never writes in place, "
                "pass a new file name as dest"
            )
        )
    if dest.exists():
        raise FileExistsError(
            shown_text(
                f"{dest}: already exists; redaction writes a new file only, "
                "pass a path that does not exist yet"
            )
        )
    if not dest.parent.is_dir():
        raise FileNotFoundError(shown_text(f"{dest.parent}: no such folder; create it first"))


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
    SessionFormatError
        The file is compressed, or UTF-16 or UTF-32 text (its first bytes say so): it
        holds no JSON line to redact.
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
    try:
        return with_deep_stack(lambda: _redact(source, target, scrubber, dry_run))
    finally:
        forget_decoded_runs()


def _redact(source: Path, target: Path | None, scrubber: Scrubber, dry_run: bool) -> Redaction:
    streamed = _learn(source, scrubber)
    # a long text's new text is written in pieces from the old, never built whole
    scrubber.pending = pending = PendingTexts()
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
                        out.writelines(pending.expand(parts))
                pending.clear()
                del line, parts  # held no longer while the next line is read
    except BaseException:
        if out is not None:
            out.close()
            assert target is not None
            target.unlink(missing_ok=True)
        raise
    if out is not None:
        out.close()
    scrubber.forget()  # the known values are not held while the report is built
    report = hits.report(REPORT_COLUMNS)
    found = hits.suspect_report(SUSPECT_COLUMNS)
    return Redaction(None if dry_run else target, report, found)


def _learn(source: Path, scrubber: Scrubber) -> set[int]:
    """Pass 1: learn every secret value; returns the numbers of the lines walked as
    streams (a function, so that nothing of the last line is held when pass 2 reads it
    again). A line the stream walk cannot vouch for is parsed and learned as a tree:
    what the walk learned of it before (a prefix of the same walk) is learned again."""
    streamed: set[int] = set()
    for line in read_lines(source, lambda number: True):
        if line.obj is STREAMED:
            assert line.raw is not None
            end = line.length - len(line.tail)
            walk = StreamWalk(scrubber, line.raw, len(line.head), end, None, None)
            try:
                walk.run()
            except NotStreamable:
                line = parse_line(line.number, line.offset, [line.raw])
            else:
                streamed.add(line.number)
                continue
        values = [v for _, _, v in line.obj.spans] if isinstance(line.obj, Glued) else [line.obj]
        for value in values:
            if value is not None and value is not INVALID_JSON:
                scrubber.learn(value, _where(value))
    return streamed


#: how much of a long line kept as it is is copied at a time
_COPY_PIECE = 1 << 16


def _copy_line(source: BinaryIO, line: Line, out: BinaryIO) -> None:
    """A line kept as it is, copied from the source a piece at a time."""
    source.seek(line.offset)
    left = line.length
    while left:
        piece = source.read(min(left, _COPY_PIECE))
        if not piece:
            raise OSError(
                shown_text(f"{source.name}: shorter than when it was read; redact it again")
            )
        out.write(piece)
        left -= len(piece)


def _redacted_lines(
    source: Path, scrubber: Scrubber, streamed: set[int], out: BinaryIO | None, hits: HitColumns
) -> Iterator[tuple[Line, list[Raw] | None, str | None]]:
    """Pass 2: each line as it goes into the copy (its pieces; None: the line as it is
    in the source), with its replacements; a line walked as a stream is written to
    ``out`` as it is walked (its pieces are then empty). No name here holds a line while
    the next is read, nor while it is redacted (see :func:`_redacted_line`)."""
    migrator: Migrator | None = None
    for line in read_lines(source, streamed.__contains__):
        if migrator is None and line.obj is STREAMED and _header(line):
            assert line.raw is not None
            line = parse_line(line.number, line.offset, [line.raw])  # a header is read whole
        obj = line.obj
        if isinstance(obj, dict) and migrator is None and obj.get("type") in HEADERS:
            migrator = Migrator(obj)
        del obj
        held = [line]
        del line
        result = _redacted_line(held, scrubber, migrator, out, hits)
        yield result
        del result


def _header(line: Line) -> bool:
    """Whether a line held as bytes is a session header (or cannot be read as a stream)."""
    assert line.raw is not None
    walk = StreamWalk(Scrubber([]), line.raw, len(line.head), line.length - len(line.tail))
    try:
        top = walk.top_shell()
    except NotStreamable:
        return True
    return top is not None and top.get("type") in HEADERS


def _redacted_line(
    held: list[Line],
    scrubber: Scrubber,
    migrator: Migrator | None,
    out: BinaryIO | None,
    hits: HitColumns,
) -> tuple[Line, list[Raw] | None, str | None]:
    """One line redacted. Its parsed value is changed in place, each old string let go
    as its new one is made (``Scrubber.scrub_in_place``), so that the old strings, the
    new ones and the new bytes are not all held."""
    line = held.pop()
    if line.obj is STREAMED:
        if migrator is None or migrator.version >= 2:  # version 1 ids need the entry
            streamed = _streamed_line(line, scrubber, migrator, out, hits)
            if streamed is not None:
                return streamed
        assert line.raw is not None
        line = parse_line(line.number, line.offset, [line.raw])
    if line.obj is None:  # a blank line: nothing to hide
        return line, _kept(line), None
    if line.obj is INVALID_JSON:
        hits.append(Hit(UNPARSED, WITHHELD_RULE, WITHHELD))
        return line, [line.head, WITHHELD_LINE, line.tail], None
    if isinstance(line.obj, Glued):
        ids: list[str | None] = []
        for _, _, value in line.obj.spans:
            kind = value.get("type") if isinstance(value, dict) else None
            if migrator is not None and isinstance(kind, str) and kind not in HEADERS:
                ids.append(_entry_id(migrator, value, scrubber))
        new = _glued_line(line, line.obj, scrubber, hits, out)
        return line, new, next((i for i in ids if i is not None), None)
    obj = line.obj
    entry_id: str | None = None
    kind = obj.get("type") if isinstance(obj, dict) else None
    if migrator is not None and isinstance(kind, str) and kind not in HEADERS:
        entry_id = _entry_id(migrator, obj, scrubber)
    # the parsed entry is this line's alone (the migrator read what it needs of a
    # header when made), and nothing reads the old entry after: it is changed in place
    fixed_obj, changed = scrubber.scrub_in_place(obj, hits, _where(obj))
    if line.rewrite is not None:
        hits.append(Hit(REWRITTEN, line.rewrite, f"[REWRITTEN:{line.rewrite}]"))
    if not changed and line.rewrite is None:
        return line, _kept(line), entry_id
    del obj
    line = line._replace(obj=None)
    body = _dumps(fixed_obj)
    return line, [line.head, body, line.tail], entry_id


def _streamed_line(
    line: Line,
    scrubber: Scrubber,
    migrator: Migrator | None,
    out: BinaryIO | None,
    hits: HitColumns,
) -> tuple[Line, list[Raw] | None, str | None] | None:
    """A line walked as a stream, written to ``out`` as it goes (the bytes the tree walk
    writes); when nothing changed, what was written is taken back and the line is kept
    as it is. None when the walk fails after all (the file changed since pass 1):
    nothing of it is left written, and the caller walks its tree."""
    assert line.raw is not None
    start = out.tell() if out is not None else 0
    if out is not None:
        out.write(line.head)
    end = line.length - len(line.tail)
    write = None if out is None else _writer(out, scrubber.pending)
    walk = StreamWalk(scrubber, line.raw, len(line.head), end, hits, write)
    try:
        changed = walk.run()
    except NotStreamable:
        if out is not None:
            out.seek(start)
            out.truncate()
        hits.clear_line()
        if scrubber.pending is not None:
            scrubber.pending.clear()
        return None
    if walk.repaired:  # orjson refused a number in it: reported as the tree walk reports it
        hits.append(Hit(REWRITTEN, REPAIRED, f"[REWRITTEN:{REPAIRED}]"))
    top = walk.top
    kind = top.get("type") if top is not None else None
    entry_id: str | None = None
    if migrator is not None and top is not None and isinstance(kind, str) and kind not in HEADERS:
        entry_id = _entry_id(migrator, top, scrubber)
    if changed:
        if out is not None:
            out.write(line.tail)
        return line._replace(raw=None), [], entry_id
    if out is not None:
        out.seek(start)
        out.truncate()
    return line, [line.raw], entry_id


def _writer(out: BinaryIO, pending: PendingTexts | None) -> Callable[[bytes], object]:
    """What the stream walk writes with: each piece to ``out``, a long text's stand-in in
    it written as its new text (see ``_pending.py``)."""
    if pending is None:
        return out.write
    return lambda piece: out.writelines(pending.expand((piece,)))


def _kept(line: Line) -> list[Raw] | None:
    return None if line.raw is None else [line.raw]


def _glued_line(
    line: Line, glued: Glued, scrubber: Scrubber, hits: HitColumns, out: BinaryIO | None
) -> list[Raw] | None:
    """Each glued value redacted in its place, and written to ``out`` (an empty list of
    pieces returned) as soon as it is: its long texts' old texts, which wait in
    ``scrubber.pending`` to be written, and its tree are let go then, not held beside
    the next value's. What lies between them is kept as written. When every value is
    kept as written, what was written is taken back and the line is kept as it is."""
    start = out.tell() if out is not None else 0
    write: Callable[[Iterable[Raw]], object] = _discard if out is None else out.writelines
    pending = scrubber.pending
    write((line.head,))
    at, kept = 0, True
    for i, (begin, end, value) in enumerate(glued.spans):
        fixed, changed = scrubber.scrub_in_place(value, hits, _where(value))
        del value
        glued.spans[i] = (begin, end, None)  # the tree is held by ``fixed`` alone
        write(_encoded(glued.text, at, begin))
        if not changed and not glued.cut:
            write(_encoded(glued.text, begin, end))
        else:
            kept = False
            if out is not None:
                body = _dumps(fixed)
                write(pending.expand((body,)) if pending is not None else (body,))
                del body
        del fixed
        at = end
    write(_encoded(glued.text, at, len(glued.text)))
    write((line.tail,))
    if not kept:
        return []
    if out is not None:
        out.seek(start)
        out.truncate()
    return _kept(line)


def _encoded(text: str, start: int, end: int) -> Iterator[bytes]:
    """``text[start:end]`` in UTF-8, :data:`_COPY_PIECE` characters at a time (no copy of
    a long value kept as written, as ``str`` nor as bytes)."""
    for at in range(start, end, _COPY_PIECE):
        yield text[at : min(end, at + _COPY_PIECE)].encode("utf-8")


def _discard(pieces: Iterable[Raw]) -> None:
    """Where a dry run writes: nowhere."""


#: a surrogate not paired: a ``str`` of JSON read by the standard library keeps one
#: where the line escaped it alone (``"\ud800"``); UTF-8 cannot hold it
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _dumps(obj: Any) -> bytes:
    """Compact JSON, as the agent writes a line; deeper than orjson writes (255 levels),
    or holding a lone surrogate (a glued line's values, read by the standard library),
    by the standard library's encoder, each lone surrogate written as U+FFFD, as a line
    the lenient parser reads alone is written."""
    try:
        return orjson.dumps(obj)
    except TypeError:
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
        return _LONE_SURROGATE.sub("\ufffd", text).encode("utf-8")


def _where(obj: Any) -> str:
    """An entry's fields have a schema; any other JSON value on a line is free data."""
    return "entry" if isinstance(obj, dict) and isinstance(obj.get("type"), str) else "data"


def _entry_id(migrator: Migrator, obj: dict[str, Any], scrubber: Scrubber) -> str | None:
    """The id prime_nb loads the redacted entry with (derived for version 1 files): an
    id that holds a secret is named as the redacted file writes it."""
    if migrator.version >= 2:  # its ids are as written: the migrator keeps none
        value = obj.get("id")
        return scrubber.as_written(value) if isinstance(value, str) else None
    entry = migrator.apply(copy.deepcopy(obj))
    value = entry.get("id")
    return value if isinstance(value, str) else None
