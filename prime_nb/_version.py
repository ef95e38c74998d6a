"""The package's version, in a module of its own so that any layer may name it (the
corpus cache records which prime_nb wrote it)."""

__version__ = "0.1.0"
