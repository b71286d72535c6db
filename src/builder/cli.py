"""The `builder` command line: parse options, call one function, map errors to exit codes
(imports inside commands)."""

import datetime as dt
import functools
import os
import signal
import sys
import traceback
from collections import Counter
from collections.abc import Callable
from contextlib import suppress
from importlib.util import find_spec
from pathlib import Path
from typing import TypeVar

import click

from builder.cli_upstream import check_upstream, fetch
from builder.errors import BuilderError, InputError, ProblemsError, printable, printable_lines
from builder.files import Refused, is_folder, lookup_error, read_file
from builder.layout import (
    DATA,
    DESCRIPTOR,
    DIST,
    METADATA,
    PACKAGE_NAME,
    SCHEMAS,
    require_repo_root,
)
from builder.report import FORMATS, problems_as, report_json, say, warn
from builder.strictjson import parse_json
from builder.write import today_utc


def _iso_date(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    with suppress(ValueError):
        if len(value) == 10:
            return dt.date.fromisoformat(value).isoformat()
    raise click.BadParameter(f"expected a date as YYYY-MM-DD, found {value!r}")


# optional dependencies
EXTRAS = {
    "site": ("jinja2", "matplotlib"),
    "release": ("flit_core", "pyproject_hooks"),
}


def require_extra(extra: str, command: str) -> None:
    """InputError naming the extra when a module it installs is missing."""
    if missing := [name for name in EXTRAS[extra] if find_spec(name) is None]:
        raise InputError(
            f"builder {command}: expected {', '.join(missing)} (the {extra} extra), found none "
            f"installed; "
            f"run pip install -e '.[{extra}]'"
        )


class Group(click.Group):
    def invoke(self, ctx: click.Context) -> object:
        """Run the command; a BuilderError is printed (its problems first, one a line) and
        becomes its exit code."""
        try:
            return super().invoke(ctx)
        except BuilderError as exc:
            for problem in exc.problems if isinstance(exc, ProblemsError) else []:
                say(str(problem), err=True)
            say(f"error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:  # a usage error quotes what the user typed: escaped too
            exc.message = printable(exc.message)  # type: ignore[misc]
            raise


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """The installed builder's version and the data version of the descriptor in the current
    folder."""
    if not value or ctx.resilient_parsing:
        return
    from importlib.metadata import PackageNotFoundError, version

    code = "unknown (not installed)"
    with suppress(PackageNotFoundError):
        code = version("leadgreen-data-builder")
    data = f"unknown (no {DESCRIPTOR} of {PACKAGE_NAME} here; run from the repository root)"
    with suppress(Refused, ValueError, AttributeError):
        # the safe read: a FIFO or a device is not opened
        descriptor = parse_json(read_file(Path(DESCRIPTOR)))
        if descriptor.get("name") == PACKAGE_NAME and isinstance(descriptor.get("version"), str):
            data = descriptor["version"]
    say(f"builder {code}, data version {data}")
    ctx.exit()


FC = TypeVar("FC", bound=Callable[..., object])


def _folder_option(name: str, default: Path, help_text: str) -> Callable[[FC], FC]:
    """A --data or --out option naming one folder."""
    folder = click.Path(path_type=Path, file_okay=False)
    return click.option(name, type=folder, default=default, show_default=True, help=help_text)


_data_option = _folder_option(
    "--data", DATA, "Data folder to check; datapackage.json is read beside it, in its parent."
)


@click.group(cls=Group, commands=[fetch, check_upstream])
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the builder's version and the data version, and exit.",
)
def main() -> None:
    """Build, check and release the LeadGreen v1 data package (run from the repo root).

    Exit codes: 0 done, 1 error, 2 usage error, 70 an unexpected failure (a bug: please report it);
    stopped by Ctrl-C 1,
    by SIGHUP 129, by SIGTERM 143 (each writer then leaves its old output or its new one, never a
    mix)."""


@main.command()
@click.option(
    "--upstream",
    "upstreams",
    multiple=True,
    metavar="[TASK=]FILE",
    help="Build TASK (e.g. gpqa) from FILE instead of its pin; FILE alone means lm-arena-chat. "
    "Repeatable.",
)
@_folder_option(
    "--out",
    DATA,
    "Data folder to regenerate; datapackage.json is written beside it, in its parent.",
)
@click.option("--date", callback=_iso_date, help="Build date, YYYY-MM-DD [default: today, UTC].")
def build(upstreams: tuple[str, ...], out: Path, date: str | None) -> None:
    """Regenerate every document of every workload in the --out folder from the pinned upstream,
    atomically.
    Exits 0 when built, 1 when an input is refused or the output cannot be written, 2 on usage
    errors."""
    from builder.build import build as run_build
    from builder.build import upstream_tasks
    from builder.layout import is_workload_id
    from builder.metadata import load_metadata

    require_repo_root(METADATA) if upstreams else require_repo_root()
    tasks = upstream_tasks(load_metadata(METADATA))
    chosen: dict[str, Path] = {}
    for value in upstreams:
        task, sep, path = value.partition("=")
        if not (sep and is_workload_id(task)):
            task, path = tasks[0], value  # a plain FILE is the first task's
        if not path:
            raise click.BadParameter(
                f"expected FILE or TASK=FILE, found {value!r}", param_hint="'--upstream'"
            )
        if task in chosen:
            raise click.BadParameter(
                f"expected each task once, found {task} given twice", param_hint="--upstream"
            )
        chosen[task] = Path(path)
    if unknown := ", ".join(sorted(set(chosen) - set(tasks))):
        raise click.BadParameter(
            f"expected tasks among {', '.join(tasks)}, found {unknown}", param_hint="--upstream"
        )
    result = run_build(out, chosen, date or today_utc())
    for warning in (w for found in result.warnings.values() for w in found):
        say(f"warning: {warning}", err=True)
    counts = Counter(result.written.values())
    say(
        f"{out}: {len(result.files)} files and {DESCRIPTOR} beside it; "
        f"{counts['new']} new, {counts['changed']} changed, {counts['removed']} removed"
    )
    for path, state in result.written.items():
        say(f"  {state}: {path}")


@main.command()
@_data_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="Problems as text lines, one JSON object (valid, summary, problems with code, file, "
    "pointer, "
    "line, col, expected, found, message) or GitHub workflow commands (::error "
    "file=...,line=...), one "
    "per root cause, which annotate a pull request.",
)
def validate(data: Path, fmt: str) -> None:
    """Check every file: JSON Schemas, tables, cross-file consistency and physics.
    Exits 0 when every file is valid, 1 when any problem is found (all are printed), 2 on usage
    errors."""
    from builder.citation import check_citation
    from builder.repository import warnings as repository_warnings
    from builder.verify import refuse_half_published, validate_committed

    require_repo_root(
        SCHEMAS, where="the repository root or the top folder of an unpacked release archive"
    )
    refuse_half_published(data)
    error = lookup_error(data)
    if error is not None or not is_folder(data):
        found = f"an error ({error}) at" if error is not None else "no folder"
        raise click.BadParameter(
            f"expected a data folder, found {found} {data}", param_hint="--data"
        )
    with problems_as(fmt):
        validate_committed(data)
        check_citation(data)
    for text in repository_warnings(data.parent / METADATA):
        warn(text, fmt, file=str(METADATA))
    if fmt == "json":
        click.echo(report_json([], f"{data}: valid"))
    else:
        say(f"{data}: valid")


