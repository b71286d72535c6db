"""The harness of the hostile corpora: run a command on a bad input and hold it to every promise.

Every hostile case asserts all of: the exit code, a message naming the file, row or option, no
traceback, no raw control or format character in the output (a newline only between lines), and
every file that existed before (below the repo copy or output folder) byte for byte as it was, by
hashing the whole folder before and after.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from builder.cli import main

IGNORED = frozenset({"__pycache__", ".pytest_cache", ".ruff_cache"})
GIT_NOISE = frozenset(
    {".git/objects", ".git/logs", ".git/index", ".git/ORIG_HEAD", ".git/COMMIT_EDITMSG"}
)


def tree_digest(root: Path) -> dict[str, str]:
    """Every entry below root (files, links, FIFOs, folders), by relative path, with what identifies
    it.

    Regular files by the sha256 of their bytes; anything else by its kind (and a link by its
    target), so that nothing here reads a FIFO or a device. Of `.git`, the refs, HEAD and config
    count; its object store, logs and index (rewritten by any `git add`) do not: release tests check
    `git status` and the refs for those. A folder that cannot be listed counts as a folder.
    """
    found: dict[str, str] = {}

    def walk(folder: str, prefix: str) -> None:
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            return
        for entry in entries:
            rel = prefix + entry.name
            if entry.name in IGNORED or rel in GIT_NOISE:
                continue
            if entry.is_symlink():
                found[rel] = f"link -> {os.readlink(entry.path)}"
            elif entry.is_file():
                with open(entry.path, "rb") as file:
                    found[rel] = hashlib.sha256(file.read()).hexdigest()
            elif entry.is_dir():
                found[rel] = "folder"
                walk(entry.path, rel + "/")
            else:
                found[rel] = "special"

    walk(os.fspath(root), "")
    return found


@dataclass(frozen=True)
class Outcome:
    exit_code: int
    output: str  # stdout and stderr together


def run_cli(
    *args: str,
    subprocess_: bool = False,
    cwd: Path | None = None,
    timeout: float = 120,
    env: dict[str, str] | None = None,
) -> Outcome:
    """The CLI in-process (fast), or as a real process when a case needs one (signals, fds, env).

    `env` (subprocess only) replaces the environment of the process; None inherits this one.
    """
    if env is not None and not subprocess_:
        raise ValueError("env needs subprocess_=True")
    if subprocess_:
        run = subprocess.run(
            [sys.executable, "-m", "builder", *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        return Outcome(run.returncode, run.stdout + run.stderr)
    result = CliRunner().invoke(main, list(args), catch_exceptions=True)
    output = result.output
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        output += (
            f"\nTraceback (most recent call last): uncaught "
            f"{type(result.exception).__name__}: {result.exception}"
        )
    return Outcome(result.exit_code, output)


def assert_refused(
    outcome: Outcome,
    code: int,
    names: str | tuple[str, ...],
    before: dict[str, str],
    after: dict[str, str],
) -> None:
    """Exit code, a message naming the culprit, no traceback, no raw control character, nothing
    changed or lost, nothing left behind."""
    assert "Traceback" not in outcome.output, outcome.output
    assert_escaped(outcome.output)
    assert outcome.exit_code == code, outcome.output
    for name in (names,) if isinstance(names, str) else names:
        assert name in outcome.output, f"expected {name!r} in the message, found:\n{outcome.output}"
    changed = sorted(rel for rel, digest in before.items() if after.get(rel) != digest)
    assert not changed, f"pre-existing entries changed or lost: {changed[:10]}"
    left = sorted(after.keys() - before.keys())
    assert not left, f"a refused command left entries behind: {left[:10]}"


def assert_escaped(output: str) -> None:
    """No control (Cc) or format (Cf) character in the output but the newline that ends each
    line."""
    raw = sorted(
        {f"U+{ord(c):04X}" for c in output if c != "\n" and unicodedata.category(c) in ("Cc", "Cf")}
    )
    assert not raw, f"raw control or format characters {raw} in the output: {output!r}"
