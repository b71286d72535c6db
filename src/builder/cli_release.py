"""The commands that make and compare releases: `release`, `dist` and `schema-diff`."""

import sys
from pathlib import Path

import click

from builder.cli_options import folder_option, require_extra
from builder.dates import today_utc
from builder.errors import printable_lines
from builder.layout import DIST, require_repo_root
from builder.report import say


@click.command()
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


@click.command("dist")
@folder_option("--out", DIST, "Folder to rebuild; it holds exactly the release files afterwards.")
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
    HEAD. Refuses unless the working tree is clean and HEAD carries a release tag naming a real,
    past date that is the data version of the data committed there. Every file comes from the tagged
    commit; the wheel's timestamps are the tagged commit's date and the archive's the release's data
    version date, so any clone gives the same bytes. Exits 0 when rebuilt, 1 when refused, 2 on
    usage errors."""
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


@click.command("schema-diff")
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
    """List the schema changes between OLD and NEW (folders holding schemas/, or git refs). Exits 0
    after listing (with --exit-code: 1 when anything changed or failed), 1 when OLD or NEW cannot be
    read, 2 on usage errors."""
    from builder.diff import load_docs
    from builder.release.compat import compare_releases, verdict

    # none: no document to cross-validate
    docs = (load_docs(old), load_docs(new)) if documents else ({}, {})
    result = compare_releases(old, new, *docs)
    for change in result.changes:
        say(str(change))
    say(verdict(result.changes) if result.changes else f"no schema changes from {old} to {new}")
    for against, failure in result.failures:
        say(f"{against}: {failure}")
    if documents and not result.failures:
        click.echo("documents: each side's documents are valid against the other side's schemas")
    if exit_code and not result.clean:
        sys.exit(1)
