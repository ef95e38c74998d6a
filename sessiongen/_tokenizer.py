"""A local stand-in for the tokenizer Inspect counts tokens with, for offline runs.

Why: Inspect's token counter (which Scout's LLM scanners call to fit a transcript into
the model's window) loads tiktoken's ``o200k_base``, and tiktoken downloads that file on
first use. Tests, notebooks run in CI and benchmarks have no network, so they register a
byte-level encoding under that name first: one token per byte, which over-counts, the
safe side for fitting a window. A real run with network needs none of this.
"""

from __future__ import annotations

ENCODING = "o200k_base"


def use_local_tokenizer() -> None:
    """Make ``tiktoken.get_encoding("o200k_base")`` a local byte-level encoding."""
    import tiktoken
    import tiktoken.registry

    ranks = {bytes([byte]): byte for byte in range(256)}
    local = tiktoken.Encoding(
        name=ENCODING, pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={}
    )
    tiktoken.registry.ENCODINGS[ENCODING] = local
