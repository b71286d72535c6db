"""Release rules, pure: the tag scheme, the next tag, and the changelog entry."""

import datetime as dt
import re
from dataclasses import dataclass

from builder.card import ListedWorkload
from builder.diff import Diff, render_text
from builder.errors import ReleaseError, printable
from builder.layout import MODELS_DIR, ROOT_WORKLOAD, WORKLOADS_DIR

TAG = re.compile(r"v([0-9]{4})\.([0-9]{2})\.([0-9]{2})(?:\.([0-9]+))?")
# A day gets at most this many releases: a serial beyond it is a typo, not a release.
MAX_SERIAL = 999
LARGE_CHANGE_PCT = 25.0
# The v1 seed: text conversation's first documents, published for data version 2026-09-27
# (tests/reference/v1).
SEED = ("index.json", "models.json", f"{MODELS_DIR}/")
SEED_NOTE = (
    "the v1 seed documents (text conversation's `index.json`, `models.json` and "
    "`models/<slug>.json`, "
    "data version 2026-09-27)"
)
HEADING = re.compile(r"^## (v[0-9]{4}\.[0-9]{2}\.[0-9]{2}(?:\.[0-9]+)?)(?![\w.])", re.MULTILINE)


@dataclass(frozen=True, order=True)
class Version:
    """v<YYYY.MM.DD> for the first release of a data version, v<YYYY.MM.DD>.<n> (n >= 2) after
    it."""

    date: str  # YYYY-MM-DD
    serial: int = 1

    @property
    def tag(self) -> str:
        base = "v" + self.date.replace("-", ".")
        return base if self.serial == 1 else f"{base}.{self.serial}"

    @property
    def number(self) -> str:
        """The tag without its `v`, in PEP 440's normal form: v2026.01.05 -> 2026.1.5 (installers
        match either)."""
        parts = [int(part) for part in self.date.split("-")] + (
            [self.serial] if self.serial > 1 else []
        )
        return ".".join(map(str, parts))


def read_tag(tag: str) -> Version:
    """The version a release tag names, or ReleaseError: a name of another shape, a day no calendar
    has, a serial below 2, above MAX_SERIAL or with a leading zero."""
    found = TAG.fullmatch(tag)
    if found is None:
        raise ReleaseError(
            f"tag {printable(tag)}: expected a release tag, vYYYY.MM.DD or vYYYY.MM.DD.N, found "
            f"another"
        )
    date = f"{found[1]}-{found[2]}-{found[3]}"
    try:
        dt.date.fromisoformat(date)
    except ValueError:
        raise ReleaseError(
            f"tag {tag}: expected a real date, found {date}, a day no calendar has"
        ) from None
    serial = found[4]
    version = Version(date, int(serial) if serial and len(serial) <= len(str(MAX_SERIAL)) else 1)
    if serial is not None and (version.serial < 2 or str(version.serial) != serial):
        raise ReleaseError(
            f"tag {tag}: expected a serial from 2 to {MAX_SERIAL} without a leading zero, "
            f"found .{serial}"
        )
    return version


def release_versions(tags: list[str]) -> list[Version]:
    """The versions of the release tags among `tags`, newest first; any other name is left out."""
    found = []
    for tag in tags:
        try:
            found.append(read_tag(tag))
        except ReleaseError:
            continue
    return sorted(found, reverse=True)


def newest_release(tags: list[str]) -> Version | None:
    """The newest version among the release tags, by name alone (release.tags.newest_matching
    also reads the data)."""
    return next(iter(release_versions(tags)), None)


def missing_tags(changelog: str, tags: list[str]) -> list[str]:
    """The tags the changelog's entries name (`## vYYYY.MM.DD[.N] ...`) that are not among
    `tags`, in file order."""
    return [tag for tag in dict.fromkeys(HEADING.findall(changelog)) if tag not in tags]


def next_version(data_version: str, newest: Version | None, changed: bool) -> Version:
    """The version to release, or ReleaseError when the data is not newer than the newest
    release."""
    if newest is None or data_version > newest.date:
        return Version(data_version)
    if data_version < newest.date:
        raise ReleaseError(
            f"data version {data_version} is older than the newest release {newest.tag}; refusing"
        )
    if not changed:
        raise ReleaseError(
            f"tag {newest.tag} already exists for data version {data_version}, and nothing "
            f"changed since"
        )
    return Version(data_version, newest.serial + 1)


