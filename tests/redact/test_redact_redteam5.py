"""The fifth attack list: every new kind in every place, every kind in every new place.

One session (``build``) holds each kind of ``redteam5_secrets`` in every place of the
corpus and in the new ones, and every older kind in the new places; it is redacted once.
The new encodings are ones the shared leak check does not read (UTF-16, ``hexdump -C``,
``od -c``, a wrapped table, a Node ``Buffer``, octal escapes, git's base85), so each line
of those places is also read back here as its tool wrote it: a test of the file that
could not see a survivor would pass on any code. The raw file must show every planted
secret (the check finds what it looks for); the redacted one none.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from leak_check import LeakIndex
from redteam3_secrets import LOOKALIKES_RED3
from redteam5_places import (
    _GIT85,
    ENCODINGS_RED5,
    STRUCTURE_RED5,
    base64_wrapped,
    hexdump_canonical,
    node_buffer,
    octal_escapes,
    od_chars,
    table_wrapped,
    utf16_base64,
    utf16_hex,
)
from redteam5_secrets import KINDS_RED5, LOOKALIKES_RED5
from same_shape import same_shape
from secret_corpus import KINDS, LOOKALIKE_PLACES, ORDINARY, PLACES, _cut, _Session, pieces
from secret_kinds import Planted

from prime_nb.redact import Redaction, redact


def _shown_as(encode: Callable[[str], str]) -> Callable[[Any, str], int]:
    """A tool result that shows the snippet as ``encode`` writes it."""
    return lambda s, t: s.result(encode(t))


NEW_PLACES: dict[str, Callable[[Any, str], int]] = {
    **{name: _shown_as(encode) for name, encode in ENCODINGS_RED5.items()},
    **STRUCTURE_RED5,
}


# -- reading the new encodings back --------------------------------------------------


def _b64(run: str) -> bytes:
    run = re.sub(r"[^A-Za-z0-9+/]", "", run)
    try:
        return base64.b64decode(run + "=" * (-len(run) % 4))
    except ValueError:
        return b""


def _read_utf16_base64(text: str) -> str:
    return "\n".join(
        _b64(m.group(1)).decode("utf-16-le", "replace")
        for m in re.finditer(r"EncodedCommand (\S+)", text)
    )


def _read_utf16_hex(text: str) -> str:
    digits = "".join(re.findall(r"\b[0-9a-f]{2}\b", text))
    return bytes.fromhex(digits[: len(digits) // 4 * 4]).decode("utf-16-le", "replace")


def _read_hexdump(text: str) -> str:
    rows = re.findall(r"^[0-9a-f]{8}  ((?:[0-9a-f]{2} ?)+)\s+\|(.*)\|$", text, re.M)
    raw = bytes.fromhex("".join(hexes.replace(" ", "") for hexes, _ in rows))
    return raw.decode("utf-8", "replace") + "\n" + "".join(shown for _, shown in rows)


def _read_od(text: str) -> str:
    raw = bytearray()
    for line in text.split("\n")[1:]:
        body = line[7:]
        for at in range(0, len(body), 4):
            cell = body[at : at + 4].strip() or " "
            cell = {"\\n": "\n", "\\t": "\t", "\\r": "\r"}.get(cell, cell)
            raw += bytes([int(cell, 8) % 256]) if re.fullmatch(r"[0-7]{3}", cell) else cell.encode()
    return raw.decode("utf-8", "replace")


def _read_base64_lines(text: str) -> str:
    return _b64("".join(text.split("\n")[1:])).decode("utf-8", "replace")


def _read_table(text: str) -> str:
    cells = [row.split("│")[2][1:25] for row in text.split("\n") if row.count("│") >= 3]
    return "".join(cells)


def _read_buffer(text: str) -> str:
    return bytes(int(n) % 256 for n in re.findall(r"\d+", text)).decode("utf-8", "replace")


def _read_octal(text: str) -> str:
    return bytes(int(n, 8) % 256 for n in re.findall(r"\\([0-7]{3})", text)).decode(
        "utf-8", "replace"
    )


def _read_git85(text: str) -> str:
    raw = b""
    for line in re.findall(r"^[A-Za-z]([0-9A-Za-z!#$%&()*+\-;<=>?@^_`{|}~]{5,})$", text, re.M):
        for at in range(0, len(line) - 4, 5):
            n = 0
            for c in line[at : at + 5]:
                n = n * 85 + _GIT85.index(c)
            raw += (n % 2**32).to_bytes(4, "big")
    out = zlib.decompressobj()
    try:
        return out.decompress(raw).decode("utf-8", "replace")
    except zlib.error:
        return ""


READ_BACK: dict[str, Callable[[str], str]] = {
    "utf16-base64": _read_utf16_base64,
    "utf16-hex": _read_utf16_hex,
    "hexdump-canonical": _read_hexdump,
    "od-chars": _read_od,
    "base64-wrapped": _read_base64_lines,
    "table-wrapped": _read_table,
    "node-buffer-json": _read_buffer,
    "octal-escapes": _read_octal,
    "git-binary-patch": _read_git85,
}


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


# -- the session ----------------------------------------------------------------------------


#: kinds no rule finds, and why: each would take a guess from randomness alone, which goes
#: to the suspects (when a secret's word is near) and is never replaced silently
STILL_SURVIVE = {
    "razorpay-auth-tuple": "a secret given by position to a call",
    "twilio-client-positional": "a secret given by position to a call",
    "discord-bot-token": "a secret given by position to a call",
    "ably-key": "a secret given by position to a call",
    "hardhat-accounts-key": "a key in a list under a name that says nothing",
    "composer-github-oauth": "a value under a host name",
    "object-key-token": "a random object key",
    "flask-session-cookie": "a cookie in a Python dict",
    "msa-refresh-token": "a prefix no rule knows, not set apart",
    "nostr-nsec": "a prefix no rule knows, not set apart",
    "plaid-access-token": "a prefix no rule knows before a UUID",
    "askpass-script": "a password an askpass script prints",
    "gitlab-variable-form": "a name and its value in two --form fields",
}
#: a place planted apart from the turn of the older kinds through the new places (which
#: this seed's misses below are of): a tool call's id and name, and its result's id
ID_PLACES = {"tool-call-id-name"}
_FLAT = "lines flattened into a wrapped table cell: the rules that read lines find nothing"
#: placements of this seed that survive, and why (the docs say so too)
KNOWN_MISSES = {
    **{
        f"table-wrapped/{kind}": _FLAT
        for kind in (
            "fastlane-session-cookie",
            "keychain-print",
            "wrapped-github",
            "k8s-env-name-value",
            "kubectl-decoded-secret",
            "netscape-cookie-jar",
            "psql-table-token",
        )
    },
    "shell-continuation/openvpn-static-key": "a line continuation inside a key block",
    "shell-continuation/wallet-mnemonic": "a line continuation inside a phrase",
    "cut-mid-secret/wallet-mnemonic": "a phrase cut short has too few words to tell",
    "thinking/k8s-env-name-value": "a random value without a digit, named by no word",
}


@dataclass
class Attack:
    path: Path
    #: (place, kind, planted, 1-based line)
    planted: list[tuple[str, str, Planted, int]] = field(default_factory=list)
    lookalikes: dict[str, list[int]] = field(default_factory=dict)


def _write(attack: Attack, session: _Session, title: list[str]) -> Attack:
    head = {
        "type": "session",
        "version": 3,
        "id": "5e7a3c0b-9f4e-4a62-8a14-c7f3b2d6e905",
        "timestamp": "2026-01-05T10:00:00.000Z",
        "cwd": "/srv/app",
        "title": "\n\n".join(title),
    }
    lines = [json.dumps(head, ensure_ascii=False), *session.lines]
    attack.path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return attack


def _plant(attack: Attack, session: _Session, place: str, make: Any, r: random.Random) -> None:
    item = make(r)
    snippet = _cut(item) if place == "cut-mid-secret" else item.snippet
    line = {**PLACES, **NEW_PLACES}[place](session, snippet)
    attack.planted.append((place, item.kind, item, line + 1))


def _kind(make: Any) -> str:
    return str(make(random.Random(0)).kind)


def build(path: Path, seed: int = 55) -> Attack:
    """Each new kind the rules find in every place and in the header; each older kind in
    two of the new places (in turn); the look-alikes in the corpus's places."""
    r = random.Random(seed)
    attack, session, title = Attack(path), _Session(), []
    found = [make for make in KINDS_RED5 if _kind(make) not in STILL_SURVIVE]
    places = [p for p in [*PLACES, *NEW_PLACES] if p not in ID_PLACES]
    for place in places:
        for make in found:
            _plant(attack, session, place, make, r)
    new = [p for p in NEW_PLACES if p not in ID_PLACES]
    for n, make in enumerate(KINDS):
        for k in range(2):
            _plant(attack, session, new[(2 * n + k) % len(new)], make, r)
    ids = random.Random(seed + 1)
    for place in ID_PLACES:
        for make in [*found, *KINDS[::4]]:
            _plant(attack, session, place, make, ids)
    for make in found:
        item = make(r)
        title.append(item.snippet)
        attack.planted.append(("header-title", item.kind, item, 1))
    for lookalike in LOOKALIKES_RED5:
        for where in LOOKALIKE_PLACES:
            attack.lookalikes.setdefault(lookalike, []).append(
                PLACES[where](session, lookalike) + 1
            )
    return _write(attack, session, title)


