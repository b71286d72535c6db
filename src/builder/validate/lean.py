"""Frictionless imported without pydantic, for the tables worker, which only validates.

Frictionless imports pydantic for two things validation never reaches: the result of publishing a
package (`frictionless.system.models`) and the Zenodo portal's metadata (`frictionless.portals.
zenodo.models`). Yet pydantic and its compiled core are a large part of `import frictionless`, the
more so where modules are read from disk. The forked tables worker validates and exits, so there
those two modules are stand-ins, and pydantic is never imported.

Should validation ever touch a stand-in (create one of its classes, read a class's attribute, take
a name the module lacks), `LeftOut` is raised: a BaseException, so that no `except Exception` in
frictionless, or in a plugin of it, can make a report of it. The worker then ends without an answer,
and the caller checks the tables itself, with frictionless imported whole. So a plugin or a
frictionless release that uses those modules costs time, never a verdict. tests/test_validate_tables.py
keeps the premise honest: of frictionless's modules, those two alone import pydantic.
"""

from __future__ import annotations

import functools
import sys
import types
from importlib.machinery import ModuleSpec

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
    sys.meta_path.insert(0, StandIns())
    import frictionless  # noqa: F401


class StandIns:
    """An import finder and loader for the stood-in modules: found first, loaded as any module is
    (so bound in its package), each with a class of every name frictionless takes from it."""

    def find_spec(self, fullname: str, _path: object, _target: object = None) -> ModuleSpec | None:
        return ModuleSpec(fullname, self) if fullname in STAND_INS else None

    def create_module(self, _spec: ModuleSpec) -> None:
        return None  # the usual module object

    def exec_module(self, module: types.ModuleType) -> None:
        module.__doc__ = "A stand-in, never used in validation (builder.validate.lean)."
        for name in STAND_INS[module.__name__]:
            setattr(module, name, _Unusable(name, (), {"__module__": module.__name__}))
        module.__getattr__ = functools.partial(_missing, module.__name__)  # a name it lacks (PEP 562)


class _Unusable(type):
    """The type of a stand-in class: creating one, or reading an attribute it lacks, is LeftOut."""

    def __call__(cls, *_args: object, **_kwargs: object) -> None:
        raise LeftOut(f"{cls.__module__}.{cls.__name__} was used")

    def __getattr__(cls, name: str) -> None:
        _missing(f"{cls.__module__}.{cls.__name__}", name)


def _missing(owner: str, name: str) -> None:
    """What a stand-in lacks: a dunder is missing as on any object (the import system and
    introspection probe those); any other name is LeftOut."""
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    raise LeftOut(f"{owner}.{name} was used")
