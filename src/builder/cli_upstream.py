"""The commands that reach upstream: `fetch` (pin new snapshots) and `check-upstream` (has it moved?)."""

import sys
from typing import Any

import click

from builder.errors import UnreachableError
from builder.fetch import Limits  # light: httpx is imported only when a download starts
from builder.layout import LOCK, METADATA, require_repo_root
from builder.report import say

UPSTREAM_MOVED = 4  # `builder check-upstream`: upstream serves other bytes than the pin


def _lockable(_ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """The value, if the lock schema's definition the option names allows it, else a usage error."""
    from builder.jsonschemas import LOCK_SCHEMA, input_problems

    if value is not None and (problems := input_problems(LOCK_SCHEMA, value, "", ("$defs", str(param.name)))):
        raise click.BadParameter(problems[0].message)
    return value


def _finite(_ctx: click.Context, _param: click.Parameter, value: float) -> float:
    if value != value:  # NaN passes every range check
        raise click.BadParameter(f"expected a number of seconds, found {value}")
    return value


def _fetch_options(command):
    """Options shared by fetch and check-upstream; defaults are those of fetch.Limits."""
    d = Limits()
    options = [
        click.option("--task", help="One upstream task (e.g. gpqa) [default: every task in upstream/lock.json]."),
        click.option("--url", callback=_lockable,
                     help="URL, http(s), to fetch the task from [default: the URL its lock entry records]. "
                     "Without --task, the text-conversation task (lm-arena-chat)."),
        click.option("--max-bytes", type=click.IntRange(min=1, max=d.max_bytes), default=d.max_bytes,
                     show_default=True, help="Refuse a body larger than this (at most the default)."),
        click.option("--timeout", type=click.FloatRange(min=0.01, max=3600), callback=_finite, default=d.timeout,
                     show_default=True, help="Connect and read timeout, seconds."),
        click.option("--retries", type=click.IntRange(min=0, max=10), default=d.retries, show_default=True,
                     help="Retries on connection errors and 5xx (never on 4xx)."),
        click.option("--deadline", type=click.FloatRange(min=0.1, max=86400), callback=_finite, default=d.deadline,
                     show_default=True, help="Give up after this many seconds in all (per task)."),
    ]  # fmt: skip
    for option in reversed(options):
        command = option(command)
    return command


def _fetch_urls(task: str | None, url: str | None) -> dict[str, str | None]:
    """Task -> URL to fetch (None: its lock entry's): every task, or the one named (--url alone: the first)."""
    from builder.build import upstream_tasks
    from builder.metadata import load_metadata

    require_repo_root()
    tasks = upstream_tasks(load_metadata(METADATA))
    if task is None and url is None:
        return dict.fromkeys(tasks)
    task = task or tasks[0]
    if task not in tasks:
        raise click.BadParameter(f"expected one of {', '.join(tasks)}, found {task!r}", param_hint="--task")
    return {task: url}


@click.command()
@_fetch_options
@click.option("--commit", callback=_lockable, help="Upstream commit (40-hex sha) of the files, recorded in the lock.")
def fetch(task: str | None, url: str | None, commit: str | None, **limits: Any) -> None:
    """Fetch upstream (every task, or one), check it in full, then replace the pin and its lock atomically.

    Exits 0 when pinned, 3 when a task file is unreachable, 1 when one is refused, 2 on usage errors.
    """
    from builder.refresh import fetch_and_pin
    from builder.write import today_utc

    pinned, warnings = fetch_and_pin(_fetch_urls(task, url), commit, today_utc(), Limits(**limits))
    for warning in warnings:
        say(f"warning: {warning}", err=True)
    for done in pinned:
        state = "moved" if done.moved else "unchanged"
        say(f"{LOCK}: pinned {done.task}: {done.new.size} bytes, sha256 {done.new.sha256} ({state})")


@click.command("check-upstream")
@_fetch_options
def check_upstream(task: str | None, url: str | None, **limits: Any) -> None:
    """Has upstream moved since the pin? One line per task.

    Exits 0 when every task is unchanged, 4 when any moved, 3 when any is unreachable, 1 on other
    errors, 2 on usage errors.
    """
    from builder.refresh import compare_upstream

    found = compare_upstream(_fetch_urls(task, url), Limits(**limits))
    for c in found:
        if c.error is not None:
            state = "unreachable" if isinstance(c.error, UnreachableError) else "error"
            say(f"{state}: {c.task}: {c.error}", err=True)
        elif c.moved:
            say(f"moved: {c.task}: {c.new.url} serves sha256 {c.new.sha256} ({c.new.size} bytes), "
                f"the pin is {c.old.sha256} ({c.old.size} bytes)")  # fmt: skip
        else:
            say(f"unchanged: {c.task}: {c.new.url} serves the pinned sha256 {c.old.sha256}")
    codes = [c.error.exit_code for c in found if c.error is not None] or [UPSTREAM_MOVED for c in found if c.moved]
    if codes:
        sys.exit(max(codes))  # an error before a move; unreachable (3) before any other error (1)