def build_surviving(path: Path, seed: int = 56) -> Attack:
    """What still survives, apart (a survivor's piece must not be taken for another's):
    each kind of ``STILL_SURVIVE`` as a user's text and as a tool call's id."""
    r, ids = random.Random(seed), random.Random(seed + 1)
    attack, session = Attack(path), _Session()
    for make in KINDS_RED5:
        if _kind(make) in STILL_SURVIVE:
            _plant(attack, session, "user-text", make, r)
            _plant(attack, session, "tool-call-id-name", make, ids)
    return _write(attack, session, [])


BENIGN = set(
    pieces(
        "\n".join(
            [*ORDINARY, *LOOKALIKES_RED3, *LOOKALIKES_RED5, *(f"n{n:05d}zq" for n in range(40000))]
        )
    )
)


@pytest.fixture(scope="module")
def attack(tmp_path_factory: pytest.TempPathFactory) -> Attack:
    return build(tmp_path_factory.mktemp("red5") / "attack.jsonl")


@pytest.fixture(scope="module")
def redacted(attack: Attack) -> Redaction:
    return redact(attack.path, attack.path.with_name("out.jsonl"), hostnames=[])


def survivors(attack: Attack, text: str) -> list[str]:
    """``place/kind`` of each planted secret that ``text`` (a file's lines) still shows,
    as written, as the shared check decodes it, or as its new place's tool wrote it."""
    lines = text.split("\n")
    planted = [(f"{p}/{k}", item.whole, item.random) for p, k, item, _ in attack.planted]
    index = LeakIndex.build(planted, BENIGN)
    found = set(index.leaks(text))
    extra = []
    for place, _, _, line in attack.planted:
        if place in READ_BACK and line <= len(lines):
            try:
                value = json.loads(lines[line - 1])
            except ValueError:
                continue
            extra.append("\n".join(READ_BACK[place](s) for s in _strings(value)))
    found |= set(index.leaks("\n".join(extra)))
    return sorted({f.split(":")[0] for f in found})


