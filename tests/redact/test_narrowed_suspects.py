"""The suspects of a narrowed text's new text, read narrowed (``_long_scrub.py``), are
those of the text itself: every suspect pattern reads a stand-in as it reads the wide
character it stands for (``_narrow.alike``), on random texts whose tokens, quotes and
secret words stand beside emoji, curly quotes and dashes."""

from __future__ import annotations

import random
import string

from prime_nb.redact._narrow import narrowed_in_place
from prime_nb.redact._pending import new_pieces
from prime_nb.redact._suspects import suspects_of_pieces

_WIDE = ["\U0001f600", "\u2019", "\u201c", "\u201d", "\u2014", "\u2022", "\u2705", "\ufe0f"]


def _token(r: random.Random, n: int = 32) -> str:
    return "".join(r.choices(string.ascii_letters + string.digits, k=n))


def _snippet(r: random.Random) -> str:
    wide = r.choice(_WIDE)
    return r.choice(
        [
            f"api key{wide} {_token(r)} ",
            f"the password{wide}{_token(r)}{wide} ",
            f'call("{_token(r)}", x){wide} ',
            f'{{"{_token(r)}": 1}}{wide}',
            f"\u201c{_token(r)}\u201d ",
            f'accounts: ["0x{r.randbytes(32).hex()}"]{wide} ',
            f"{wide}nsec1{''.join(r.choices('023456789acdefghjklmnpqrstuvwxyz', k=58))} ",
            f"session={wide}{_token(r, 40)} ",
            f"[REDACTED:x:1]{wide}{_token(r, 50)} ",
            f"plain words {wide} and more, ",
        ]
    )


def test_the_narrowed_new_text_has_the_text_s_suspects() -> None:
    r = random.Random(43)
    found = 0
    for _ in range(12):
        text = "".join(_snippet(r) for _ in range(r.randrange(40, 200)))
        buffer = bytearray(text.encode("utf-8"))
        narrowed = narrowed_in_place(memoryview(buffer), 0, len(buffer))
        assert narrowed is not None
        starts = sorted(r.sample(range(len(text) - 40), 6))
        cuts = [(a, a + r.randrange(1, 30), "[REDACTED:x:1]") for a in starts[::2]]
        want = list(suspects_of_pieces(list(new_pieces(narrowed, cuts))))
        got = list(suspects_of_pieces(list(new_pieces(narrowed.narrow, cuts))))
        assert got == want
        found += len(want)
    assert found > 100
