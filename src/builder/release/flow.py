"""`builder release`: checks, the changelog commit and the annotated tag (undone on a failure
before the tag), dist/."""

from dataclasses import dataclass
from pathlib import Path

from builder import card, git
from builder.dates import date_fault, newest_data_version
from builder.diff import diff_trees, load_docs, load_tables
from builder.drift import check_committed
from builder.errors import BuilderError, ReleaseError, ValidationError, printable, printable_lines
from builder.guards import check_dist_output
from builder.layout import CHANGELOG, DATA, DESCRIPTOR, DIST, LOCK, SCHEMAS
from builder.pin import load_lock
from builder.release import consumer, rules
from builder.release.compat import guard_release
from builder.release.consumer import LISTED
from builder.release.dist import REQUIRED, build_dist, files_at
from builder.release.tags import newest_matching
from builder.scratch import scratch_folder
from builder.write import replace_files, signals_held


@dataclass(frozen=True)
class Plan:
    """Everything a release commits and tags, computed before it writes anything."""

    start: str  # the commit the release builds on
    version: rules.Version
    summary: str  # the tag message
    changelog: bytes  # CHANGELOG.md as it will be committed


def cut_release(
    today: str, accept: str | None, accept_schema: str | None = None
) -> tuple[Plan, list[Path]]:
    """Check, commit CHANGELOG.md and tag it (undone on failure), then rebuild dist/: the plan
    and the dist/ files."""
    plan = plan_release(today, accept, accept_schema)
    check_dist_output(DIST)  # rebuilt once the tag exists: refused now if that would damage it
    before, committing, made = _read(CHANGELOG), False, None
    try:
        replace_files({CHANGELOG: plan.changelog})
        git.run_git("add", "--", CHANGELOG.as_posix())
        committing = True  # from here, a new commit on the start is this run's
        git.commit(f"Release {plan.version.tag}\n\n{plan.summary}", CHANGELOG.as_posix())
        made = git.head()
        if made == plan.start or git.parents(made) != [plan.start]:
            raise ReleaseError(
                f"expected HEAD to be the release commit on {plan.start[:12]}, found {made[:12]}"
            )
        git.create_annotated_tag(plan.version.tag, plan.summary, made)
    except BaseException as exc:
        if made is not None and git.commit_of(f"refs/tags/{plan.version.tag}") == made:
            # the tag is on this run's commit: the release is made, and `builder dist` makes dist/
            # from it
            raise
        with signals_held():  # a second signal waits until the rollback is done
            left = _roll_back(plan.start, before, committing)
        if not isinstance(exc, BuilderError | OSError):
            raise  # a bug or an interrupt: rolled back, and shown as it is
        cause = (
            f"{exc.filename or exc}: {exc.strerror or exc}"
            if isinstance(exc, OSError)
            else str(exc)
        ).rstrip(". ")
        note = f"Nothing was released: {CHANGELOG}, HEAD, the tags and {DIST}/ are as they were"
        if left:
            note = "Rollback incomplete; fix by hand: " + "; ".join(left)
        raise ReleaseError(f"{cause}. {note}") from exc
    try:
        _, paths = build_dist(DIST, plan.version.tag)
    except BuilderError as exc:
        raise ReleaseError(
            f"tagged {plan.version.tag}, but {DIST}/ was not rebuilt ({exc}); run `builder dist`"
        ) from exc
    return plan, paths


