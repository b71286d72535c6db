"""The git operations a release needs, failing as ReleaseError with git's message; no value
reaches git as an option."""

import functools
import re
import signal
import subprocess

from builder.errors import ReleaseError, printable
from builder.write import HELD, signals_held

OBJECT_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")  # SHA-1 or SHA-256


def run_git(*args: str, stdin: bytes | None = None) -> bytes:
    """git's stdout, or ReleaseError quoting git; signals wait until git is done, so an undo sees
    all git did."""
    # git itself still gets signals
    unblock = functools.partial(signal.pthread_sigmask, signal.SIG_UNBLOCK, HELD)
    try:
        with signals_held():
            if stdin is None:
                done = subprocess.run(
                    ["git", *args],
                    capture_output=True,
                    preexec_fn=unblock,
                    stdin=subprocess.DEVNULL,
                )
            else:
                done = subprocess.run(
                    ["git", *args], capture_output=True, preexec_fn=unblock, input=stdin
                )
    except OSError as exc:
        raise ReleaseError(
            f"cannot run git ({exc.strerror}); is it installed and on PATH?"
        ) from None
    if done.returncode != 0:
        said = (
            done.stderr.decode(errors="replace").strip()
            or done.stdout.decode(errors="replace").strip()
        )
        said = " | ".join(line for line in said.splitlines() if line.strip())
        raise ReleaseError(
            f"`git {printable(' '.join(args))}` failed: {said or f'exit status {done.returncode}'}"
        )
    return done.stdout


def git(*args: str) -> str:
    return run_git(*args).decode(errors="replace").strip()


def object_id(value: str) -> str:
    """`value` if it is a full object id (so never read as an option), else ReleaseError."""
    if not OBJECT_ID.fullmatch(value):
        raise ReleaseError(f"expected a git object id, found {value!r}")
    return value


def require_clean(advice: str) -> None:
    """ReleaseError naming the first changed or untracked paths, unless the working tree is
    clean."""
    status = run_git("status", "--porcelain", "--untracked-files=normal").decode(errors="replace")
    if dirty := [line[3:] for line in status.splitlines()]:
        raise ReleaseError(f"the working tree is dirty ({', '.join(dirty[:5])}); {advice}")


def commit_of(ref: str) -> str | None:
    """The commit a ref (a branch, tag, sha or `HEAD~2`) names, or None when it names none."""
    try:
        found = git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    except ReleaseError:  # not a repository, or not a ref at all
        return None
    return object_id(found) if found else None


def behind(branch: str) -> tuple[str, int] | None:
    """The remote-tracking branch of `branch` (its upstream, then origin's: the printed push goes
    there) that has most commits `branch` lacks, and how many, as last fetched (no network); None
    when there is no such branch."""
    if (local := commit_of(branch)) is None:
        return None
    found: list[tuple[int, str]] = []
    for ref in (f"{branch}@{{upstream}}", f"refs/remotes/origin/{branch}"):
        if (remote := commit_of(ref)) is not None:
            name = git("rev-parse", "--abbrev-ref", ref)  # ref is ours, never an option
            found.append((int(git("rev-list", "--count", f"{local}..{remote}")), name))
    if not found:
        return None
    count, name = max(found)
    return name, count


def head() -> str:
    return object_id(git("rev-parse", "--verify", "--end-of-options", "HEAD^{commit}"))


def parents(commit: str) -> list[str]:
    return git("rev-list", "--parents", "--max-count=1", object_id(commit)).split()[1:]


def missing_identity() -> str | None:
    """git's complaint when it cannot name the author or committer of a commit, else None."""
    for who in ("GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"):
        try:
            git("var", who)
        except ReleaseError as exc:
            return str(exc)
    return None


def tree_files(commit: str, paths: tuple[str, ...]) -> tuple[dict[str, bytes], list[str]]:
    """The regular files below `paths` in `commit` with their bytes, and the other entries as
    "path (kind)"."""
    listing = run_git("ls-tree", "-r", "-z", "--full-tree", object_id(commit), "--", *paths)
    blobs: dict[str, str] = {}
    odd: list[str] = []
    for record in filter(None, listing.split(b"\0")):
        meta, _, raw_path = record.partition(b"\t")
        mode, kind, oid = meta.decode().split(" ")
        path = raw_path.decode("utf-8", errors="surrogateescape")
        if kind == "blob" and mode in ("100644", "100755"):
            blobs[path] = object_id(oid)
        else:
            odd.append(f"{path} ({'symbolic link' if mode == '120000' else kind})")
    out = (
        run_git("cat-file", "--batch", stdin="".join(f"{oid}\n" for oid in blobs.values()).encode())
        if blobs
        else b""
    )
    files: dict[str, bytes] = {}
    at = 0
    for path, oid in blobs.items():
        end = out.index(b"\n", at)
        header = out[at:end].decode().split(" ")
        if header[0] != oid or len(header) != 3 or header[1] != "blob":
            raise ReleaseError(f"git cat-file: expected blob {oid}, found {' '.join(header)}")
        at = end + 1 + int(header[2]) + 1  # the contents end with a newline
        files[path] = out[end + 1 : at - 1]
    return dict(sorted(files.items())), odd


def commit(message: str, path: str) -> None:
    """Commit the staged `path` alone, hooks and all."""
    run_git("commit", "--quiet", "--file=-", "--", path, stdin=message.encode())


def create_annotated_tag(tag: str, message: str, target: str) -> None:
    """A new annotated tag on `target`; git refuses to move an existing one."""
    run_git(
        "tag",
        "--annotate",
        "--file=-",
        "--end-of-options",
        tag,
        object_id(target),
        stdin=message.encode(),
    )