@main.command()
@_data_option
def drift(data: Path) -> None:
    """Rebuild from the pin into a temporary folder; fail, with a diff, if the --data folder
    differs.
    Exits 0 when nothing differs, 1 when something does (or the pin cannot be built), 2 on usage
    errors."""
    from builder.verify import check_drift, drift_error

    diffs = check_drift(data, today_utc())
    for text in diffs.values():
        click.echo(printable_lines(text), nl=False)
    if diffs:
        raise drift_error(diffs)
    say(f"{data}: no drift from the pinned upstream")


@main.command("diff")
@click.argument("old")
@click.argument("new")
@click.option("--json", "as_json", is_flag=True, help="Print the diff as JSON.")
@click.option(
    "--summary", is_flag=True, help="Models, best values and counts only, not each configuration."
)
@click.option(
    "--exit-code",
    is_flag=True,
    help="Exit 1 when anything differs, as `git diff --exit-code` does.",
)
def diff_command(old: str, new: str, as_json: bool, summary: bool, exit_code: bool) -> None:
    """Compare two data trees or git refs (OLD, NEW) by natural key.
    Exits 0 after printing the diff, whatever it holds (with --exit-code: 0 when nothing differs, 1
    when something
    does); 1 when OLD or NEW cannot be read; 2 on usage errors."""
    import json

    from builder.diff import diff_trees, load_docs, load_tables, render_text

    docs = load_docs(old), load_docs(new)
    result = diff_trees(*docs, (load_tables(old, docs[0]), load_tables(new, docs[1])))
    text = (
        json.dumps(result.to_json(), indent=2, allow_nan=False)
        if as_json
        else render_text(result, summary)
    )
    click.echo(printable_lines(text), nl=as_json)  # JSON escapes every non-ASCII character itself
    if exit_code and not result.empty:
        sys.exit(1)


@main.command()
@click.option(
    "--accept-large-changes",
    "accept",
    metavar="REASON",
    help="Release despite large changes; recorded.",
)
@click.option(
    "--accept-schema-change",
    "accept_schema",
    metavar="REASON",
    help="Release despite a schema change within the API major version; recorded with the changes.",
)
def release(accept: str | None, accept_schema: str | None) -> None:
    """Cut a release: checks, changelog, dist/, commit and annotated tag. Never pushes; prints an
    atomic push.
    Exits 0 when tagged, 1 when a check refuses (nothing is left behind), 2 on usage errors."""
    from builder.release.flow import cut_release

    require_repo_root()
    require_extra("release", "release")
    plan, artifacts = cut_release(today_utc(), accept, accept_schema)
    click.echo(printable_lines(plan.summary))
    for path in artifacts:
        say(f"  wrote {path}")
    say(f"Tagged {plan.version.tag}. To publish: git push --atomic origin main {plan.version.tag}")


