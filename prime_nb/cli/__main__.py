"""``python -m prime_nb.cli``: the ``prime-nb`` command."""

import sys

from ._commands import main

sys.exit(main())
