"""The site's store: an SQLite database in a temporary file that SQLite deletes as it opens it,
holding what pages need beyond their own model document: the small documents' rows and entries,
every workload's models, each model's summary and GPU types, and every site file's size. SQLite
keeps at most 2 MB of it in memory, however many models there are; a full or unusable temporary
folder is one OutputError."""

from __future__ import annotations

import itertools
import json
import os
import pickle
import posixpath
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import TYPE_CHECKING, Any

from builder.errors import OutputError, printable
from builder.site.catalog import Model

if TYPE_CHECKING:
    from builder.site.targets import Summary

TABLES = """
CREATE TABLE parts (rel TEXT, pos INTEGER, slug TEXT, body TEXT, PRIMARY KEY (rel, pos));
CREATE INDEX parts_by_slug ON parts (rel, slug);
CREATE TABLE models (work INTEGER, pos INTEGER, slug TEXT, name TEXT, doc_rel TEXT, doc_path TEXT,
                     page TEXT,
                     PRIMARY KEY (work, pos));
CREATE INDEX models_by_slug ON models (slug, work, pos);
CREATE INDEX models_by_doc ON models (doc_rel);
CREATE TABLE summaries (doc_rel TEXT PRIMARY KEY, body BLOB);
CREATE TABLE gpus (gpu TEXT, doc_rel TEXT, PRIMARY KEY (gpu, doc_rel));
CREATE TABLE files (path TEXT PRIMARY KEY, folder TEXT, size INTEGER, copy_of TEXT);
CREATE INDEX files_by_folder ON files (folder, path);
CREATE TABLE folders (folder TEXT PRIMARY KEY, parent TEXT);
CREATE INDEX folders_by_parent ON folders (parent, folder);
"""
MODEL = "m.slug, m.name, m.doc_rel, m.doc_path, m.page"  # a Model's fields, in its order


def folder_of(path: str) -> str:
    """`a/b/c.json` -> `a/b/`; a file at the root -> `/`."""
    return posixpath.dirname(path) + "/"


def sqlite_tmpdir() -> str:
    """The folder SQLite puts its temporary files in: the first of SQLITE_TMPDIR, TMPDIR, /var/tmp,
    /usr/tmp, /tmp that is a folder it may write in."""
    found = [
        os.environ.get("SQLITE_TMPDIR"),
        os.environ.get("TMPDIR"),
        "/var/tmp",
        "/usr/tmp",
        "/tmp",
    ]
    usable = (f for f in found if f and os.path.isdir(f) and os.access(f, os.W_OK | os.X_OK))
    return next(usable, ".")


@contextmanager
def _stored() -> Iterator[None]:
    """A failing SQLite call as one line: a value it cannot hold (a document's list where text
    belongs) a TypeError, which the page names; anything else (a full or unusable temporary folder)
    an OutputError naming the folder."""
    try:
        yield
    except (sqlite3.InterfaceError, sqlite3.ProgrammingError) as exc:
        raise TypeError(f"expected text or a number, found {printable(str(exc))}") from None
    except sqlite3.Error as exc:
        raise OutputError(
            f"TMPDIR ({printable(sqlite_tmpdir())}): expected a writable folder with free space "
            f"for the site's "
            f"temporary database, found {printable(str(exc))}; set TMPDIR to another folder"
        ) from None


class Rows:
    """A document's parts, read from the store each time they are walked: their count, a slice,
    or every one."""

    def __init__(self, store: Store, rel: str) -> None:
        self.store, self.rel = store, rel

    def __len__(self) -> int:
        return int(self.store._run("SELECT COUNT(*) FROM parts WHERE rel = ?", (self.rel,))[0][0])

    def __iter__(self) -> Iterator[Any]:
        for (body,) in self.store._rows(
            "SELECT body FROM parts WHERE rel = ? ORDER BY pos", (self.rel,)
        ):
            yield json.loads(body)

    def __getitem__(self, part: slice) -> list[Any]:
        if not isinstance(part, slice):
            raise TypeError(f"expected a slice of {self.rel}'s rows, found {type(part).__name__}")
        return list(itertools.islice(self, part.start, part.stop, part.step))


