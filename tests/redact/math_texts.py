"""Texts with mathematical letters (``U+1D400`` block), which ``_narrow_math.math_fold``
narrows to letters of Latin-1 whose fold is the letter's, for the oracles of
``test_narrowed_text.py`` and ``test_narrowed_math.py``.
"""

from __future__ import annotations

import unicodedata


def math_letters(word: str, style: str = "BOLD") -> str:
    """``word``'s letters as mathematical letters of ``style`` (bold where the style has
    none in the block: script ``B`` is in the Letterlike block)."""

    def letter(char: str) -> str:
        if not char.isascii() or not char.isalpha():
            return char
        case = "CAPITAL" if char.isupper() else "SMALL"
        try:
            return unicodedata.lookup(f"MATHEMATICAL {style} {case} {char.upper()}")
        except KeyError:
            return unicodedata.lookup(f"MATHEMATICAL BOLD {case} {char.upper()}")

    return "".join(map(letter, word))


#: a key whose case tells whether its value is a password (``_generic.SPACED_PAIR``): its
#: last letter upper case, so the value is kept
CASED = "notes\npassword" + math_letters("X") + " hunter2xyz\nmore words here"
#: texts with mathematical letters, narrowed to letters of Latin-1 whose fold is the
#: letter's (``_narrow_math.math_fold``): a key, a secret and a token written in them in every
#: style, upper and lower case, beside Latin-1 letters, beside the partner of a stand-in,
#: in views the disguise finder copies them into (a line continued, literals joined, a
#: hidden mark), more kinds than pairs of Latin-1 (letters of two bytes stand in), and
#: those read whole (a digit, a Latin-1 letter decoded where it is a stand-in)
MATH = [
    math_letters("password") + "=hunter2xyz and then some plain words \u2019s",
    math_letters("API", "ITALIC")
    + "_"
    + math_letters("KEY", "ITALIC")
    + ": Zq8vN2xL5pT7rWk3J9mB4c 😀 end",
    "password=" + math_letters("ZqvNxLpTrWkJmBcYhD", "SCRIPT") + " then more words",
    "token " + math_letters("ZqvNxLpTrWkJmBcYhDfGsAeR", "FRAKTUR") + " and the rest",
    math_letters("secret", "DOUBLE-STRUCK") + ": Zq8vN2xL5pT7rWk3 in double-struck letters",
    "caf\u00e9 na\u00efve " + math_letters("Password", "BOLD SCRIPT") + "=hunter2xyz \u00dcber",
    "\u00c0 \u00e1 " + math_letters("a") + " password=hunter2xyz (a stand-in's partner in it)",
    "passwd: " + math_letters("Entry", "SANS-SERIF") + " for user www-data updated",
    math_letters("pass") + "\\\n  " + math_letters("word") + "=hunter2xyz (a line continued)",
    '"' + math_letters("pass") + '" "' + math_letters("word") + '=hunter2xyz" (literals joined)',
    math_letters("pass") + "\u200b" + math_letters("word") + "=hunter2xyz (a hidden mark)",
    CASED,
    'and client.run("' + math_letters("Qm", "MONOSPACE") + '9vdHN0cmFwVG9rZW5Yd3Z6UXA4") end',
    math_letters("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef") + " password=hunter2xyz (pairs of the BMP)",
    math_letters("AbCdEfGhIjKlMnOpQrStUvWxYz", "ITALIC")
    + math_letters(" password", "SCRIPT")
    + "=Zq8vN2xL5pT7rWk3 (pairs of the BMP too)",
    "password=\U0001d7cf\U0001d7d0\U0001d7d1 hunter (a mathematical digit: whole)",
    math_letters("a") + " p&#224;ssword=hunter2xyz &amp; more (a stand-in decoded)",
]
