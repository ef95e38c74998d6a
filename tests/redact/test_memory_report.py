"""Many small values replaced: the known values and the report kept compact, the same.

Under a secret's key (``"api_key": [0, 1, 2, ...]``, up to 256 values: more are replaced
as one) every value is replaced, and each distinct value has a placeholder of its own:
``Scrubber.known`` kept a (rule, placeholder) tuple and the placeholder's string for
each, and the report's columns a (rule, placeholder) tuple and a dict entry for each. A
placeholder made from its rule's name and number (``[REDACTED:rule:n]``) is now kept as
that rule and number, in both (``_known.py``, ``_report.py``), and made again when asked
or when the report is built.

What a value and a row hold is measured in this process (``tracemalloc``): the growth of
the whole redaction per byte of line, as ``test_redact_memory.py`` measures it, takes
seconds a shape here and steps with the dict's sizes, and these shapes are still far
over 3x (the report itself, a row per value and a placeholder text per distinct value,
is many times a line of values of a few bytes each: ``benchmarks/README.md``).

The oracle is the code before, kept here: a dict of (rule, placeholder) for the known
values, and the report's pairs all kept as text; and the report of random hits built
row by row with pandas.
"""

from __future__ import annotations

import functools
import gc
import json
import random
import re
import sys
import tracemalloc
from array import array
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from returned_size import returned_bytes
from secret_corpus import plant
from test_redact_memory import SIZES, assert_grew_at_most, measure

from prime_nb.redact import redact
from prime_nb.redact._find import SECRET_FIELD
from prime_nb.redact._known import KnownValues
from prime_nb.redact._report import HitColumns
from prime_nb.redact._rule import Rule
from prime_nb.redact._scrub import Hit, Scrubber
from prime_nb.redact._suspects import SUSPECT

_file = sys.modules["prime_nb.redact._file"]
_report = sys.modules["prime_nb.redact._report"]

HEAD = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}
#: distinct values learned, rows appended: enough that a few bytes each shows
MANY = 20_000


def _custom(i: int, key: str, value: Any) -> str:
    data = {key: value, "n": "password=Zq8vN2xL5pT7"}
    entry = {"type": "custom", "id": f"c{i}", "parentId": None, "customType": "x", "data": data}
    return json.dumps(entry)


