"""``python -m sessiongen``: regenerate the demo session bundled with ``prime_nb``."""

from . import main

main()