def test_the_list_holds_what_no_list_did() -> None:
    from more_secrets import LOOKALIKES
    from redteam_secrets import LOOKALIKES_MORE

    older = {make(random.Random(0)).kind for make in KINDS}
    new = {make(random.Random(0)).kind for make in KINDS_RED5}
    assert len(new) == len(KINDS_RED5) >= 40 and not new & older
    assert len(NEW_PLACES) >= 10 and not set(NEW_PLACES) & set(PLACES)
    assert len(LOOKALIKES_RED5) >= 40
    assert not set(LOOKALIKES_RED5) & {*LOOKALIKES, *LOOKALIKES_MORE, *LOOKALIKES_RED3}


@pytest.mark.parametrize(
    ("encode", "read"),
    [
        (utf16_base64, _read_utf16_base64),
        (utf16_hex, _read_utf16_hex),
        (hexdump_canonical, _read_hexdump),
        (od_chars, _read_od),
        (base64_wrapped, _read_base64_lines),
        (table_wrapped, lambda t: _read_table(t).rstrip()),
        (node_buffer, _read_buffer),
        (octal_escapes, _read_octal),
    ],
)
def test_each_encoding_reads_back(encode: Callable[[str], str], read: Callable[[str], str]) -> None:
    text = "token: Zq8vR2mXk4 LpT7wN9yB3cF6hJ1dG5sAe é\tend"
    assert text in read(encode(text)) or text.replace("\t", " ") in read(encode(text))


