"""prime_nb: explore and edit Prime Agent session files from notebooks.

Every name here (and in ``prime_nb.session``, ``prime_nb.analysis`` and
``prime_nb.corpus``) is imported from its module on first use: the names are listed once,
in ``__init__.pyi``, which type checkers read and ``lazy_loader`` turns into the
package's ``__getattr__``. Why: the corpus tables read files in worker processes forked
from a server that imports their code first, and with every name imported eagerly that
server imported pandas (0.4 of its 0.55 s) for workers that never build a table. A
notebook's first corpus call waited for it. ``tests/test_lazy_imports.py`` holds the
workers' code free of pandas.
"""

import importlib as _importlib
import sys as _sys
import types as _types

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)


class _Package(_types.ModuleType):
    """This package's module object: ``prime_nb.redact`` stays the function after the
    ``prime_nb.redact`` subpackage is imported (the import system then sets the
    submodule on its parent, as it did before the names were lazy), and the module
    pickles by name. lazy_loader guards that name with a module class of its own, which
    cloudpickle cannot pickle: a notebook function that uses ``prime_nb``, sent to Dask
    workers, failed with it."""

    def __setattr__(self, name: str, value: object) -> None:
        if name == "redact" and isinstance(value, _types.ModuleType):
            return  # the function is resolved (and kept) by ``__getattr__``
        super().__setattr__(name, value)

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return _importlib.import_module, (self.__name__,)


_sys.modules[__name__].__class__ = _Package
