"""A rule's ``needs`` only skips texts it could not match in: the same spans with and
without it, on every string of the secret corpus and on texts made to hit each rule's
edge (a value after a bare space, a match at a text's start, a non-ASCII blank)."""

from __future__ import annotations

import base64
import dataclasses
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from more_secrets import LOOKALIKES
from redteam5_secrets import KINDS_RED5, LOOKALIKES_RED5
from secret_corpus import ORDINARY, build

from prime_nb.redact import Rule, default_rules, redact
from prime_nb.redact._assignments import (
    ASSIGNMENT,
    ASSIGNMENT_SHAPE,
    _assignment_search,
    _assignment_starts,
)
from prime_nb.redact._batch import JOINT, left_out
from prime_nb.redact._disguise import _JOINT, _LISTED
from prime_nb.redact._encodings import HEX_RUN, PERCENT, WORD_RUN, WRAP
from prime_nb.redact._engine import CHUNK
from prime_nb.redact._entry_fields import BLOCK_KEEP, ENTRY_KEEP, MESSAGE_KEEP
from prime_nb.redact._exposures import PRINTED_SECRET
from prime_nb.redact._find import percent_runs
from prime_nb.redact._generic import TRUNCATED
from prime_nb.redact._literals import HINT_PIECE, Presence, finditer, plan_of
from prime_nb.redact._prefilter import Shapes, Windows
from prime_nb.redact._rule import dispatch, dispatch_of, presence_for
from prime_nb.redact._rules import TOKEN_PREFIXES
from prime_nb.redact._suspects import _BESIDE_WORD

#: texts that reach the rules' needs from their edges
EDGES = [
    "cloudant_key 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    "ibm_cloud_api_key:abcdefghijABCDEFGHIJ0123456789abcdefghij_-AB",
    "secret_access_key=0123456789abcdef0123456789abcdef0123456789abcdef",
    "softlayer_api_key 0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqr",
    "https://api.softlayer.com/soap/v3/0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqr",
    "https://user:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef@acct.cloudant.com",
    "Authorization:\u00a0Bearer\u2003abcdefghij0123456789ABCDEF",
    "basic\u3000dXNlcjpodW50ZXIy",
    "token\u2028abcdefghijklmnop0123",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
    "smbclient-U alice%hunter2secret",
    "PWD={p@ss}",
    "db.example:5432:app:alice:hunter2",
    "--password\thunter2",
    "mysql\t-phunter2",
    "https://x.test/cb?access_token=abcdefgh12345678",
    "<password>hunter2</password>",
    'define("DB_PASSWORD", "hunter2")',
    "AKCp8abcdefghij0123456789",
    "APBabcdefgh12345678",
    "AIzaSyA0123456789abcdefghijABCDEFGHIJKL",
    "dapi0123456789abcdef0123456789abcdef",
    "cloudant_password: abcdefghijklmnopqrstuvw\u212a",
    # the fifth list's rules, each at its edge
    "insert into keys (api_key) values ('Zq8vR2mXk4LpT7wN')",
    " id | token\n----+------\n  1 | Zq8vR2mXk4LpT7wN9yB3",
    ".x.io\tTRUE\t/\tTRUE\t0\tsid\tZq8vR2mXk4LpT7wN",
    "- name: API_TOKEN\n  value: Zq8vR2mXk4LpT7wN9yB3",
    "card_pin=4821",
    "seed phrase: bako dura fime gola hupi jeko kalu lomi nupa piro rusa sito",
    "[" + ",".join(str(i * 7 % 256) for i in range(32)) + "]",
    "pbkdf2_sha256$600000$abcdefghijklmnopqrstuv$abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG=",
    "*0123456789ABCDEF0123456789ABCDEF01234567",
    "##vso[task.setvariable variable=k;issecret=true]Zq8vR2mXk4LpT7wN",
    "psexec \\\\h -p Vuka-Tebo7391 cmd",
    "cmdkey /add:h /user:u /pass:Vuka-Tebo7391",
    "net use Z: \\\\h\\s Vuka-Tebo7391 /user:u",
    "poetry config http-basic.x u Vuka-Tebo7391",
    "gh secret set K --body Zq8vR2mXk4LpT7wN",
    "-----BEGIN OpenVPN Static key V1-----\n0123abcd\n-----END OpenVPN Static key V1-----",
    "x?hdnts=exp=1~hmac=0123456789abcdef0123",
    'storePassword "Vuka-Tebo7391"',
]


