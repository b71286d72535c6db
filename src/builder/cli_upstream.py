"""The commands that reach upstream: `fetch` (pin new snapshots) and `check-upstream` (has it moved?)."""

from __future__ import annotations

import sys

import click

from builder.errors import UPSTREAM_MOVED, UnreachableError
from builder.layout import LOCK, METADATA, require_repo_root
from builder.report import say


def _http_url(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    from builder.fetch import url_problem

    problem = url_problem(value)
    if problem:
        raise click.BadParameter(f"expected an http(s) URL with a host and no credentials, found {value!r}: {problem}")
    return value


def _commit_sha(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    from builder.pin import is_commit

    if value is None or is_commit(value):
        return value
    raise click.BadParameter(f"expected a 40-character lowercase hex commit sha, found {value!r}")


def _finite(_ctx: click.Context, _param: click.Parameter, value: float) -> float:
    if value != value:  # NaN passes every range check
        raise click.BadParameter(f"expected a number of seconds, found {value}")
    return value


def _fetch_options(command):
    """Options shared by fetch and check-upstream; defaults are those of fetch.Limits."""
    from builder.fetch import Limits  # light: httpx is imported only when a download starts

    d = Limits()
    options = [
        click.option("--task", help="One upstream task (e.g. gpqa) [default: every task in upstream/lock.json]."),
        click.option("--url", callback=_http_url,
                     help="URL, http(s), to fetch the task from [default: the URL its lock entry records]. "
                     "Without --task, the text-conversation task (lm-arena-chat)."),
        click.option("--max-bytes", type=click.IntRange(min=1, max=d.max_bytes), default=d.max_bytes,
                     show_default=True, help="Refuse a body larger than this (at most the default)."),
        click.option("--timeout", type=click.FloatRange(min=0.01, max=3600), callback=_finite,
                     default=d.read_timeout, show_default=True,
                     help="Connect and read timeout, seconds."),
        click.option("--retries", type=click.IntRange(min=0, max=10), default=d.retries, show_default=True,
                     help="Retries on connection errors and 5xx (never on 4xx)."),
        click.option("--deadline", type=click.FloatRange(min=0.1, max=86400), callback=_finite,
                     default=d.deadline, show_default=True,
                     help="Give up after this many seconds in all (per task)."),
    ]  # fmt: skip
    for option in reversed(options):
        command = option(command)
    return command


def _limits(max_bytes: int, timeout: float, retries: int, deadline: float):
    from builder.fetch import Limits

    return Limits(
        max_bytes=max_bytes, read_timeout=timeout, connect_timeout=timeout, retries=retries, deadline=deadline
    )


def upstream_tasks() -> list[str]:
    """The upstream tasks, in workload order, from the curated metadata."""
    from builder.genmeta import generation_workloads
    from builder.metadata import load_metadata, workloads

    require_repo_root(METADATA)
    meta = load_metadata(METADATA)
    return [w.task for w in workloads(meta)] + [w.task for w in generation_workloads(meta)]


def _fetch_urls(task: str | None, url: str | None) -> dict[str, str]:
    """Task -> URL to fetch: every task from its recorded URL, or the one task named (--url alone: the first)."""
    from builder.refresh import recorded_urls

    require_repo_root()
    tasks = upstream_tasks()
    if task is None and url is None:
        return recorded_urls(LOCK, tasks)
    task = task or tasks[0]
    if task not in tasks:
        raise click.BadParameter(f"expected one of {', '.join(tasks)}, found {task!r}", param_hint="--task")
    return {task: url or recorded_urls(LOCK, [task])[task]}


@click.command()
@_fetch_options
@click.option(
    "--commit",
    callback=_commit_sha,
    help="Upstream commit (40-hex sha) the files were taken from, recorded in the lock.",
)
def fetch(
    task: str | None, url: str | None, max_bytes: int, timeout: float, retries: int, deadline: float, commit: str | None
) -> None:
    """Fetch upstream (every task, or one), check it in full, then replace the pin and its lock atomically.

    All or nothing: when any task file is unreachable or refused, no snapshot and no lock entry changes.
    Exits 0 when pinned, 3 when a task file is unreachable, 1 when one is refused, 2 on usage errors.
    """
    from builder.refresh import fetch_and_pin

    urls = _fetch_urls(task, url)
    limits = _limits(max_bytes, timeout, retries, deadline)
    from builder.write import today_utc

    pinned, warnings = fetch_and_pin(urls, commit, LOCK, today_utc(), limits)
    for warning in warnings:
        say(f"warning: {warning}", err=True)
    for done in pinned:
        state = "moved" if done.moved else "unchanged"
        say(f"{LOCK}: pinned {done.task}: {done.new.size} bytes, sha256 {done.new.sha256} ({state})")


@click.command("check-upstream")
@_fetch_options
def check_upstream(
    task: str | None, url: str | None, max_bytes: int, timeout: float, retries: int, deadline: float
) -> None:
    """Has upstream moved since the pin? One line per task.

    Exits 0 when every task is unchanged, 4 when any moved, 3 when any is unreachable, 1 on other
    errors, 2 on usage errors.
    """
    from builder.refresh import compare_upstream

    found = compare_upstream(_fetch_urls(task, url), LOCK, _limits(max_bytes, timeout, retries, deadline))
    for c in found:
        if c.error is not None:
            state = "unreachable" if isinstance(c.error, UnreachableError) else "error"
            say(f"{state}: {c.task}: {c.error}", err=True)
        elif c.moved:
            say(f"moved: {c.task}: {c.new.url} serves sha256 {c.new.sha256} ({c.new.size} bytes), "
                f"the pin is {c.old.sha256} ({c.old.size} bytes)")  # fmt: skip
        else:
            say(f"unchanged: {c.task}: {c.new.url} serves the pinned sha256 {c.old.sha256}")
    errors = [c.error for c in found if c.error is not None]
    if errors:
        sys.exit(max(e.exit_code for e in errors))  # unreachable (3) before any other error (1)
    if any(c.moved for c in found):
        sys.exit(UPSTREAM_MOVED)
