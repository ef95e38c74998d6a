"""prime_nb: explore and edit Prime Agent session files from notebooks."""

__version__ = "0.1.0"