#: a sample of the strings redaction never reads (ids, timestamps, types) kept among the
#: texts: thousands of them differ only in their digits
_KEPT_SAMPLE = 200


def _strings(obj: Any, kept: list[str]) -> list[str]:
    """Every key and string of ``obj``; the values of fields redaction never reads go to
    ``kept``."""
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        out: list[str] = []
        for key, value in obj.items():
            out.append(key)
            if key in _NEVER_READ and isinstance(value, str):
                kept.append(value)
            else:
                out.extend(_strings(value, kept))
        return out
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v, kept)]
    return []


_NEVER_READ = ENTRY_KEEP | MESSAGE_KEEP | BLOCK_KEEP


def _corpus_texts(path: Path) -> list[str]:
    """The distinct texts the secret corpus builds, each once: the corpus places each
    secret in many entries, and a rule's answer for a text is the same wherever it is."""
    corpus = build(path)
    fifth = [make(random.Random(5)).snippet for make in KINDS_RED5]
    texts = [*EDGES, *ORDINARY, *LOOKALIKES, *fifth, *LOOKALIKES_RED5]
    kept: list[str] = []
    for line in corpus.path.read_text(encoding="utf-8").splitlines():
        try:
            texts.extend(_strings(json.loads(line), kept))
        except ValueError:
            texts.append(line)
    distinct = list(dict.fromkeys(texts))
    seen = set(distinct)
    others = [t for t in dict.fromkeys(kept) if t not in seen]
    return distinct + random.Random(8).sample(others, min(_KEPT_SAMPLE, len(others)))


