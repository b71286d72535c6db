"""Frictionless imported without pydantic, for the tables worker, which only validates.

Frictionless imports pydantic for two things validation never reaches: the result of publishing a
package (`frictionless.system.models`) and the Zenodo portal's metadata (`frictionless.portals.
zenodo.models`). Yet pydantic and its compiled core are a large part of `import frictionless`, the
more so where modules are read from disk. The forked tables worker validates and exits, so there
those two modules are stand-ins, and pydantic is never imported.

Should a stand-in ever be used, or a frictionless need more from those modules than the names
below, `LeftOut` is raised: a BaseException, so that no `except Exception` in frictionless can make
a report of it. The worker then ends without an answer, and the caller checks the tables itself,
with frictionless imported whole. tests/test_validate_tables.py keeps the premise honest: of
frictionless's modules, those two alone import pydantic.
"""

from __future__ import annotations

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
    """Import frictionless with the stand-ins, unless it is imported already; LeftOut where this
    frictionless cannot be imported so. The stand-ins are served from then on, to this process."""
    if "frictionless" in sys.modules:
        return
    sys.meta_path.insert(0, StandIns())
    try:
        import frictionless  # noqa: F401
    except ImportError as exc:  # it takes another name from a stood-in module
        raise LeftOut(f"frictionless without pydantic: {exc}") from exc


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
            setattr(module, name, type(name, (_Unused,), {"__module__": module.__name__}))


class _Unused:
    def __init__(self, *_args: object, **_kwargs: object) -> None:
        raise LeftOut(f"{type(self).__module__}.{type(self).__name__} was used")