class Store:
    """The site's store, empty when made; closing it (or leaving a with) lets SQLite drop the
    file."""

    def __init__(self) -> None:
        with _stored():  # "": a private database in a temporary file; no journal, no sync
            self.db = sqlite3.connect("", isolation_level=None)  # each statement commits on its own
            # Python's, for every script
            self.db.create_function("py_lower", 1, str.lower, deterministic=True)
            self.db.executescript("PRAGMA temp_store = FILE; PRAGMA journal_mode = OFF;" + TABLES)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()

    def _run(self, sql: str, args: Iterable[Any] = ()) -> list[tuple[Any, ...]]:
        with _stored():
            return self.db.execute(sql, tuple(args)).fetchall()

    def _rows(self, sql: str, args: Iterable[Any] = ()) -> Iterator[tuple[Any, ...]]:
        """The rows of a query, read as they are used (never all at once)."""
        with _stored():
            cursor = self.db.execute(sql, tuple(args))
            while batch := cursor.fetchmany(256):
                yield from batch

    def _insert(self, sql: str, rows: Iterable[tuple[Any, ...]]) -> None:
        with _stored():
            self.db.execute("BEGIN")
            self.db.executemany(sql, rows)
            self.db.execute("COMMIT")

    # the parts of a small document (an index's rows, a model list's or frontier's entries), as JSON
    # text, in order
    def add_parts(self, rel: str, parts: Iterable[tuple[str, str]]) -> None:
        """parts: (slug, JSON text) each, the slug empty for an index row."""
        self._insert(
            "INSERT INTO parts VALUES (?, ?, ?, ?)",
            ((rel, i, s, b) for i, (s, b) in enumerate(parts)),
        )

    def parts(self, rel: str) -> Rows:
        return Rows(self, rel)

    def part(self, rel: str, slug: str) -> tuple[int, Any] | None:
        """The first part of a document with that slug, parsed, and its place in the document;
        None when none."""
        found = self._run(
            "SELECT pos, body FROM parts WHERE rel = ? AND slug = ? ORDER BY pos LIMIT 1",
            (rel, slug),
        )
        return (found[0][0], json.loads(found[0][1])) if found else None

    # the models of each workload (by its place), in list order
    def add_models(self, work: int, models: Iterable[Model]) -> None:
        rows = (
            (work, i, m.slug, m.name, m.doc_rel, m.doc_path, m.page) for i, m in enumerate(models)
        )
        self._insert("INSERT INTO models VALUES (?, ?, ?, ?, ?, ?, ?)", rows)

    def models(self, work: int) -> Iterator[Model]:
        for row in self._rows(f"SELECT {MODEL} FROM models m WHERE work = ? ORDER BY pos", (work,)):
            yield Model(*row)

    def listings(self, slug: str) -> list[tuple[int, str]]:
        """(workload, page) of every listing of a model slug, in workload and list order."""
        return self._run("SELECT work, page FROM models WHERE slug = ? ORDER BY work, pos", (slug,))

    def slug_count(self) -> int:
        return int(self._run("SELECT COUNT(DISTINCT slug) FROM models")[0][0])

    def by_name(self) -> Iterator[tuple[Model, Summary]]:
        """The first listing of each slug (in workload and list order) with its summary, by name
        then slug."""
        first = (
            "NOT EXISTS (SELECT 1 FROM models o WHERE o.slug = m.slug AND (o.work, o.pos) < "
            "(m.work, m.pos))"
        )
        for row in self._rows(
            f"SELECT {MODEL} FROM models m WHERE {first} ORDER BY py_lower(m.name), m.slug"
        ):
            model = Model(*row)
            yield model, self.summary(model.doc_rel)

    # each model document's summary and GPU types, the first made of it kept
    def add_summary(self, doc_rel: str, summary: Summary) -> None:
        with _stored():
            added = self.db.execute(
                "INSERT OR IGNORE INTO summaries VALUES (?, ?)", (doc_rel, pickle.dumps(summary))
            )
            if added.rowcount:
                self.db.executemany(
                    "INSERT OR IGNORE INTO gpus VALUES (?, ?)", ((g, doc_rel) for g in summary.gpus)
                )

    def __getitem__(self, doc_rel: str) -> Summary:
        return self.summary(doc_rel)

    def summary(self, doc_rel: str) -> Summary:
        """A model document's summary, read now; a KeyError when none was made."""
        if not (found := self._run("SELECT body FROM summaries WHERE doc_rel = ?", (doc_rel,))):
            raise KeyError(doc_rel)
        summary: Summary = pickle.loads(found[0][0])
        return summary

    def gpus(self) -> list[tuple[str, int]]:
        """Every GPU type a summarized model was measured on, sorted, with the count of model
        slugs measured on it."""
        sql = (
            "SELECT g.gpu, COUNT(DISTINCT m.slug) FROM gpus g JOIN models m USING (doc_rel) "
            "GROUP BY g.gpu"
        )
        return self._run(sql + " ORDER BY g.gpu")

    def on_gpu(self, gpu: str) -> list[tuple[int, int]]:
        """(workload, count of its listings measured on the GPU type), for each workload with
        any, in order."""
        sql = (
            "SELECT m.work, COUNT(*) FROM gpus g JOIN models m USING (doc_rel) WHERE g.gpu = ? "
            "GROUP BY m.work"
        )
        return self._run(sql + " ORDER BY m.work", (gpu,))

    def measured(self, gpu: str, work: int) -> Iterator[tuple[Model, Summary]]:
        """A workload's models measured on the GPU type, in list order, each with its summary."""
        sql = (
            f"SELECT {MODEL} FROM gpus g JOIN models m USING (doc_rel) WHERE g.gpu = ? AND "
            f"m.work = ? ORDER BY m.pos"
        )
        for row in self._rows(sql, (gpu, work)):
            model = Model(*row)
            yield model, self.summary(model.doc_rel)

    # every site file's size, and every folder a file is in
    def add_file(self, path: str, size: int, copy_of: str | None = None) -> bool:
        """Record a site file (copy_of: the file of data/ it copies); False when one was recorded
        at that path."""
        parts = path.split("/")[:-1]
        folders = ["/".join(parts[:i]) + "/" for i in range(1, len(parts) + 1)]
        with _stored():
            row = (path, folder_of(path), size, copy_of)
            added = self.db.execute("INSERT OR IGNORE INTO files VALUES (?, ?, ?, ?)", row)
            if not added.rowcount:
                return False
            self.db.executemany(
                "INSERT OR IGNORE INTO folders VALUES (?, ?)",
                ((f, folder_of(f.rstrip("/"))) for f in folders),
            )
        return True

    def set_size(self, path: str, size: int) -> None:
        with _stored():
            self.db.execute("UPDATE files SET size = ? WHERE path = ?", (size, path))

    def copy_of(self, path: str) -> str | None:
        """The file of data/ the site file at path copies; None for a page or any other file, or
        no file."""
        found = self._run("SELECT copy_of FROM files WHERE path = ?", (path,))
        return found[0][0] if found else None

    def has_file(self, path: str) -> bool:
        return bool(self._run("SELECT 1 FROM files WHERE path = ?", (path,)))

    def files(self) -> Iterator[tuple[str, int]]:
        """(path, size) of every file recorded, in path order."""
        yield from self._rows("SELECT path, size FROM files ORDER BY path")

    def unlisted(self) -> list[str]:
        """Every folder (`a/b/`) without an index.html, in path order."""
        return [
            f
            for (f,) in self._run(
                "SELECT folder FROM folders f WHERE NOT EXISTS (SELECT 1 FROM files WHERE path = "
                "f.folder || 'index.html') "
                "ORDER BY folder"
            )
        ]

    def in_folder(self, folder: str) -> Iterator[tuple[str, str, int | None]]:
        """A folder's subfolders (size None), then its files but its index.html, each in path order:
        (path, page to link, size)."""
        for (sub,) in self._rows(
            "SELECT folder FROM folders WHERE parent = ? ORDER BY folder", (folder,)
        ):
            yield sub, sub + "index.html", None
        sql = "SELECT path, size FROM files WHERE folder = ? AND path != ? ORDER BY path"
        for path, size in self._rows(sql, (folder, folder + "index.html")):
            yield path, path, size