@pytest.fixture(scope="module")
def texts(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return _corpus_texts(tmp_path_factory.mktemp("needs") / "corpus.jsonl")


@dataclasses.dataclass
class Alone:
    """What each default rule finds on its own (``sorted(rule.spans(text))``) in each of
    the dispatch oracle's texts (the corpus's, then its edges), each found once: the
    oracle, the ``needs`` test and the shape oracle's test all ask it."""

    rules: list[Rule]
    texts: list[str]
    spans: list[list[list[tuple[int, int]]]]  # by rule, then by text

    def of(self, rule: Rule) -> list[list[tuple[int, int]]]:
        """``rule``'s spans, text by text: those of the default rule equal to it but for
        its shape (the same code, so the same finds: ``Rule.spans`` never reads the
        shape, which only the dispatch does)."""
        same = [
            i for i, r in enumerate(self.rules) if dataclasses.replace(r, shape=rule.shape) == rule
        ]
        assert len(same) == 1, rule.name
        return self.spans[same[0]]


@pytest.fixture(scope="module")
def alone(texts: list[str]) -> Alone:
    rules = default_rules(hostnames=["build-host-7"])
    every = [*texts, *EDGES, *DISPATCH_EDGES]
    return Alone(rules, every, [[sorted(rule.spans(t)) for t in every] for rule in rules])


def test_needs_never_changes_what_a_rule_finds(texts: list[str], alone: Alone) -> None:
    """Where a text holds what a rule needs (or starts as it may), the rule runs as it
    would without ``needs``: the same code. So the texts that matter are the others,
    which the rule skips: the rule without ``needs`` finds nothing in them either (and
    the rule itself nothing, as ``alone`` found it)."""
    rules = [rule for rule in default_rules(hostnames=[]) if rule.needs]
    assert len(rules) >= 15
    skipped = 0
    for rule in rules:
        bare = dataclasses.replace(rule, needs=())
        found = alone.of(rule)
        for i, text in enumerate(texts):
            if any(part in text for part in rule.needs) or (
                rule.starts and text.startswith(rule.starts)
            ):
                continue
            assert found[i] == [], (rule.name, text[:120])
            assert sorted(bare.spans(text)) == [], (rule.name, text[:120])
            skipped += 1
    assert skipped > 10 * len(texts)  # most rules skip most texts


def test_a_rule_does_not_read_a_text_without_what_it_needs() -> None:
    read: list[str] = []

    def finder(text: str) -> list[tuple[int, int]]:
        read.append(text)
        return [(0, 1)]

    rule = Rule("probe", finder=finder, needs=(":", "="))
    blob = base64.b64encode(random.Random(3).randbytes(3000)).decode().rstrip("=")
    assert list(rule.spans(blob)) == []
    assert list(rule.spans("a: b")) == [(0, 1)]
    assert read == ["a: b"]


def _patterns() -> list[re.Pattern[str]]:
    rules = default_rules(hostnames=["build-host-7"])
    return [*(rule.pattern for rule in rules if rule.pattern is not None), _BESIDE_WORD]


def test_literal_windows_never_change_what_a_pattern_finds(texts: list[str]) -> None:
    """Each rule's pattern, and the suspects', tried where its literals allow (see
    ``_literals``): no match in a corpus string its literals rule out (a short text is
    otherwise scanned whole), and the same matches as its scan on the corpus joined into
    a text of a mebibyte, separated by characters that ``re.IGNORECASE`` folds unlike
    ``str.lower`` (the windows)."""
    patterns = _patterns()
    assert sum(plan_of(p) is not None for p in patterns) >= 40  # nearly every pattern
    r = random.Random(4)
    seps = [" ", "\n", "", "\u0130", "\u017f", "\u212a", ":", "\u00e9"]
    joined = "".join(t + r.choice(seps) for t in r.sample(texts, len(texts)))[: 1 << 20]
    found = ruled_out = 0
    for pattern in patterns:
        for text in texts:
            if not any(True for _ in finditer(pattern, text)):
                assert pattern.search(text) is None, (pattern.pattern[:60], text[:120])
                ruled_out += 1
        want = [(m.span(), m.groups()) for m in pattern.finditer(joined)]
        got = [(m.span(), m.groups()) for m in finditer(pattern, joined)]
        assert got == want, pattern.pattern[:60]
        found += len(want)
    assert found > 1000 and ruled_out > 1000


#: texts at the dispatch's edges: a text wider than Latin-1 (the scan does not answer),
#: NULs, a lone surrogate, the Kelvin sign and long s (``re.IGNORECASE`` folds them to
#: ASCII letters, ``str.lower`` does not), a match at the text's start (``starts``)
DISPATCH_EDGES = [
    "AKCp8abcdefghij0123456789 \u00e9",
    "pass\x00word=hunter2222 \x00token: abcdefgh12345678",
    "api_\u212aey=abcdefgh12345678 \ud800",
    "SECRET_\u017fESSIONID=abcdefgh12345678",
    '\u00e9\u00e8 password = "hunter2222" \u00ff',
    "\u4e2d password: hunter2222",
]


def _dispatch_misses(
    rules: list[Rule], texts: list[str], alone: Alone
) -> tuple[list[str], int, int]:
    """The dispatch oracle: (the rules, with a text, that the dispatch left out or ran
    with its shared tests and that then found otherwise than on their own (``alone``,
    where each of ``texts`` is its text of the same number); how many spans the rules
    found; how many rules it left out)."""
    misses: list[str] = []
    found = skipped = 0
    own = [alone.of(rule) for rule in rules]
    for number, text in enumerate(texts):
        assert alone.texts[number] is text
        low = text.lower()
        presence, alive = dispatch(rules, text, low)
        running = {id(rule) for rule in alive}
        for rule, spans in zip(rules, own, strict=True):
            want = spans[number]
            got = sorted(rule.spans(text, low, presence)) if id(rule) in running else []
            if got != want:
                misses.append(f"{rule.name}: {text[:120]!r}")
            found += len(want)
            skipped += id(rule) not in running
    return misses, found, skipped


def test_dispatch_runs_every_rule_that_finds_anything(texts: list[str], alone: Alone) -> None:
    """The rules a text's one scan and its shapes' scan leave out (``_rule.dispatch``)
    find nothing in it, and those it runs, with the shared cheap tests (a ``Presence``),
    find what each finds on its own: for every distinct corpus text and the dispatch's
    edges."""
    rules = default_rules(hostnames=["build-host-7"])
    misses, found, skipped = _dispatch_misses(rules, alone.texts, alone)
    assert alone.texts == [*texts, *EDGES, *DISPATCH_EDGES]
    assert misses == []
    assert found > 1000 and skipped > 50 * len(texts)


def test_the_oracle_catches_a_shape_that_is_not_needed(texts: list[str], alone: Alone) -> None:
    """A rule given a shape its findings do not need (the ``key = value`` rule said to
    need ``=`` after its key, not ``:`` too) is left out of texts where it finds
    something, and the dispatch oracle says so (what the rule finds on its own does not
    hang on its shape, which only the dispatch reads)."""
    rule = next(r for r in default_rules(hostnames=[]) if r.shape == (ASSIGNMENT_SHAPE,))
    assert _dispatch_misses([rule], texts, alone)[0] == []
    broken = dataclasses.replace(rule, shape=(re.compile(r"(?i:pass|key|token|secret)\w*="),))
    misses, _, _ = _dispatch_misses([broken], texts, alone)
    assert any(miss.startswith("keyword-secret") for miss in misses)


#: Latin-1 texts where Python's ``\w``, ``\s`` and folding take characters that ASCII's
#: do not (a shape's necessary form must match there too)
LATIN1_EDGES = [
    "pass\u00e9_key=hunter2\u00e9\u00e9",
    "Authorization:\u00a0Bearer\u0085abcdefghij0123456789",
    "token\x1cabcdefghijklmnop0123 and -\u00e9password\u00a0hunter2",
    "export DB_PASSW\u00d6RD=abcdefghij0123456789ABCDEF",
    "x\u00aa\u00b5\u00ba\u00df\u00ff'\"'abcd",
]


#: one of which every match of ``TRUNCATED`` holds (its last group's alternatives): a
#: text without them is not searched (the search of a long run costs seconds)
_TRUNCATION_MARKS = ("truncated", "...", "\u2026")
_SHAPE_SAMPLE = 4000


def test_a_shape_never_misses_a_match(texts: list[str]) -> None:
    """Each rule's shape and the string joints' patterns, in their necessary forms
    (``_prefilter``), match in every corpus text where the Python regex does; the scan
    leaves most out of most texts."""
    rules = default_rules(hostnames=["build-host-7"])
    shaped = [shape for rule in rules for shape in rule.needed_shapes()]
    patterns = tuple(dict.fromkeys([*shaped, _JOINT, _LISTED]))
    assert len(patterns) >= 50
    db = Shapes(patterns)
    assert db.answered == frozenset(range(len(patterns)))  # every one translated
    ruled_out = 0
    # a sample of the corpus (the dispatch oracle reads all of it, rule by rule)
    sample = random.Random(9).sample(texts, min(len(texts), _SHAPE_SAMPLE))
    for text in [*sample, *EDGES, *DISPATCH_EDGES, *LATIN1_EDGES]:
        matching = db.matching(text)
        if matching is None:
            assert not text.isascii() or len(text) > CHUNK
            continue
        for i, pattern in enumerate(patterns):
            if i not in matching:
                if pattern is not TRUNCATED or any(m in text for m in _TRUNCATION_MARKS):
                    assert pattern.search(text) is None, (pattern.pattern[:60], text[:120])
                ruled_out += 1
    assert ruled_out > 40 * len(sample)


def test_a_necessary_form_reads_as_python_reads() -> None:
    """Classes are Python's (``\\w`` takes ``\u00e9``, ``\\s`` takes NBSP, ``(?i)`` folds);
    a lookbehind that starts a match and a lookahead that ends it are kept as read,
    other lookarounds dropped (a match then needs less, never more)."""
    cases = [
        (r"x\w\sy", "x\u00e9\u00a0y", "x\u00e9_y"),
        (r"(?i)bearer\s", "BeArEr\x1c", "bearer_"),
        (r"(?<=a)b(?=c)", "abc", "abd"),
        (r"(?<![a-z])k(?!x)", "kx", "j"),
        (r"(?P<q>['\"])v(?P=q)", "'v\"", "v"),
        (r"(?:(?<=\W)|(?<=^))tok", "tok", "to"),
        (r"a{40,900}", "a" * 40, "a" * 31),
        (r"x(?:\u2026|y)", "xy", "xz"),  # an alternative no Latin-1 text holds: left out
    ]
    db = Shapes(tuple(re.compile(p) for p, _, _ in cases))
    for i, (pattern, yes, no) in enumerate(cases):
        matched, unmatched = db.matching(yes), db.matching(no)
        assert matched is not None and i in matched, pattern
        assert unmatched is not None and i not in unmatched, pattern
    assert db.matching("\u4e2d" + "abc") is None  # wider than Latin-1: not answered
    assert Shapes((re.compile("\u2026"),)).answered == frozenset()  # never in Latin-1


def test_a_short_string_is_read_by_the_rules_once(tmp_path: Path) -> None:
    """Tool names, flags and short replies repeat in every entry: the rules read each
    distinct one once over both passes, not once per place and pass."""
    read: list[str] = []

    def finder(text: str) -> list[tuple[int, int]]:
        read.append(text)
        return []

    entries: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}
    ]
    for i in range(20):
        entries.append(
            {
                "type": "message",
                "id": f"m{i}",
                "parentId": entries[-1]["id"] if i else None,
                "timestamp": "2026-01-05T10:00:01Z",
                "message": {"role": "user", "content": "run the tests", "timestamp": 0},
            }
        )
    source = tmp_path / "s.jsonl"
    source.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    redact(source, tmp_path / "out.jsonl", rules=[Rule("probe", finder=finder)])
    assert read.count("run the tests") == 1