def test_the_raw_file_shows_every_planted_secret(attack: Attack) -> None:
    """The check finds each secret of the new places as their tools wrote it (the shared
    check's own test covers the corpus's places): the lines of the others are left
    blank, so that this costs what the new places do."""
    new = [item for item in attack.planted if item[0] in NEW_PLACES]
    keep = {line for *_, line in new}
    raw = attack.path.read_text("utf-8").split("\n")
    text = "\n".join(line if n in keep else "" for n, line in enumerate(raw, 1))
    assert len(survivors(Attack(attack.path, new), text)) == len({f"{p}/{k}" for p, k, *_ in new})


def test_no_secret_survives(attack: Attack, redacted: Redaction) -> None:
    out, report = redacted
    assert out is not None
    left = survivors(attack, out.read_text("utf-8"))
    assert set(left) == set(KNOWN_MISSES), sorted(set(left) ^ set(KNOWN_MISSES))
    assert survivors(attack, report.to_csv() + redacted.suspects.to_csv()) == []


def test_what_still_survives_is_what_the_docs_say(tmp_path: Path) -> None:
    """The kinds no rule finds survive as a user's text and as a tool call's id: if a
    rule comes to find one, this list (and the docs) must say so."""
    attack = build_surviving(tmp_path / "surviving.jsonl")
    out = redact(attack.path, tmp_path / "out.jsonl", hostnames=[]).path
    assert out is not None
    left = set(survivors(attack, out.read_text("utf-8")))
    places = ("user-text", "tool-call-id-name")
    assert left == {f"{place}/{kind}" for kind in STILL_SURVIVE for place in places}


def test_every_call_keeps_its_result(attack: Attack, redacted: Redaction) -> None:
    """A secret in a call's id is replaced in its result's ``toolCallId`` the same way:
    every result still finds its call (by position) and the tree is the same."""
    assert redacted.path is not None
    renamed = same_shape(attack.path, redacted.path)
    assert all(old == new for old, new in renamed.items())  # no entry id held a secret
    ids = [n for place, _, _, n in attack.planted if place in ID_PLACES]
    before = attack.path.read_text("utf-8").split("\n")
    after = redacted.path.read_text("utf-8").split("\n")

    def call_id(line: str) -> str:
        return str(json.loads(line)["message"]["content"][0]["id"])

    assert len(ids) > 60 and all(call_id(before[n - 1]) != call_id(after[n - 1]) for n in ids)