@main.command()
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("site"),
    show_default=True,
    help="Folder to build into: absent, empty, or a site built before.",
)
def site(out: Path) -> None:
    """Build the static web site (pages, charts, API files, schemas) from the committed package.
    Exits 0 when built, 1 when the package or the --out folder is refused, 2 on usage errors."""
    require_extra("site", "site")
    from builder.site.build import build_site

    result = build_site(out)
    say(f"{out}: {result.files} files, {result.pages} pages, data version {result.data_version}")


@main.command("dist")
@_folder_option("--out", DIST, "Folder to rebuild; it holds exactly the release files afterwards.")
@click.option(
    "--notes",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write the tag's CHANGELOG.md entry to this file (release notes).",
)
@click.option(
    "--tag",
    metavar="TAG",
    help="The release tag to build, which must be at HEAD [default: the one there].",
)
def dist_command(out: Path, notes: Path | None, tag: str | None) -> None:
    """Rebuild dist/ (archive, manifest, wheel, SHA256SUMS) from the release tag checked out at
    HEAD.
    Refuses unless the working tree is clean and HEAD carries a release tag naming a real, past date
    that is the data
    version of the data committed there. Every file comes from the tagged commit;
    the wheel's timestamps are the tagged commit's date and the archive's the release's data version
    date, so any clone
    gives the same bytes. Exits 0 when rebuilt, 1 when refused, 2 on usage errors."""
    from builder.pin import sha256
    from builder.release.dist import build_dist, notes_at
    from builder.write import replace_files

    require_repo_root()
    require_extra("release", "dist")
    release, paths = build_dist(out, tag)
    say(
        f"{out}: rebuilt from {release.version.tag} ({release.commit[:12]}), "
        f"SOURCE_DATE_EPOCH={release.epoch}"
    )
    for path in paths:
        data = path.read_bytes()
        say(f"  {sha256(data)}  {len(data):>9}  {path.name}")
    if notes is not None:
        replace_files({notes: notes_at(release).encode("utf-8")})
        say(f"  release notes: {notes}")


@main.command("schema-diff")
@click.argument("old")
@click.argument("new")
@click.option(
    "--documents",
    is_flag=True,
    help="Also validate each side's documents against the other side's schemas.",
)
@click.option(
    "--exit-code",
    is_flag=True,
    help="Exit 1 when anything changed or failed (as git diff --exit-code).",
)
def schema_diff(old: str, new: str, documents: bool, exit_code: bool) -> None:
    """List the schema changes between OLD and NEW (folders holding schemas/, or git refs).
    Exits 0 after listing (with --exit-code: 1 when anything changed or failed), 1 when OLD or NEW
    cannot be read, 2 on
    usage errors."""
    from builder.diff import load_docs
    from builder.release.compat import compare, verdict

    # none: no document to cross-validate
    docs = (load_docs(old), load_docs(new)) if documents else ({}, {})
    result = compare(old, new, *docs)
    for change in result.changes:
        say(str(change))
    say(verdict(result.changes) if result.changes else f"no schema changes from {old} to {new}")
    for against, failure in result.failures:
        say(f"{against}: {failure}")
    if documents and not result.failures:
        click.echo("documents: each side's documents are valid against the other side's schemas")
    if exit_code and not result.clean:
        sys.exit(1)


UNEXPECTED = 70  # an exception the builder does not know (sysexits' EX_SOFTWARE)


class Stopped(BaseException):
    """SIGTERM or SIGHUP (its number, args[0]): unwinds through every cleanup as Ctrl-C does."""


def _stop(main_pid: int, signum: int, _frame: object) -> None:
    if os.getpid() == main_pid:
        raise Stopped(signum)
    # git.run's child before it execs git ends as the signal's default does
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def run() -> None:
    """The `builder` command: main(), with SIGTERM and SIGHUP raising Stopped (unless they are
    ignored)."""
    for signum in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(signum) == signal.SIG_DFL:
            signal.signal(signum, functools.partial(_stop, os.getpid()))
    try:
        main()
    except Stopped as exc:
        click.echo(f"Stopped by {signal.Signals(exc.args[0]).name}.", err=True)
        sys.exit(128 + exc.args[0])  # the shell's code for a process ended by that signal
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    # the system refused (disk full, permissions): one line, not a bug to report
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        say(f"error: {exc.strerror or type(exc).__name__}{where}", err=True)
        sys.exit(1)
    # a library's own exception, pyo3's PanicException included: one line, no traceback
    except BaseException as exc:
        frames = traceback.extract_tb(exc.__traceback__)
        place = f" in {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
        message = printable(str(exc))[:300] or "no message"
        click.echo(
            f"error: unexpected {type(exc).__name__}{place}: {message}; please report it", err=True
        )
        sys.exit(UNEXPECTED)
