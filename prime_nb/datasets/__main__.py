"""``python -m prime_nb.datasets`` used to regenerate the demo session: say where that went."""

raise SystemExit(
    "the demo session's generator left the package: from the root of a checkout of "
    "prime_nb, run `python -m sessiongen` to regenerate it"
)
