"""The `builder` command line: parse options, call one function, map errors to exit codes
(imports inside commands)."""

import datetime as dt
import functools
import os
import signal
import sys
from collections import Counter
from contextlib import suppress
from pathlib import Path

import click

from builder.cli_options import folder_option, require_extra
from builder.cli_release import dist_command, release, schema_diff
from builder.cli_upstream import check_upstream, fetch
from builder.dates import ISO_DATE, today_utc
from builder.errors import BuilderError, ProblemsError, printable, printable_lines
from builder.files import Refused, is_folder, lookup_error, read_file
from builder.layout import (
    DATA,
    DESCRIPTOR,
    METADATA,
    PACKAGE_NAME,
    SCHEMAS,
    require_repo_root,
)
from builder.report import FORMATS, problems_as, report_json, say, warn
from builder.strictjson import parse_json


def _iso_date(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    with suppress(ValueError):
        if ISO_DATE.fullmatch(value):
            return dt.date.fromisoformat(value).isoformat()
    raise click.BadParameter(f"expected a date as YYYY-MM-DD, found {value!r}")


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


_data_option = folder_option(
    "--data", DATA, "Data folder to check; datapackage.json is read beside it, in its parent."
)


@click.group(cls=Group, commands=[fetch, check_upstream, release, dist_command, schema_diff])
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
    stopped by Ctrl-C 1, by SIGHUP 129, by SIGTERM 143 (each writer then leaves its old output or
    its new one, never a mix)."""


@main.command()
@click.option(
    "--upstream",
    "upstreams",
    multiple=True,
    metavar="[TASK=]FILE",
    help="Build TASK (e.g. gpqa) from FILE instead of its pin; FILE alone means lm-arena-chat. "
    "Repeatable.",
)
@folder_option(
    "--out",
    DATA,
    "Data folder to regenerate; datapackage.json is written beside it, in its parent.",
)
@click.option("--date", callback=_iso_date, help="Build date, YYYY-MM-DD [default: today, UTC].")
def build(upstreams: tuple[str, ...], out: Path, date: str | None) -> None:
    """Regenerate every document of every workload in the --out folder from the pinned upstream,
    atomically. Exits 0 when built, 1 when an input is refused or the output cannot be written, 2 on
    usage errors."""
    from builder.build import build as run_build
    from builder.layout import is_workload_id
    from builder.metadata import load_metadata, upstream_tasks

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
    from builder.validate.committed import refuse_half_published, validate_committed

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
    differs. Exits 0 when nothing differs, 1 when something does (or the pin cannot be built), 2 on
    usage errors."""
    from builder.drift import check_drift, drift_error

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
    """Compare two data trees or git refs (OLD, NEW) by natural key. Exits 0 after printing the
    diff, whatever it holds (with --exit-code: 0 when nothing differs, 1 when something does); 1
    when OLD or NEW cannot be read; 2 on usage errors."""
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


UNEXPECTED = 70  # an exception the builder does not know (sysexits' EX_SOFTWARE)


class Stopped(BaseException):
    """SIGTERM or SIGHUP (its number, args[0]): unwinds through every cleanup as Ctrl-C does."""


def _stop(main_pid: int, signum: int, _frame: object) -> None:
    if os.getpid() == main_pid:
        raise Stopped(signum)
    # git.run_git's child before it execs git ends as the signal's default does
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
        import traceback  # only here: a build or validate that succeeds never needs it

        frames = traceback.extract_tb(exc.__traceback__)
        place = f" in {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
        message = printable(str(exc))[:300] or "no message"
        click.echo(
            f"error: unexpected {type(exc).__name__}{place}: {message}; please report it", err=True
        )
        sys.exit(UNEXPECTED)