def test_lookalikes_stay(attack: Attack, redacted: Redaction) -> None:
    before = attack.path.read_text("utf-8").split("\n")
    after = redacted.path.read_text("utf-8").split("\n")  # type: ignore[union-attr]
    placed = [(s, n) for s, numbers in attack.lookalikes.items() for n in numbers]
    changed = [s for s, n in placed if before[n - 1] != after[n - 1]]
    assert len(changed) <= len(placed) / 80, sorted(set(changed))


def _token(n: int) -> str:
    """A random token of its own for case ``n``: a value found in one case would be
    replaced in every other (strongly random values are hunted through the file)."""
    r = random.Random(n)
    return "".join(r.choice(string.ascii_letters + string.digits) for _ in range(32))


def _password_of(n: int) -> str:
    r = random.Random(1000 + n)
    word = "".join(r.choice("bdfgkmnprstvz") + r.choice("aeiou") for _ in range(2))
    return f"{word.title()}-{r.randrange(1000, 9999)}"


_T1, _P1 = _token(1), _password_of(1)
_T2, _P2 = _token(2), _password_of(2)
_T3, _P3 = _token(3), _password_of(3)
_T4, _P4 = _token(4), _password_of(4)
_T5, _P5 = _token(5), _password_of(5)
_T6, _P6 = _token(6), _password_of(6)
_T7, _P7 = _token(7), _password_of(7)
_T8, _P8 = _token(8), _password_of(8)
_T9, _P9 = _token(9), _password_of(9)
_T10, _P10 = _token(10), _password_of(10)
_T11, _P11 = _token(11), _password_of(11)
_T12, _P12 = _token(12), _password_of(12)
_T13, _P13 = _token(13), _password_of(13)
_T14, _P14 = _token(14), _password_of(14)
_T15, _P15 = _token(15), _password_of(15)
_T16, _P16 = _token(16), _password_of(16)
_T17, _P17 = _token(17), _password_of(17)
_T18, _P18 = _token(18), _password_of(18)
_T19, _P19 = _token(19), _password_of(19)
_T20, _P20 = _token(20), _password_of(20)
_T21, _P21 = _token(21), _password_of(21)
_T22, _P22 = _token(22), _password_of(22)
_T23, _P23 = _token(23), _password_of(23)
_T24, _P24 = _token(24), _password_of(24)
_T25, _P25 = _token(25), _password_of(25)
_T26, _P26 = _token(26), _password_of(26)
_T27, _P27 = _token(27), _password_of(27)
_T28, _P28 = _token(28), _password_of(28)
_T29, _P29 = _token(29), _password_of(29)


