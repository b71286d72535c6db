"""Frictionless imported without pydantic, for the tables worker, which only validates.

Frictionless imports pydantic for two things validation never reaches: the result of publishing a
package (`frictionless.system.models`) and the Zenodo portal's metadata (`frictionless.portals.
zenodo.models`). Yet pydantic and its compiled core are a large part of `import frictionless`, the
more so where modules are read from disk. The forked tables worker validates and exits, so there
those two modules are stand-ins, and pydantic is never imported. Only frictionless's own modules
meet the stand-ins: where a `frictionless_*` module (a third-party plugin, which frictionless
imports) may be on the import path, the worker imports frictionless whole.

Each name frictionless takes from those modules is a stand-in object that can only be passed
around: any other use (a call, an attribute, a subclass, isinstance, a star import, a name the
module lacks) raises `LeftOut`, a BaseException, so that no `except Exception` in frictionless can
make a report of it. The worker then ends without an answer, and the caller checks the tables
itself, with frictionless imported whole: a frictionless release that uses those modules costs
time, never a verdict. tests/test_validate_tables.py keeps the premise honest: of frictionless's
modules, those two alone import pydantic, and take only the names stood in.
"""

from __future__ import annotations

import functools
import os
import sys
import types
from importlib.machinery import ModuleSpec
from typing import NoReturn

# Each module of frictionless that imports pydantic, and the names frictionless takes from it.
STAND_INS = {
    "frictionless.system.models": ("PublishResult",),
    "frictionless.portals.zenodo.models": ("ZenodoCreator", "ZenodoMetadata"),
}


class LeftOut(BaseException):
    """Validation reached a part of frictionless that the worker left out."""


def import_frictionless() -> None:
    """Import frictionless with the stand-ins, unless it is imported already. The stand-ins are
    served from then on, to this process (plugins are imported when a package is first made)."""
    if "frictionless" in sys.modules:
        return
    if not _plugin_possible():
        sys.meta_path.insert(0, StandIns())
    import frictionless  # noqa: F401


PLUGIN_PREFIX = "frictionless_"  # frictionless.system.System.plugins: a module so named is a plugin


def _plugin_possible() -> bool:
    """Whether a module named `frictionless_*` may be on the import path. Frictionless imports each
    as a plugin (`pkgutil.iter_modules`), and a plugin may use the stood-in names in any way, so then
    frictionless is imported whole. Erring on the safe side: any entry so named, or a path entry that
    is an archive, counts."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except NotADirectoryError:  # a zip archive on the path: its modules are not listed here
            return True
        except (OSError, ValueError):  # missing or unreadable: pkgutil finds no module there either
            continue
        if any(name.startswith(PLUGIN_PREFIX) for name in names):
            return True
    return False


class StandIns:
    """An import finder and loader for the stood-in modules: found first, loaded as any module is
    (so bound in its package), each with a stand-in for every name frictionless takes from it."""

    def find_spec(self, fullname: str, _path: object, _target: object = None) -> ModuleSpec | None:
        return ModuleSpec(fullname, self) if fullname in STAND_INS else None

    def create_module(self, _spec: ModuleSpec) -> None:
        return None  # the usual module object

    def exec_module(self, module: types.ModuleType) -> None:
        module.__doc__ = "A stand-in, never used in validation (builder.validate.lean)."
        for name in STAND_INS[module.__name__]:
            setattr(module, name, StandIn(f"{module.__name__}.{name}"))
        module.__getattr__ = functools.partial(_missing, module.__name__)  # a name it lacks (PEP 562)


class StandIn:
    """A name frictionless takes from a stood-in module (a class, in frictionless): it can be passed
    around, and stored as an annotation; any use of it is LeftOut."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)

    def __repr__(self) -> str:
        return f"<stand-in for {_name_of(self)}>"

    def _used(self, *_args: object, **_kwargs: object) -> NoReturn:
        raise LeftOut(f"{_name_of(self)} was used")

    # Created, subclassed (a base that is no class is asked for its __mro_entries__), tested with
    # isinstance or issubclass, subscripted, iterated, or joined in a union.
    __call__ = __mro_entries__ = __instancecheck__ = __subclasscheck__ = _used
    __getitem__ = __iter__ = __or__ = __ror__ = __setattr__ = __delattr__ = _used

    def __getattr__(self, name: str) -> NoReturn:  # any attribute it lacks, dunders too
        raise LeftOut(f"{_name_of(self)}.{name} was used")


def _name_of(stand_in: StandIn) -> str:
    """Its name; a copy, made without __init__, has none (and reading it must not recurse)."""
    try:
        return str(object.__getattribute__(stand_in, "_name"))
    except AttributeError:
        return "a copy of a stand-in"


def _missing(module: str, name: str) -> NoReturn:
    """A name the stand-in module lacks. The import system probes a module's dunders (`__path__`,
    `__file__`): those are missing as on any module; `__all__`, read by a star import, and any other
    name are LeftOut."""
    if name.startswith("__") and name.endswith("__") and name != "__all__":
        raise AttributeError(name)
    raise LeftOut(f"{module}.{name} was used")
