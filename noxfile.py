"""Contributor and CI sessions. `nox` runs the checks; mutating or slow sessions are opt-in."""

from __future__ import annotations

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_venv = "yes"
nox.options.error_on_missing_interpreters = True
nox.options.sessions = ["lint", "tests", "validate", "drift"]


@nox.session
def lint(session: nox.Session) -> None:
    """Ruff lint and format check."""
    session.install("-e", ".[lint]")
    session.run("ruff", "check", ".", *session.posargs)
    session.run("ruff", "format", "--check", ".")


@nox.session
def tests(session: nox.Session) -> None:
    """The test suite; pytest's exit 5 (no tests collected) fails the session."""
    session.install("-e", ".[test]")
    session.run("pytest", *session.posargs)


@nox.session
def validate(session: nox.Session) -> None:
    """Schemas, tables, cross-file consistency and physics of the committed data."""
    session.install("-e", ".")
    session.run("builder", "validate", *session.posargs)


@nox.session
def drift(session: nox.Session) -> None:
    """Rebuild from the pin into a temporary folder; fail with a diff if data/ differs."""
    session.install("-e", ".")
    session.run("builder", "drift", *session.posargs)


@nox.session(default=False)
def build(session: nox.Session) -> None:
    """Regenerate data/ and datapackage.json from the pinned upstream."""
    session.install("-e", ".")
    session.run("builder", "build", *session.posargs)


@nox.session(default=False)
def update(session: nox.Session) -> None:
    """Fetch upstream, rebuild, validate, then summarise what changed (posargs go to fetch)."""
    import shutil
    import tempfile

    session.install("-e", ".")
    with tempfile.TemporaryDirectory(prefix="update-") as before:
        shutil.copytree("data", f"{before}/data")
        session.run("builder", "fetch", *session.posargs)
        session.run("builder", "build")
        session.run("builder", "validate")
        session.run("builder", "diff", "--summary", f"{before}/data", "data")


@nox.session(default=False)
def release(session: nox.Session) -> None:
    """Cut a data release: tests, validate, drift, then changelog, dist/ and an annotated tag; never pushes."""
    session.install("-e", ".[test]")
    session.run("pytest", "-q")
    session.run("builder", "release", *session.posargs)


@nox.session(default=False)
def bench(session: nox.Session) -> None:
    """Time build, validate and --help at 1x/10x/100x against check-jsonschema and json.loads."""
    session.install("-e", ".[test]")
    session.run("python", "benchmarks/bench.py", *session.posargs)


@nox.session(default=False)
def site(session: nox.Session) -> None:
    """Build the web site into site/ and serve it on 127.0.0.1 (posargs: the port, default 8000)."""
    session.install("-e", ".")
    session.run("builder", "site", "--out", "site")
    port = session.posargs[0] if session.posargs else "8000"
    session.log(f"serving the site at http://127.0.0.1:{port}/ (Ctrl-C stops)")
    session.run("python", "-m", "http.server", "--bind", "127.0.0.1", "--directory", "site", port)
