"""``python -m sessiongen``: write generated sessions (``--help`` lists the commands)."""

import sys

from . import main

sys.exit(main())
