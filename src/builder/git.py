"""The few git operations a release needs; failures become ReleaseError."""

from __future__ import annotations

import subprocess

from builder.errors import ReleaseError


def git(*args: str, strip: bool = True) -> str:
    run = subprocess.run(["git", *args], capture_output=True, text=True)
    if run.returncode != 0:
        raise ReleaseError(f"git {' '.join(args)}: {run.stderr.strip() or run.stdout.strip()}")
    return run.stdout.strip() if strip else run.stdout


def dirty_paths() -> list[str]:
    status = git("status", "--porcelain", "--untracked-files=normal", strip=False)
    return [line[3:] for line in status.splitlines()]


def current_branch() -> str:
    return git("rev-parse", "--abbrev-ref", "HEAD")


def tags() -> list[str]:
    return git("tag", "--list").split()


def create_annotated_tag(tag: str, message: str) -> None:
    git("tag", "--annotate", tag, "--message", message)