def test_a_long_texts_hints_found_in_one_pass_change_nothing(texts: list[str]) -> None:
    """A text too long to copy lower-cased has every admitted rule's hints looked for in
    one lower-casing of its pieces (``Presence.find_hints``): each rule finds what it
    finds testing its own hints, in corpus strings strewn over a long text and where the
    only hint is cut by the pieces' boundary."""
    r = random.Random(6)
    cut = 1 << 17  # a bound of the pieces (``HINT_PIECE``) and of the scan's (``CHUNK``)
    assert cut % HINT_PIECE == 0 and cut % CHUNK == 0
    # corpus strings strewn over filler (cheap to scan) and past the cut
    pieces = ["|" * 4000] * 34
    for text in r.sample(texts, 600):
        pieces.insert(r.randrange(len(pieces) + 1), text + r.choice([" ", "\n", "\u0130"]))
    strewn = "".join(pieces)
    boundary = "|" * (cut - 3) + "BeArEr abcdefghij0123456789 " + "|" * 100
    rules = default_rules(hostnames=["build-host-7"])
    for text, least in ((strewn, 100), (boundary, 1)):
        assert len(text) > cut
        presence = Presence(text, None)
        presence.find_hints([rule.hints for rule in rules if rule.hints and rule.admits(text)])
        # and every rule's needs and hints found in one scan of the text (``_engine``)
        scanned = presence_for(rules, text, None)
        found = 0
        for rule in rules:
            want = sorted(rule.spans(text))
            assert sorted(rule.spans(text, None, presence)) == want, rule.name
            assert sorted(rule.spans(text, None, scanned)) == want, rule.name
            found += len(want)
        assert found >= least