#: each new detector on its own: (what, text, the secret that must go)
SHAPES = [
    ("powershell", utf16_base64(f"$env:API_TOKEN='{_T1}'"), None),
    ("utf-16 hex", utf16_hex(f"API_TOKEN={_T2}"), None),
    ("hexdump", hexdump_canonical(f"API_TOKEN={_T3}"), _T3[:16]),
    ("od", od_chars(f"API_TOKEN={_T4}"), None),
    ("octal", octal_escapes(f"API_TOKEN={_T5}"), None),
    ("buffer", node_buffer(f"API_TOKEN={_T6}"), None),
    ("box table", table_wrapped(f"API_TOKEN={_T7}"), _T7[:14]),
    ("insert", f"INSERT INTO api_keys (id, key) VALUES (7, '{_T8}');", _T8),
    ("psql", f" id | token\n----+------\n  7 | {_T9}\n(1 row)", _T9),
    ("cookie jar", f".app.io\tTRUE\t/\tTRUE\t0\tsessionid\t{_T10}", _T10),
    ("yaml pair", f"- name: STRIPE_SIGNING\n  value: {_T11}", _T11),
    ("har pair", f'{{"name": "X-Vault-Token", "value": "{_T12}"}} in the log', _T12),
    ("pin", '{"transaction_pin": 93715284}', "93715284"),
    ("mnemonic", "mnemonic: bako dura fime gola hupi jeko kalu lomi nupa piro rusa sito", "hupi"),
    ("byte key", "[" + ",".join(str(i * 37 % 256) for i in range(64)) + "]", "37,74,111"),
    ("django hash", f"pbkdf2_sha256$600000$abcdefghijklmnopqrstuv${_T16}=", _T16),
    ("scram", f"SCRAM-SHA-256$4096:c2FsdHNhbHQ=${_T17}=:{_T17[::-1]}=", _T17),
    ("mysql hash", "| root | *6BB4837EB74329105EE4568DDA7DC67ED2CA2AD9 |", "6BB4837EB743"),
    ("vso", f"##vso[task.setvariable variable=k;issecret=true]{_T19}", _T19),
    ("psexec", f"psexec \\\\srv -u ci -p {_P20} cmd", _P20),
    ("schtasks", f"schtasks /create /tn x /ru svc /rp {_P21}", _P21),
    ("cmdkey", f"cmdkey /add:srv /user:ci /pass:{_P22}", _P22),
    ("net use", f"net use Z: \\\\srv\\share {_P23} /user:ci", _P23),
    ("poetry", f"poetry config http-basic.internal ci {_P24}", _P24),
    ("gh secret", f'gh secret set DEPLOY --body "{_T25}"', _T25),
    ("apksigner", f"apksigner sign --ks a.jks --ks-pass pass:{_P26} a.apk", _P26),
    ("gradle", f'    storePassword "{_P27}"', _P27),
    (
        "openvpn",
        f"-----BEGIN OpenVPN Static key V1-----\n{_T28}\n-----END OpenVPN Static key V1-----",
        _T28,
    ),
    ("akamai", f"https://m.example.net/a.m3u8?hdnts=exp=1~acl=/*~hmac={_T29}", _T29),
]

#: beside them, what must stay
KEPT = [
    "apksigner sign --ks a.jks --ks-pass env:KS_PASS a.apk",
    "password_encryption = scram-sha-256",
    "secret_scanning: enabled",
    "- name: LOG_LEVEL\n  value: debug",
    "DataLoader(ds, pin_memory=True)",
    "mnemonic: LDR r0, [r1, #4]",
    " id | name | token_count\n----+------+------------\n  7 | ci   |        1532",
    "INSERT INTO users (id, password_hash) VALUES (1, NULL);",
    # lists of bytes that are data: a range, a row of pixels, a histogram's bins (a list
    # alone on its line, as a key file printed, is replaced when its steps vary)
    str(list(range(32))),
    "row 3: " + str([i * 53 % 251 for i in range(32)]),
    "counts per bin: " + str([i * 29 % 199 for i in range(64)]) + ", total 6,342",
]


@pytest.fixture(scope="module")
def shapes(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    folder = tmp_path_factory.mktemp("shapes")
    head = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}
    lines = [json.dumps(head)]
    for n, text in enumerate([t for _, t, _ in SHAPES] + KEPT):
        message = {"role": "user", "content": text, "timestamp": 0}
        lines.append(
            json.dumps({"type": "message", "id": f"e{n}", "parentId": None, "message": message})
        )
    (folder / "s.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = redact(folder / "s.jsonl", folder / "out.jsonl", hostnames=[]).path
    assert out is not None
    return [json.loads(line)["message"]["content"] for line in out.read_text().splitlines()[1:]]


@pytest.mark.parametrize(("what", "index"), [(s[0], i) for i, s in enumerate(SHAPES)])
def test_each_new_detector_replaces_its_shape(shapes: list[str], what: str, index: int) -> None:
    _, text, secret = SHAPES[index]
    assert shapes[index] != text, what
    if secret is not None:
        assert secret not in shapes[index], (what, shapes[index])


@pytest.mark.parametrize("text", KEPT)
def test_look_alikes_beside_them_stay(shapes: list[str], text: str) -> None:
    assert shapes[len(SHAPES) + KEPT.index(text)] == text
