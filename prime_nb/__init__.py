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

import copyreg as _copyreg
import importlib as _importlib
import sys as _sys
import types as _types

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)


def _by_name(module: _types.ModuleType) -> tuple[object, tuple[str]]:
    return _importlib.import_module, (module.__name__,)


# lazy_loader keeps ``prime_nb.redact`` the function (named like its subpackage) with a
# module class of its own, which pickle cannot handle, nor cloudpickle when it sends a
# notebook's function that uses prime_nb to Dask workers: that class pickles by name, as
# a plain module does under cloudpickle.
if type(_sys.modules[__name__]) is not _types.ModuleType:
    _copyreg.pickle(type(_sys.modules[__name__]), _by_name)
