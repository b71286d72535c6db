"""The two guards every planning step shares: one file per path, and no traceback on a bad document."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from builder.errors import InputError


@contextmanager
def reading(shown: str) -> Iterator[None]:
    """A document without the fields a page needs is an InputError naming it, never a traceback."""
    try:
        yield
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise InputError(f"{shown}: expected a valid v1 document (`builder validate` says what is wrong), "
                         f"found {type(exc).__name__}: {exc}") from exc  # fmt: skip


class Written:
    """The site's files so far, by path and size (one file per path), for the listings and the home page."""

    def __init__(self) -> None:
        self.sizes: dict[str, int] = {}

    def file(self, path: str, data: bytes) -> tuple[str, bytes]:
        """Record one site file and hand it on to be written; two files for one path is an error."""
        if path in self.sizes:
            raise InputError(
                f"site: two files would be written at {path}; expected each page and document at its own path"
            )
        self.sizes[path] = len(data)
        return path, data