#: where the ``key = value`` pattern's windows end: a key's word at the farthest lead, a
#: quote after a long run of backslashes, words that ``re.IGNORECASE`` folds
ASSIGNMENT_EDGES = [
    " " + "x" * 79 + "pw=hunter2222",
    " " + "y" * 80 + "pw=hunter2222",
    ' "' + "q" * 79 + 'pw": "hunter2222"',
    " _" + "r" * 78 + "pw: hunter2222",
    "x " + "\\" * 20 + '"' + "k" * 70 + "x_password" + "\\" * 20 + '"' + ": hunter2222",
    "\\" * 300 + '"db_password\\\\\\":\\"hunter2\\"',
    '{\\"api_\u212aey\\": \\"abcdefgh12345678\\"}',
    "SECRET_\u017fESSIONID=abcdefgh12345678 and pat=ab pat=cd " * 40,
    "keykeykey:=value " * 500,
    # wider than Latin-1 (the scan does not answer): the words found in the folded text
    "\u4e2d DB_PASSWORD=hunter2222 \u00e9 'api_key': 'abcdefgh12345678' \u212aey=abcd",
    "\u2014 Secret_\u017fESSION=abcdefgh12345678 pw: \u0130\u0131 token\t=zzzz9999zzzz",
    "\u4e2d" + " token=abcdefgh12345678" * 40,
]


