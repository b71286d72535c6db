"""Contributor and CI sessions. `nox` runs the checks; mutating or slow sessions are opt-in.

Every session runs in one shared environment, made by the `env` session that they all require:
the package (editable) with its test and lint extras, on the oldest Python that
`requires-python` allows. A run installs it once, not once per session; `nox -R` reuses it
without reinstalling.
"""

from __future__ import annotations

import os
from pathlib import Path

import nox

nox.needs_version = ">=2025.2.9"  # session requires=
nox.options.default_venv_backend = "venv"
nox.options.reuse_venv = "yes"
nox.options.error_on_missing_interpreters = True
nox.options.sessions = ["lint", "tests", "validate", "drift"]  # `slow` is opt-in; CI runs it

# python_versions reads requires-python's lower bound up to max_version; the lowest is the one used.
PYTHON = nox.project.python_versions(nox.project.load_toml("pyproject.toml"), max_version="3.99")[0]
SHARED = "env-bin"  # in nox's cache folder: the shared environment's bin folder, written by `env`


@nox.session(python=PYTHON, default=False)
def env(session: nox.Session) -> None:
    """Create or update the environment every session shares: the package with its test and lint
    extras."""
    session.install("-e", ".[test,lint]")
    (session.cache_dir / SHARED).write_text(session.bin, encoding="utf-8")


def run(session: nox.Session, program: str, *args: str) -> None:
    """Run a program of the shared environment, with that environment first on PATH."""
    record = session.cache_dir / SHARED
    if not record.is_file():
        session.error("the shared environment is missing: run `nox -s env` first")
    bin_dir = Path(record.read_text(encoding="utf-8"))
    path = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
    session.run(
        str(bin_dir / program), *args, env={"PATH": path, "VIRTUAL_ENV": str(bin_dir.parent)}
    )


@nox.session(venv_backend="none", requires=["env"])
def lint(session: nox.Session) -> None:
    """Ruff lint and format check, and mypy --strict on the builder."""
    run(session, "ruff", "check", ".", *session.posargs)
    run(session, "ruff", "format", "--check", ".")
    run(session, "mypy")


@nox.session(venv_backend="none", requires=["env"])
def tests(session: nox.Session) -> None:
    """The fast tier of the suite (at most 60 s); pytest's exit 5 (no tests collected) fails the
    session."""
    run(session, "python", "-m", "pytest", *session.posargs)


@nox.session(venv_backend="none", requires=["env"], default=False)
def slow(session: nox.Session) -> None:
    """The slow tier: git releases, wheels in fresh venvs, the browser, signals, full site builds
    (5-8 min)."""
    run(session, "python", "-m", "pytest", "-m", "slow", *session.posargs)


@nox.session(venv_backend="none", requires=["env"])
def validate(session: nox.Session) -> None:
    """Schemas, tables, cross-file consistency and physics of the committed data."""
    run(session, "builder", "validate", *session.posargs)


@nox.session(venv_backend="none", requires=["env"])
def drift(session: nox.Session) -> None:
    """Rebuild from the pin into a temporary folder; fail with a diff if data/ differs."""
    run(session, "builder", "drift", *session.posargs)


@nox.session(venv_backend="none", requires=["env"], default=False)
def build(session: nox.Session) -> None:
    """Regenerate data/ and datapackage.json from the pinned upstream."""
    run(session, "builder", "build", *session.posargs)


@nox.session(venv_backend="none", requires=["env"], default=False)
def update(session: nox.Session) -> None:
    """Fetch upstream, rebuild, validate, then summarise what changed (posargs go to fetch)."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(prefix="update-") as before:
        shutil.copytree("data", f"{before}/data")
        run(session, "builder", "fetch", *session.posargs)
        run(session, "builder", "build")
        run(session, "builder", "validate")
        run(session, "builder", "diff", "--summary", f"{before}/data", "data")


@nox.session(venv_backend="none", requires=["env"], default=False)
def release(session: nox.Session) -> None:
    """Cut a data release: validate and drift-check the committed data, then changelog, tag and
    dist/; never pushes.

    `builder release` runs both checks itself, on the data as committed; the suite is CI's job, not
    the release's.
    """
    run(session, "builder", "release", *session.posargs)


@nox.session(venv_backend="none", requires=["env"], default=False)
def bench(session: nox.Session) -> None:
    """Time build, validate and --help at 1x/10x/100x against check-jsonschema and json.loads (5-8
    min).

    Flags go after `--`: `--scales 1 10 100` (sizes, as multiples of today's upstream) and `--runs
    5` (the median of that many runs of each command). Each step is printed as it runs; the table at
    the end. `nox -s bench -- --scales 1 10 --runs 3` takes 40 to 90 s.
    """
    run(session, "python", "benchmarks/bench.py", *session.posargs)


@nox.session(venv_backend="none", requires=["env"], default=False)
def site(session: nox.Session) -> None:
    """Build the web site into site/ and serve it on 127.0.0.1 (posargs: the port, default 8000)."""
    run(session, "builder", "site", "--out", "site")
    port = session.posargs[0] if session.posargs else "8000"
    session.log(f"serving the site at http://127.0.0.1:{port}/ (Ctrl-C stops)")
    run(session, "python", "-m", "http.server", "--bind", "127.0.0.1", "--directory", "site", port)