def tag_message(version: Version, previous: Version | None, diff: Diff | None) -> str:
    """The tag message: one headline and the changes in short."""
    head = f"LeadGreen data {version.tag} (data version {version.date})"
    if previous is None or diff is None:
        return f"{head}\n\nFirst release.\n"
    counts = [
        f"{len(diff.models.added)} model(s) added, {len(diff.models.removed)} removed",
        f"{len({c.where for c in diff.best.changed})} best value set(s) changed",
        f"{len(diff.configurations.added)} configuration(s) added, "
        f"{len(diff.configurations.removed)} removed, "
        f"{len({c.where for c in diff.configurations.changed})} changed",
    ]
    return f"{head}\n\nCompared with {previous.tag}: " + "; ".join(counts) + ".\n"


def since_seed(paths: list[str], workloads: list[ListedWorkload]) -> list[str]:
    """The first release's account of what it adds to the v1 seed: each workload, then each
    document by folder."""
    lines = [f"Added since {SEED_NOTE}:", "", "Workloads:", ""]
    lines += [
        f"- `{w.id}` ({w.name}): {w.models} models, {w.configurations} configurations, in {w.unit}"
        for w in workloads
        if w.id != ROOT_WORKLOAD
    ]
    root = [
        f"- `{path}`" for path in sorted(paths) if "/" not in path and not path.startswith(SEED)
    ]
    folders: dict[str, list[str]] = {}
    for path in sorted(paths):
        if path.startswith(f"{WORKLOADS_DIR}/") and path.count("/") >= 2:
            workload, name = path.split("/", 2)[1:]
            folders.setdefault(f"{WORKLOADS_DIR}/{workload}/", []).append(name)
    lines += ["", "Documents (in `data/`):", "", *root]
    for folder, names in folders.items():
        models = sum(name.startswith(f"{MODELS_DIR}/") for name in names)
        shown = [f"`{name}`" for name in names if not name.startswith(f"{MODELS_DIR}/")]
        shown += [f"`{MODELS_DIR}/<slug>.json` ({models})"] if models else []
        lines.append(f"- `{folder}`: {', '.join(shown)}")
    return [*lines, ""]


def changelog_entry(
    version: Version,
    api: str,
    previous: Version | None,
    diff: Diff | None,
    accepted: str | None,
    upstream: str,
    added: list[str] | None = None,
) -> str:
    """The changelog entry of a release; `added` (since_seed's lines) follows a first release's
    line."""
    lines = [f"## {version.tag} — data version {version.date}, API v{api}", ""]
    if previous is None or diff is None:
        lines += ["First release.", "", *(added or [])]
    else:
        text = render_text(diff).rstrip()
        marks = fence(text)
        lines += [f"Compared with {previous.tag}:", "", marks, text, marks, ""]
        if diff.precisions.added:
            values = ", ".join(diff.precisions.added)
            widened = (
                f"New weight precision value(s): {values}. The v1 schemas' precision enum "
                f"was widened to admit"
            )
            lines += [
                f"{widened} them; consumers who switch on precision should handle {values}.",
                "",
            ]
        if large := diff.large_changes(LARGE_CHANGE_PCT):
            lines += (
                [f"Large changes accepted: {accepted}", ""] + [f"- {item}" for item in large] + [""]
            )
    lines += [f"Upstream: {upstream}", ""]
    return "\n".join(lines)


def fence(text: str) -> str:
    """A Markdown code fence that `text` cannot close: one backtick longer than its longest run,
    at least 3."""
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    return "`" * max(3, longest + 1)


def insert_entry(changelog: str, entry: str) -> str:
    """Newest first, under the file's title."""
    title = (
        "# Changelog\n\nEvery data release, newest first: what changed in the numbers, and why.\n\n"
    )
    body = changelog.removeprefix(title)
    return title + entry + ("\n" + body if body.strip() else "")