def test_assignment_starts_find_what_its_search_finds(texts: list[str]) -> None:
    """The ``key = value`` rule tries its pattern only near a secret word of its key:
    the same matches as its search, from every position the rule searches from."""
    found = 0
    for text in texts + ASSIGNMENT_EDGES:
        starts = _assignment_starts(text)
        pos = 0
        while True:
            want = ASSIGNMENT.search(text, pos)
            got = _assignment_search(text, pos, starts)
            assert (got and (got.span(), got.groups())) == (
                want and (want.span(), want.groups())
            ), text[:120]
            if want is None:
                break
            found += 1
            pos = want.end("op")
    assert found > 200


#: string literals joined as code joins them, at a text's edges and beside Latin-1 letters
JOINT_EDGES = [
    'x = "abcd" + "efgh"',
    '"abcd""efgh"',
    "f\"{'abcd'}\" and ${'wxyz'}",
    '"".join(["abcd", "efgh"])',
    'KEY = (\n    "abcd"\n    f"efgh"\n)',
    "\u00e9" * 4 + '" .. "' + "\u00e0" * 4 + " " + "\u00b5" * 4 + "'\\\n'" + "\u00ff" * 4,
    "'abcd' + 'efgh' " * 300,
]


def test_windows_find_what_the_scan_finds(texts: list[str]) -> None:
    """A pattern tried only within its necessary form's matches (``Windows``) finds
    what its own scan finds: the string joints' patterns and a few rules' (lookarounds
    at both edges, back-references, long repeats), on a sample of the corpus and texts
    made to hold joints."""
    patterns = [_JOINT, _LISTED, WRAP, HEX_RUN, ASSIGNMENT, PRINTED_SECRET, TOKEN_PREFIXES]
    patterns.append(TRUNCATED)
    sample = random.Random(10).sample(texts, min(len(texts), _SHAPE_SAMPLE))
    found = 0
    for pattern in patterns:
        windowed = Windows(pattern)
        for text in [*sample, *JOINT_EDGES, *LATIN1_EDGES, *EDGES]:
            if pattern is TRUNCATED and not any(m in text for m in _TRUNCATION_MARKS):
                continue
            want = [(m.span(), m.groups()) for m in pattern.finditer(text)]
            assert [(m.span(), m.groups()) for m in windowed.finditer(text)] == want, text[:120]
            found += len(want)
    assert found > 300


