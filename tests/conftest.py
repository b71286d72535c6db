"""Shared fixtures: the repo root as working directory, a CLI runner, no network but loopback, and
verdicts already known (clean schema and table checks of the very same bytes, reused)."""

from __future__ import annotations

import hashlib
import ipaddress
import json
import shutil
import socket
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from builder.cli import main

REPO = Path(__file__).resolve().parent.parent


def _loopback_only(real_connect):
    def connect(self, address):
        host = address[0] if isinstance(address, tuple) else None
        if host is not None:
            try:
                if not ipaddress.ip_address(host).is_loopback:
                    raise ConnectionRefusedError(f"tests may not reach {host}")
            except ValueError:
                if host != "localhost":
                    raise ConnectionRefusedError(f"tests may not reach {host}") from None
        return real_connect(self, address)

    return connect


@pytest.fixture(scope="session", autouse=True)
def _frictionless_loaded() -> None:
    """Import frictionless, load its plugins and run it once on the committed tables, here: the tables
    worker that each in-process `builder validate` forks inherits its imports, plugins and caches
    instead of paying for them every time (about 0.1 s a run once loaded, 0.2 s more before).
    Whether that package is valid is a test of its own (test_committed_package_is_valid)."""
    import frictionless

    from builder.validate.tables import check_tables
    from builder.validate.tree import load_tree

    assert frictionless.system.plugins
    check_tables(load_tree(REPO / "data"))


# Verdicts already known. jsonschema and frictionless take nearly all of a validate run, and each
# verdict is a function of its input alone: a document's, of its schema and its bytes; frictionless's,
# of the tables it is handed and their bytes. An input byte for byte the same as one already found
# clean (by a real check, earlier in this process) gets the clean verdict again; anything else, and
# every problem, is found by a real check. Opt-in, per test: never for tests of the checks themselves.

_CLEAN_DOCUMENTS: set[tuple[str | None, str | None, str]] = set()  # (schema name, schema sha256, bytes sha256)
_CLEAN_TABLES: set[str] = set()


def _schema_digest(name: str | None) -> str | None:
    """The digest of the schema the validator uses; None (never a known verdict) if the schemas cannot be read."""
    from builder.validate.schema import load_schemas

    try:
        schema = load_schemas().get(name) if name else None
    except Exception:  # a broken schema file: validate reports it, every time
        return None
    return hashlib.sha256(json.dumps(schema, sort_keys=True).encode()).hexdigest()


def _tables_key(tree: Any) -> str:
    from builder.layout import below
    from builder.validate.descriptor import safe_tables

    handed = safe_tables(tree)
    facts = {r["path"]: hashlib.sha256(tree.raw[below(r["path"], tree.data_dir)]).hexdigest() for r in handed}
    return json.dumps([handed, facts], sort_keys=True)


def _document_keys(tree: Any) -> dict[str, tuple[str | None, str | None, str]]:
    from builder.layout import schema_for

    names = {rel: schema_for(rel) for rel in tree.docs}
    digests = {name: _schema_digest(name) for name in set(names.values())}
    return {rel: (names[rel], digests[names[rel]], hashlib.sha256(tree.raw[rel]).hexdigest()) for rel in tree.docs}


def known_clean(tree: Any, keys: dict[str, tuple[str | None, str | None, str]] | None = None) -> set[str]:
    """The tree's documents whose schema and bytes were already found clean (see above); `keys`,
    its _document_keys when the caller has them already."""
    keys = _document_keys(tree) if keys is None else keys
    return {rel for rel, key in keys.items() if key[1] is not None and key in _CLEAN_DOCUMENTS}


@pytest.fixture
def known_documents(monkeypatch: pytest.MonkeyPatch) -> None:
    """A document whose schema and bytes were already found clean is not checked again (see above)."""
    from builder.validate import run
    from builder.validate.tree import Tree

    real = run.check_schemas

    def check_schemas(tree: Tree) -> tuple[list[Any], set[str]]:
        keys = _document_keys(tree)
        known = known_clean(tree, keys)
        rest = Tree(root=tree.root, data_dir=tree.data_dir, docs={r: d for r, d in tree.docs.items() if r not in known})
        problems, passed = real(rest)
        _CLEAN_DOCUMENTS.update(keys[rel] for rel in passed if keys[rel][1] is not None)
        return problems, known | passed

    monkeypatch.setattr(run, "check_schemas", check_schemas)


class _KnownClean:
    def result(self) -> list[Any]:
        return []


class _Recorded:
    """A real frictionless run (forked or inline); a clean verdict is remembered here, in the test process."""

    def __init__(self, pending: Any, key: str | None) -> None:
        self._pending, self._key = pending, key

    def result(self) -> list[Any]:
        found = self._pending.result()
        if not found and self._key is not None:
            _CLEAN_TABLES.add(self._key)
        return found


@pytest.fixture
def known_verdicts(known_documents: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """known_documents, and frictionless's clean verdict on the same tables with the same bytes (see above)."""
    from builder.validate import tables

    real = tables.start_tables

    def start_tables(tree: Any, ahead: Any = None) -> Any:
        try:
            key = _tables_key(tree)
        except Exception:  # a hostile tree the key cannot describe: always checked for real
            key = None
        if key is not None and key in _CLEAN_TABLES:
            if ahead is not None:
                ahead.stop()
            return _KnownClean()
        return _Recorded(real(tree, ahead), key)

    monkeypatch.setattr(tables, "start_tables", start_tables)


_COMPATIBLE: set[tuple[str, str | None, str]] = set()  # (sha256 of the schema set, schema name, sha256 of the doc)


def _canonical(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


@pytest.fixture
def known_compat(monkeypatch: pytest.MonkeyPatch) -> None:
    """The release guard's cross-validation (builder.release.compat.cross_validate): a document already
    found valid against the very same schema set is not validated again; anything else is (see above)."""
    from builder.release import compat

    real = compat.cross_validate

    def cross_validate(schemas: dict, docs: dict, schema_for: Any) -> list[Any]:
        digest = _canonical(schemas)
        keys = {rel: (digest, schema_for(rel), _canonical(doc)) for rel, doc in docs.items()}
        rest = {rel: doc for rel, doc in docs.items() if keys[rel] not in _COMPATIBLE}
        failures = real(schemas, rest, schema_for)
        failed = {f.path for f in failures}
        _COMPATIBLE.update(keys[rel] for rel in rest if rel not in failed and keys[rel][1] in schemas)
        return failures

    monkeypatch.setattr(compat, "cross_validate", cross_validate)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _loopback_only(socket.socket.connect))


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run from the repository root, as the CLI expects."""
    monkeypatch.chdir(REPO)
    return REPO


def copy_package(root: Path) -> Path:
    """A scratch copy of the inputs and committed outputs at `root`."""
    root.mkdir()
    for name in ("upstream", "data", "schemas"):
        shutil.copytree(REPO / name, root / name)
    for name in ("metadata.toml", "datapackage.json"):
        shutil.copy2(REPO / name, root / name)
    return root


@pytest.fixture
def repo_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch copy of the inputs and committed outputs, used as the working directory."""
    root = copy_package(tmp_path / "repo")
    monkeypatch.chdir(root)
    return root


def invoke(*args: str):
    """Run the builder CLI in this process; exceptions other than the builder's own propagate."""
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def cli():
    return invoke


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file below root, by relative path, with its bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
