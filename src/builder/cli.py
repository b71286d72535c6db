"""The `builder` command line: parse options, call one function, map errors to exit codes.

Heavy imports (jsonschema, frictionless, httpx) happen inside the commands, so that
`builder --help` stays fast.
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import click

from builder.errors import BuilderError, ProblemsError


def today_utc() -> str:
    return dt.datetime.now(dt.UTC).date().isoformat()


def _iso_date(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value).isoformat() if len(value) == 10 else _bad_date(value)
    except ValueError:
        return _bad_date(value)


def _bad_date(value: str) -> str:
    raise click.BadParameter(f"expected a date as YYYY-MM-DD, found {value!r}")


def report(exc: BuilderError) -> None:
    """Print an error (and its problems, one a line) to stderr."""
    if isinstance(exc, ProblemsError):
        for problem in exc.problems:
            click.echo(str(problem), err=True)
    click.echo(f"error: {exc}", err=True)


class Group(click.Group):
    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except BuilderError as exc:
            report(exc)
            sys.exit(exc.exit_code)


@click.group(cls=Group)
@click.version_option(package_name="leadgreen-data")
def main() -> None:
    """Build, check and release the LeadGreen v1 data package (run from the repo root)."""


@main.command()
@click.option(
    "--upstream", type=click.Path(path_type=Path, dir_okay=False), help="Upstream task file [default: the pin]."
)
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=Path("data"), show_default=True)
@click.option("--date", callback=_iso_date, help="Build date, YYYY-MM-DD [default: today, UTC].")
def build(upstream: Path | None, out: Path, date: str | None) -> None:
    """Regenerate every document in OUT from the pinned upstream, atomically."""
    from builder.build import build as run_build

    result = run_build(out, upstream, date or today_utc())
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    click.echo(f"{out}: {len(result.files)} files, {len(result.changed)} changed")
    for rel in result.changed:
        click.echo(f"  changed: {rel}")


@main.command()
@click.option("--data", type=click.Path(path_type=Path, file_okay=False), default=Path("data"), show_default=True)
def validate(data: Path) -> None:
    """Check every file: JSON Schemas, tables, cross-file consistency and physics."""
    from builder.errors import ValidationError
    from builder.metadata import load_metadata
    from builder.validate.run import check_tree
    from builder.validate.tree import load_tree

    if not data.is_dir():
        raise click.BadParameter(f"expected a data folder, found no folder {data}", param_hint="--data")
    base_url = load_metadata(Path("metadata.toml"))["base_url"]
    problems = check_tree(load_tree(data), base_url)
    if problems:
        raise ValidationError(f"{data}: {len(problems)} problem(s)", problems)
    click.echo(f"{data}: valid")


@main.command()
@click.option("--data", type=click.Path(path_type=Path, file_okay=False), default=Path("data"), show_default=True)
def drift(data: Path) -> None:
    """Rebuild from the pin into a temporary folder; fail, with a diff, if DATA differs."""
    from builder.drift import check_drift, drift_error

    diffs = check_drift(data, today_utc())
    for text in diffs.values():
        click.echo(text, nl=False)
    if diffs:
        raise drift_error(diffs)
    click.echo(f"{data}: no drift from the pinned upstream")