#: percent escapes at a text's edges, beside quotes and blanks, doubled and cut
PERCENT_EDGES = [
    "%41",
    "a%41b c%4 d%%41 'e%41'f <g%41h> %41%42",
    "x\u00a0%41\u2003y\u3000%4G%41",
    "%2541" + "%" * 50 + "z%41",
    "no escape here % 4",
]


def test_percent_runs_are_the_words_that_hold_an_escape(texts: list[str]) -> None:
    """The percent-encoded runs, found from their escapes, are the ``WORD_RUN`` matches
    that hold a ``PERCENT`` match, in order: on the corpus and texts made to cut them."""
    found = 0
    for text in [*texts, *PERCENT_EDGES]:
        if "%" not in text:
            continue
        want = [m.span() for m in WORD_RUN.finditer(text) if PERCENT.search(m.group())]
        assert list(percent_runs(text)) == want, text[:120]
        found += len(want)
    assert found > 100


#: strings at the joint's edges: NUL (the joint) in a string, a rule's ``starts`` at a
#: string's start (a gate reads only that), a string wider than Latin-1 among narrow ones
BATCH_EDGES = [
    "k1",
    "a\x00b",
    "AKCp8abcdefghij0123456789",
    "APBabcdefgh12345678",
    "\u4e2d",
    "role",
    "ghp_",
    "pass",
    "=",
    "word\x00=hunter2222",
]


def test_strings_dispatched_together_are_left_out_only_where_alone_they_are(
    texts: list[str],
) -> None:
    """``_batch.left_out`` (an object's keys and short strings in one scan of them
    joined): every string it leaves out has every rule left out when dispatched alone,
    which the dispatch oracle above proves finds nothing; over the corpus's short
    strings in a random order, and the joint's edges among them."""
    rules = default_rules(hostnames=["build-host-7"])
    short = [t for t in texts if len(t) < 64]
    assert len(short) > 1000
    alone = {t for t in [*short, *BATCH_EDGES] if not dispatch(rules, t, t.lower())[1]}
    mixed = random.Random(0).sample(short, len(short))
    for i, edge in enumerate(BATCH_EDGES):
        mixed.insert(7 * i + 3, edge)
    out = left_out(rules, mixed)
    assert set(out) <= alone, sorted(set(out) - alone)[:5]
    assert len(set(out)) >= 0.95 * len(alone & set(mixed))  # nearly all
    for edge in ("AKCp8abcdefghij0123456789", "APBabcdefgh12345678", "\u4e2d"):
        assert edge not in left_out(rules, ["k1", "k2", "k3", "k4", "k5", edge])


def test_the_batch_oracle_catches_a_batch_that_ignores_starts() -> None:
    """A batch that took the joined text's start for every string's (no test of each
    string's start) would leave out Artifactory's ``AKCp...`` alone on its line: its
    rule opens by the text's start, not by a literal; the check above says so."""
    rules = default_rules(hostnames=[])
    known = dispatch_of(rules)
    batch = ["k1", "k2", "k3", "k4", "k5", "AKCp8abcdefghij0123456789"]
    joined = JOINT.join(batch)
    found = known.primer.engine.present(joined)
    matching = known.shapes.matching(joined)
    assert found is not None and matching is not None
    naive = batch if not known.alive(joined, found, matching) else []
    alone = {t for t in batch if not dispatch(rules, t, t.lower())[1]}
    assert not set(naive) <= alone
    assert set(left_out(rules, batch)) <= alone