def _grown(step: Any) -> float:
    """The Python memory ``step``'s result holds, per one of :data:`MANY`."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        held = step()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    del held
    return grown / MANY


def test_known_numbers_keep_no_placeholder_string_each() -> None:
    """A number under a secret's key (``json.dumps`` of it) learned by the scrubber: 208
    bytes a value before (a tuple, a placeholder string, the dict's entry, the value),
    107 now (the dict's entry, the value and one number)."""

    def learned() -> Scrubber:
        scrubber = Scrubber([])
        for i in range(MANY):
            scrubber._learn_value(str(i), SECRET_FIELD, False)
        return scrubber

    assert _grown(learned) < 150


def test_report_rows_keep_no_pair_each() -> None:
    """A row of a numbered placeholder of its own (each distinct): 228 bytes a row before
    (a tuple and the placeholder's string, the dict's entry, the list's), 29 now (the
    field's bytes, where it ends, the pair's code)."""

    def appended() -> HitColumns:
        columns = HitColumns()
        for i in range(MANY):
            columns.append(
                Hit(f"data.api_key[{i}]", "secret-field", f"[REDACTED:secret-field:{i + 1}]")
            )
        columns.close_line(2, "c1")
        return columns

    assert _grown(appended) < 40


def test_the_known_values_are_let_go_before_the_report_is_built(
    source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Held with the report being built, a line of many distinct values (300,000 numbers)
    peaked at 76x the line; 58x let go (the report's own making)."""
    scrubbers: list[Any] = []
    held: list[int] = []

    class Seen(_file.StreamScrubber):  # type: ignore[misc, name-defined]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            scrubbers.append(self)

    class Report(HitColumns):
        def report(self, columns: list[str]) -> pd.DataFrame:
            (scrubber,) = scrubbers
            held.extend([len(scrubber.known), len(scrubber._found), len(scrubber.wide)])
            return super().report(columns)

    monkeypatch.setattr(_file, "StreamScrubber", Seen)
    monkeypatch.setattr(_file, "HitColumns", Report)
    done = redact(source, source.with_name("seen.jsonl"), hostnames=[])
    assert len(done.report) > 3000
    assert held == [0, 0, 0]


# -- the oracle: the same file, report and suspects as the code before --------------------


class _DictKnown(dict[str, tuple[str, str]]):
    """The known values as they were: a (rule name, placeholder) tuple each."""

    def add(self, value: str, rule: Rule, number: int) -> None:
        self[value] = (rule.name, rule.make_placeholder(number, value))


class _TextPairs(HitColumns):
    """The report's columns as they were: every (rule, placeholder) pair kept as text."""

    def _pair(self, rule: str, placeholder: str) -> int:
        key = (rule, placeholder)
        pair = self._pairs.get(key)
        if pair is None:
            pair = self._pairs[key] = len(self._pair_values)
            self._pair_values.append(key)
        return pair


def _as_before(known: type = _DictKnown) -> Any:
    scrubber_class = _file.StreamScrubber

    class Before(scrubber_class):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.known = known()

    return Before


class _OffByOne(_DictKnown):
    """A broken representation: each placeholder's number one too many."""

    def add(self, value: str, rule: Rule, number: int) -> None:
        self[value] = (rule.name, rule.make_placeholder(number + 1, value))


def _tool_call(i: int, command: Any) -> str:
    call = {"type": "toolCall", "id": f"t{i}", "name": "bash", "arguments": {"command": command}}
    message = {"role": "assistant", "content": [call], "timestamp": 0}
    return json.dumps({"type": "message", "id": f"m{i}", "parentId": None, "message": message})


def _session(path: Path) -> Path:
    """Every kind of secret of the corpus, and many small values under secret keys
    (numbers, strings, short keys, nested; a custom rule's placeholders besides)."""
    kinds: dict[str, str] = {}
    for _, item in plant():
        kinds.setdefault(item.kind, item.snippet)
    lines = [json.dumps(HEAD)]
    for i, snippet in enumerate([*kinds.values(), "ids cx-12, cx-7 and cx-12 again"]):
        message = {"role": "user", "content": snippet, "timestamp": 0}
        entry = {"type": "message", "id": f"m{i}", "parentId": None, "timestamp": "2026"}
        lines.append(json.dumps({**entry, "message": message}))
    lines += [
        # each value replaced up to 256 of them (``_whole_secret.py``): 3,000 in lists of 250
        *(_custom(10 + k, "api_key", list(range(250 * k, 250 * (k + 1)))) for k in range(12)),
        _custom(1, "api_key", list(range(3000))),  # past 256: one value
        _custom(2, "password", ["ab", "pw=hunter2x", "0", 7, 1.5, None, True] * 300),
        _custom(3, "secret", {f"k{i}": i % 700 for i in range(2000)}),
        _custom(4, "token", [[i, str(i)] for i in range(500)]),
        _custom(5, "api_key", list(range(2990, 3010))),  # values met before
        # many rows under one parent, and paths the runs of parents are cut from
        _tool_call(6, ["ab", "pw=hunter2x"] * 200),
        _custom(7, "a.b[c]", {"d.e[1]": ["pw=hunter2x"] * 3, "k" * 300: ["pw=hunter2x", 1]}),
        _custom(8, "deep", functools.reduce(lambda v, k: {k: v}, ["k"] * 30, ["pw=hunter2x"] * 5)),
        _custom(9, "x", [{"password": f"Zq8vN2xL{i}"} for i in range(50)]),
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _redacted(source: Path, dest: Path) -> tuple[bytes, pd.DataFrame, pd.DataFrame]:
    rules = [
        Rule(
            "custom-x", pattern=re.compile(r"\bcx-\d+\b"), placeholder=lambda n, v: f"<cx {n:03d}>"
        )
    ]
    done = redact(source, dest, extra_rules=rules, hostnames=[])
    return dest.read_bytes(), done.report, done.suspects


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _session(tmp_path_factory.mktemp("oracle") / "in.jsonl")


@pytest.fixture(scope="module")
def now(source: Path) -> tuple[bytes, pd.DataFrame, pd.DataFrame]:
    return _redacted(source, source.with_name("now.jsonl"))


def test_the_file_report_and_suspects_are_as_before(
    source: Path, now: tuple[bytes, pd.DataFrame, pd.DataFrame], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_file, "StreamScrubber", _as_before())
    monkeypatch.setattr(_file, "HitColumns", _TextPairs)
    before = _redacted(source, source.with_name("before.jsonl"))
    assert now[0] == before[0]
    pd.testing.assert_frame_equal(now[1], before[1])
    pd.testing.assert_frame_equal(now[2], before[2])
    assert now[1]["placeholder"].nunique() > 3000  # many numbered placeholders compared
    assert len(now[2])  # and suspects


@pytest.mark.usefixtures("whole_paths")
def test_the_file_report_and_suspects_are_as_with_whole_paths(
    source: Path, now: tuple[bytes, pd.DataFrame, pd.DataFrame], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_file, "HitColumns", _WholeColumns)
    before = _redacted(source, source.with_name("whole.jsonl"))
    assert now[0] == before[0]
    pd.testing.assert_frame_equal(now[1], before[1])
    pd.testing.assert_frame_equal(now[2], before[2])
    fields = now[1]["field"]
    assert fields.str.startswith("message.content[0].arguments.command[").sum() >= 200
    assert fields.str.contains("k.k.k.k", regex=False).any()  # 30 levels deep
    assert fields.str.contains("\u2026").any()  # a long key abbreviated


def test_the_comparison_sees_a_placeholder_off_by_one(
    source: Path, now: tuple[bytes, pd.DataFrame, pd.DataFrame], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_file, "StreamScrubber", _as_before(_OffByOne))
    broken = _redacted(source, source.with_name("broken.jsonl"))
    assert now[0] != broken[0]
    assert not now[1].equals(broken[1])


# -- the parts: known values and report columns against plain ones -------------------------


def _placeholders(r: random.Random, rule: str) -> str:
    """A placeholder as a rule may make it: numbered (past the numbers coded too), with
    a leading zero, other digits, another rule's form, or any text."""
    return r.choice(
        [
            f"[REDACTED:{rule}:{r.randrange(1, 40)}]",
            f"[REDACTED:{rule}:{r.randrange(1, 1 << 26)}]",
            f"[REDACTED:{rule}:0]",
            f"[REDACTED:{rule}:0{r.randrange(9)}]",
            f"[REDACTED:{rule}:\u0663]",
            f"[REDACTED:{rule}:]",
            f"[REDACTED:{rule}:12x]",
            f"[REDACTED:a:{r.randrange(1, 40)}]",
            f"email-{r.randrange(40)}@redacted.invalid",
            "[REDACTED:a:1:2]",
        ]
    )


RULE_NAMES = ["a", "a:1", "secret-field", "b\u00e9", *(f"r{i}" for i in range(140))]


def test_known_values_read_as_the_dict_of_them() -> None:
    r = random.Random(3)
    known, plain = KnownValues(), _DictKnown()
    rules = [
        Rule(name, placeholder=(lambda n, v, name=name: _placeholders(r, name)))
        if r.random() < 0.3
        else Rule(name)
        for name in RULE_NAMES
    ]
    for i in range(3000):
        rule = r.choice(rules)
        number = r.choice([i + 1, 1 << 20, 1 << 40])
        value = f"v{i}"
        state = r.getstate()
        known.add(value, rule, number)
        r.setstate(state)  # the same placeholder made for the plain one
        plain.add(value, rule, number)
    assert len(known) == len(plain)
    assert list(known) == list(plain)
    assert all(known[value] == pair and known.get(value) == pair for value, pair in plain.items())
    assert "v-1" not in known and known.get("v-1") is None


def test_a_value_met_again_gives_the_same_placeholder_string() -> None:
    """A secret repeated through a text is looked up once per place it stands: its cuts
    keep the placeholder they are given (``_pending.Cuts``), shared only if it is one
    string; made anew at each lookup, a long key dense with one secret grew 5.1 to 7.8x
    its line."""
    known = KnownValues()
    rule = Rule("generic-secret")
    known.add("hunter2x", rule, 7)
    first = known["hunter2x"][1]
    assert first == "[REDACTED:generic-secret:7]"
    for i in range(2000):  # more values looked up in between than are kept made
        known.add(f"v{i}", rule, 100 + i)
        _ = known[f"v{i}"]
        if i % 500 == 0:
            assert known["hunter2x"][1] is known.get("hunter2x")[1]  # type: ignore[index]


def _expected(rows: list[tuple[int, str | None, Hit]], columns: list[str], name: str) -> Any:
    """The report of ``rows`` (line, entry id, hit) built row by row."""
    text = pd.Series(["text"]).dtype

    def categorical(values: list[str | None]) -> pd.Categorical:
        categories = pd.Index(sorted({v for v in values if v is not None}), dtype=text)
        return pd.Categorical(values, dtype=pd.CategoricalDtype(categories))

    data = {
        "line": pd.array([line for line, _, _ in rows], dtype="int64"),
        "entry_id": categorical([entry for _, entry, _ in rows]),
        "field": pd.array([hit.field for _, _, hit in rows], dtype=text),
        "rule": categorical([hit.rule for _, _, hit in rows]),
        name: categorical([hit.placeholder for _, _, hit in rows]),
    }
    return pd.DataFrame({column: data[column] for column in columns})


def test_the_report_of_random_hits_is_built_as_row_by_row(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_report, "_CHUNK", 1000)  # rows looked up a chunk at a time
    r = random.Random(5)
    columns = HitColumns()
    replaced: list[tuple[int, str | None, Hit]] = []
    suspects: list[tuple[int, str | None, Hit]] = []
    for line in range(1, 60):
        entry = r.choice([None, "e1", f"e{line}", "\u00e9t\u00e9"])
        hits = []
        for i in range(r.choice([0, 3, 30, 300])):
            rule = SUSPECT if r.random() < 0.1 else r.choice(RULE_NAMES)
            hits.append(Hit(f"data.api_key[{i}]", rule, _placeholders(r, rule)))
        if r.random() < 0.2:  # a line walked again: its first hits forgotten
            columns.extend(hits[:7])
            columns.clear_line()
        columns.extend(hits)
        columns.close_line(line, entry)
        for hit in hits:
            (suspects if hit.rule == SUSPECT else replaced).append((line, entry, hit))
    report_columns = ["line", "entry_id", "field", "rule", "placeholder"]
    got = columns.report(report_columns)
    assert len(got) > 3000  # rows of many chunks
    pd.testing.assert_frame_equal(got, _expected(replaced, report_columns, "placeholder"))
    suspect_columns = ["line", "entry_id", "field", "reason"]
    pd.testing.assert_frame_equal(
        columns.suspect_report(suspect_columns), _expected(suspects, suspect_columns, "reason")
    )


# -- a row keeps its path's last component: the parent once for a run of rows --------------

COMMAND = "many small strings under a tool call's command"
COMMAND_PARENT = "message.content[0].arguments.command"


def _command_line(shape: str, size: int) -> str:
    """A tool call whose command is a list of many small strings (``benchmarks/
    probe_redact_memory.py``'s shape): every other one replaced, a row a 21 bytes."""
    assert shape == COMMAND
    call = {"type": "toolCall", "id": "t1", "name": "bash", "arguments": {}}
    call["arguments"] = {"command": ["ab", "pw=hunter2x"] * (size // 12)}
    message = {"role": "user", "content": [call], "timestamp": 0}
    entry = {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026"}
    return json.dumps({**entry, "message": message})


@pytest.fixture(scope="module")
def peaks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, float]]:
    """The command shape's growth per byte of line, and its report's: the bytes of the
    report returned per byte of line, at the same two sizes (``returned``)."""
    folder = tmp_path_factory.mktemp("command")
    peaks = measure(folder, [COMMAND], line=_command_line)
    sizes = [_returned(folder, size) for size in SIZES]
    peaks[COMMAND]["returned"] = (sizes[1] - sizes[0]) / peaks[COMMAND]["apart"]
    return peaks


def _returned(folder: Path, size: int) -> int:
    path = folder / f"returned-{size}.jsonl"
    path.write_text(json.dumps(HEAD) + "\n" + _command_line(COMMAND, size) + "\n")
    return returned_bytes(path)


def test_many_small_strings_under_a_command_keep_their_parent_path_once(
    peaks: dict[str, dict[str, float]],
) -> None:
    """4.0x the line when every row kept its whole path (about 45 bytes a row of 21
    bytes of line); 3.25-3.4x now, of which the report returned is itself about 3x this
    line (the path, its offset and the line's number in every row). Beyond what it
    returns, the redaction holds well within 3x."""
    got = peaks[COMMAND]
    assert got["returned"] > 2.5, got  # the shape is what it claims: a report of 3x
    beyond = {**got, "redact": got["redact"] - got["returned"]}
    assert_grew_at_most({COMMAND: beyond}, COMMAND, 3.0)
    assert_grew_at_most(peaks, COMMAND, 3.5)


def test_a_report_of_many_short_lines_is_many_times_the_longest(tmp_path: Path) -> None:
    """Why the bound is of what redaction holds beyond what it returns: the report grows
    with the file's hits, and a file of short lines dense with secrets has a report far
    over 3x its longest line."""
    path = tmp_path / "short.jsonl"
    lines = [_custom(i, "note", f"password=hunter{i}xyz token=Zq8vN2xL5pT7{i}") for i in range(500)]
    path.write_text(json.dumps(HEAD) + "\n" + "\n".join(lines) + "\n")
    longest = max(len(line) for line in lines) + 1
    assert returned_bytes(path) > 30 * longest


def _kept(table: Any) -> int:
    """The bytes a table's buffers and arrays hold (their lengths, not what is
    allocated)."""
    return sum(
        len(held) * getattr(held, "itemsize", 1)
        for held in vars(table).values()
        if isinstance(held, (bytearray, array))
    )


@pytest.mark.parametrize("depth", [1, 30])
def test_a_row_keeps_its_last_component_its_end_and_its_pair(depth: int) -> None:
    """A row of the command shape kept its whole path's bytes (about 51 bytes a row with
    its end and pair code); now what follows its last ``[`` (``12345]``), its end and
    its pair code, whatever the depth of the list it is in: the parent is kept once."""
    parent = COMMAND_PARENT + "".join(f".k{level}" for level in range(depth - 1))
    columns = HitColumns()
    for i in range(MANY):
        columns.append(Hit(f"{parent}[{i}]", "generic-secret", "[REDACTED:generic-secret:1]"))
    columns.close_line(2, "u1")
    lasts = sum(len(f"{i}]") for i in range(MANY))
    parent_run = len(parent) + 1 + 4 + 4  # its bytes and ``[``, where they end, its first row
    line_run = 8 + 4 + 8  # the line's number, its entry id's code, its last row
    assert _kept(columns.replaced) == lasts + 8 * MANY + parent_run + line_run
    assert _kept(columns.replaced) / MANY < 15


def test_a_report_is_built_once() -> None:
    columns = HitColumns()
    columns.append(Hit("data.password", "generic-secret", "[REDACTED:generic-secret:1]"))
    columns.close_line(2, "c1")
    assert len(columns.report(["line", "field"])) == 1
    with pytest.raises(RuntimeError, match="built once"):
        columns.report(["line", "field"])


# -- the oracle: the report as its rows kept their whole paths ------------------------------


class _WholePaths:
    """A table as it was: every row's whole path in one buffer."""

    built = False

    def __init__(self) -> None:
        self.fields = bytearray()
        self.ends = array("Q")
        self.pairs = array("I")
        self.run_lines = array("Q")
        self.run_ids = array("I")
        self.run_ends = array("Q")

    def __len__(self) -> int:
        return len(self.ends)

    def closed(self) -> int:
        return self.run_ends[-1] if self.run_ends else 0

    def append(self, field: str, pair: int) -> None:
        self.fields += field.encode("utf-8", "surrogatepass")
        self.ends.append(len(self.fields))
        self.pairs.append(pair)

    def truncate(self, rows: int) -> None:
        del self.fields[self.ends[rows - 1] if rows else 0 :]
        del self.ends[rows:]
        del self.pairs[rows:]

    def let_go_of_paths(self) -> None:
        pass

    close = _report._Table.close
    counts = _report._Table.counts


def _whole_fields(table: _WholePaths, rows: int) -> Any:
    """The field column as it was built: over the buffer of whole paths."""
    import pyarrow as pa

    if _report._text_dtype().storage == "pyarrow" and rows:
        offsets = array("q", [0, *table.ends[:rows]])
        whole = pa.LargeStringArray.from_buffers(
            rows, pa.py_buffer(offsets), pa.py_buffer(table.fields)
        )
        try:
            whole.validate(full=True)
        except pa.ArrowInvalid:
            pass
        else:
            return pd.arrays.ArrowStringArray(whole, dtype=_report._text_dtype())  # type: ignore[call-arg]
    starts = [0, *table.ends[: rows - 1]] if rows else []
    ends = table.ends[:rows]
    return [
        table.fields[a:b].decode("utf-8", "surrogatepass")
        for a, b in zip(starts, ends, strict=True)
    ]


class _WholeColumns(HitColumns):
    def __init__(self) -> None:
        super().__init__()
        self.replaced = _WholePaths()  # type: ignore[assignment]
        self.suspects = _WholePaths()  # type: ignore[assignment]


@pytest.fixture
def whole_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_WholeColumns`` built as they were (the rest as it is now)."""
    fields = _report._fields
    monkeypatch.setattr(
        _report,
        "_fields",
        lambda table, rows: (
            _whole_fields(table, rows) if isinstance(table, _WholePaths) else fields(table, rows)
        ),
    )


def _hostile_fields(r: random.Random, surrogates: bool) -> list[str]:
    """Paths as the walk names them: a list's items, an object's keys, keys holding
    ``.`` and ``[``, a long key abbreviated, deep ones, a bare key, non-ASCII."""
    from prime_nb.redact._entry_fields import join

    deep = ".".join(["data", *(f"k{level}" for level in range(30))])
    parents = [
        COMMAND_PARENT,
        deep,
        "data",
        "",
        join("data", "a.b[c]"),
        join("data", "x" * 300 + ".y[2]"),
        join("message", "donn\u00e9es.\u00e9t\u00e9"),
        join(join("data", "k" * 4000), "[0].z"),
    ]
    if surrogates:
        parents += [join("data", "\ud800x"), join("data", "y\udc00.")]
    fields = []
    for _ in range(r.choice([1, 5, 40])):
        parent = r.choice(parents)
        keys: list[str | int] = [r.randrange(300), "password", "a.b", "[3]", "p\u00e9", "\udfff"]
        if not surrogates:
            keys.pop()
        key = r.choice(keys)
        for _ in range(r.choice([1, 1, 3])):  # rows under one parent, one after another
            fields.append(join(parent, key) if parent or isinstance(key, str) else f"[{key}]")
            key = r.randrange(300) if isinstance(key, int) else key
    return fields


def _fed(columns: HitColumns, seed: int, surrogates: bool) -> HitColumns:
    """Random hits under hostile paths, lines walked again (forgotten at any point of a
    run of rows under one parent), suspects among them."""
    r = random.Random(seed)
    for line in range(1, 80):
        hits = [
            Hit(field, SUSPECT if r.random() < 0.1 else "generic-secret", f"[REDACTED:g:{i}]")
            for i, field in enumerate(_hostile_fields(r, surrogates) * r.choice([0, 1, 3]))
        ]
        if r.random() < 0.3:
            columns.extend(hits[: r.randrange(len(hits) + 1)])
            columns.clear_line()
        columns.extend(hits)
        columns.close_line(line, r.choice([None, "e1", f"e{line}"]))
    columns.extend(Hit(field, "generic-secret", "x") for field in _hostile_fields(r, False))
    return columns  # the last hits' line not closed: not in the report


REPORT_COLUMNS = ["line", "entry_id", "field", "rule", "placeholder"]
SUSPECT_COLUMNS = ["line", "entry_id", "field", "reason"]


@pytest.mark.parametrize("kind", ["arrow", "python", "surrogates"])
@pytest.mark.usefixtures("whole_paths")
def test_the_report_of_hostile_paths_is_as_with_whole_paths(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_report, "_JOINED", 100)  # many chunks of rows
    joined = _report._joined_in_arrow
    made: list[bool] = []  # whether each field column was joined in Arrow

    def spied(table: Any, rows: int) -> Any:
        column = None if kind == "python" else joined(table, rows)
        made.append(column is not None)
        return column

    monkeypatch.setattr(_report, "_joined_in_arrow", spied)
    surrogates = kind == "surrogates"
    now = _fed(HitColumns(), 7, surrogates)
    before = _fed(_WholeColumns(), 7, surrogates)
    assert len(now.replaced) > 1000 and len(now.suspects) > 50
    if surrogates:  # text pandas does not take: the columns as Python strings, compared
        fields = now._columns(now.replaced)["field"]
        assert fields == before._columns(before.replaced)["field"]
        assert any("\ud800" in field for field in fields)  # type: ignore[attr-defined]
        return
    report = now.report(REPORT_COLUMNS)
    pd.testing.assert_frame_equal(report, before.report(REPORT_COLUMNS))
    pd.testing.assert_frame_equal(
        now.suspect_report(SUSPECT_COLUMNS), before.suspect_report(SUSPECT_COLUMNS)
    )
    assert made == [kind == "arrow"] * 2  # not the Python strings where Arrow is asked
    assert report["field"].str.contains("\u2026").any()  # a long key abbreviated
    assert report["field"].str.contains("a.b[c]", regex=False).any()


def test_the_comparison_sees_a_run_kept_after_its_rows_are_forgotten(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A broken run bookkeeping: a line walked again keeps the parent of its forgotten
    rows as the last one's, so its next rows under it are taken for the run before."""
    truncate = _report._Table.truncate

    def kept_parent(table: Any, rows: int) -> None:
        parent, cut = table._parent, table._cut
        truncate(table, rows)
        table._parent, table._cut = parent, cut

    monkeypatch.setattr(_report._Table, "truncate", kept_parent)
    now = _fed(HitColumns(), 7, False).report(REPORT_COLUMNS)
    with monkeypatch.context() as patch:
        patch.setattr(_report, "_fields", _whole_fields)
        before = _fed(_WholeColumns(), 7, False).report(REPORT_COLUMNS)
    assert not now["field"].equals(before["field"])
