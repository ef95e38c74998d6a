"""``python -m prime_nb.datasets``: regenerate the bundled demo session."""

from . import main

main()