def plan_release(today: str, accept: str | None, accept_schema: str | None = None) -> Plan:
    """Check the clone (complete, clean, on main, with an identity) and the committed package;
    writes nothing."""
    if git.git("rev-parse", "--is-shallow-repository") == "true":
        raise ReleaseError(
            "this clone is shallow (git rev-parse --is-shallow-repository: true), so earlier "
            "release tags and "
            "history may be missing; run `git fetch --tags --unshallow` first"
        )
    git.require_clean("commit or stash first")
    if (branch := git.git("rev-parse", "--abbrev-ref", "HEAD")) != "main":
        raise ReleaseError(f"releases are cut from main, found branch {branch}")
    if (remote := git.behind("main")) is not None and remote[1]:
        raise ReleaseError(
            f"main is behind {remote[0]} by {remote[1]} commit(s), as last fetched; "
            "run `git pull --ff-only` first, so the release builds on what is published"
        )
    if missing := git.missing_identity():
        raise ReleaseError(
            f"no git identity to author the release commit and tag ({missing}); "
            "set one with `git config user.name NAME` and `git config user.email EMAIL`"
        )
    start = git.head()
    committed = files_at(start, required=REQUIRED)
    if untrue := consumer.problems(committed | files_at(start, consumer.TEXTS)):
        raise ReleaseError(
            f"refusing to tag what a consumer would read as true: {'; '.join(untrue)}"
        )
    try:
        changelog_text = committed.get(CHANGELOG.as_posix(), b"").decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReleaseError(
            f"{CHANGELOG}: expected UTF-8 text, found undecodable bytes ({exc.reason})"
        ) from None
    if _read(CHANGELOG) != committed.get(CHANGELOG.as_posix()):
        raise ReleaseError(
            f"{CHANGELOG}: expected the committed file in the working folder, found other bytes "
            f"although git status "
            "shows no change (skip-worktree, assume-unchanged or git-ignored?); restore it from "
            "HEAD first"
        )
    existing = git.git("tag", "--list").split()
    if absent := rules.missing_tags(changelog_text, existing):
        raise ReleaseError(
            f"{CHANGELOG} names release tag(s) this clone does not have: {', '.join(absent)} "
            "(not in `git tag --list`); run `git fetch --tags` first"
        )
    package = {
        rel: data
        for rel, data in committed.items()
        if rel == DESCRIPTOR or rel.startswith((f"{DATA}/", f"{SCHEMAS}/"))
    }
    # the data and schemas as committed, away from git-ignored files
    with scratch_folder("builder-release-", package) as root:
        try:
            check_committed(root / DATA, today)
        except ValidationError as exc:
            summary = f"{DATA} as committed in {start[:12]}: {len(exc.problems)} problem(s)"
            raise ValidationError(summary, exc.problems) from None
        docs = load_docs(str(root / DATA))
        table = load_tables(str(root / DATA), docs)
    data_version = newest_data_version(docs.values()) or ""  # validated: every document has one
    retrieved = min((lock.retrieved for lock in load_lock(LOCK).values()), default=None)
    if fault := date_fault(data_version, today, retrieved):
        raise ReleaseError(f"data version {data_version} as committed in {start[:12]}: {fault}")
    api = docs["index.json"]["version"]
    # a tag that does not name its data's version is no release
    previous = newest_matching(existing)
    old_docs = load_docs(previous.tag) if previous else {}
    old_table = load_tables(previous.tag, old_docs) if previous else {}
    diff = diff_trees(old_docs, docs, (old_table, table)) if previous else None
    version = rules.next_version(
        data_version, previous, changed=diff is not None and not diff.empty
    )
    if version.tag in existing:
        raise ReleaseError(
            f"tag {version.tag} already exists and does not name the data committed at it; "
            f"delete it (git tag --delete {version.tag}) before releasing"
        )
    large = diff.large_changes(rules.LARGE_CHANGE_PCT) if diff else []
    if large and not accept and previous:
        listed = "; ".join(large)
        raise ReleaseError(
            f"large changes since {previous.tag}: {listed}. Rerun with --accept-large-changes "
            f"REASON"
        )
    schemas = guard_release(previous.tag, start, old_docs, docs, accept_schema) if previous else ""
    upstream = "".join(
        f"\n- {task}: {lock.url} at commit {lock.commit}, sha256 {lock.sha256}, retrieved "
        f"{lock.retrieved}" + (f" from the mirror {lock.mirror}" if lock.mirror else "")
        for task, lock in load_lock(LOCK).items()
    )
    # one line each
    accept, accept_schema = (None if r is None else printable(r) for r in (accept, accept_schema))
    added = (
        None
        if previous
        else rules.since_seed(list(docs_paths(package)), card.listed_workloads(package[LISTED]))
    )
    entry = printable_lines(
        rules.changelog_entry(version, api, previous, diff, accept, upstream, added) + schemas
    )
    message = rules.tag_message(version, previous, diff) + (
        f"\nLarge changes accepted: {accept}\n" if large else ""
    )
    message += f"\nSchema change accepted: {accept_schema}\n" if schemas and accept_schema else ""
    return Plan(
        start,
        version,
        printable_lines(message),
        rules.insert_entry(changelog_text, entry).encode("utf-8"),
    )


def docs_paths(package: dict[str, bytes]) -> list[str]:
    """The data folder's files of a committed package, relative to that folder."""
    return [rel.removeprefix(f"{DATA}/") for rel in package if rel.startswith(f"{DATA}/")]


def _roll_back(start: str, before: bytes | None, committing: bool) -> list[str]:
    """Undo the commit (if `committing`), then CHANGELOG.md staged and written; what could not
    be, one phrase each."""
    left: list[str] = []

    def head() -> None:
        now = git.head()
        if now != start and committing and git.parents(now) == [start]:
            try:
                git.run_git(
                    "update-ref",
                    "-m",
                    "builder release: roll back the release commit",
                    "--end-of-options",
                    "HEAD",
                    start,
                    git.object_id(now),
                )
            except ReleaseError as exc:
                left.append(
                    f"HEAD is still the release commit {now[:12]} ({exc}); "
                    f"undo it with `git reset --keep {start[:12]}`"
                )
        elif now != start:
            left.append(
                f"HEAD moved to {now[:12]} during the release, left there (was {start[:12]})"
            )

    def index() -> None:
        path = CHANGELOG.as_posix()
        if (
            git.head() == start
            and git.run_git("diff-index", "--cached", "--name-only", start, "--", path).strip()
        ):
            # only when staged: diff-index takes no index lock
            git.run_git("reset", "--quiet", start, "--", path)

    def changelog() -> None:
        if git.head() != start:
            left.append(f"{CHANGELOG} left as committed, since HEAD is not back at {start[:12]}")
        elif before is None:
            # this run created it (a hook may have edited it since)
            CHANGELOG.unlink(missing_ok=True)
        elif _read(CHANGELOG) != before:
            replace_files({CHANGELOG: before})

    for step in (head, index, changelog):
        try:
            step()
        except (BuilderError, OSError) as exc:
            left.append(f"{step.__name__}: {exc}")
    return left


def _read(path: Path) -> bytes | None:
    """A regular file's bytes, or None when there is none (or something else is there)."""
    return path.read_bytes() if path.is_file() else None
