"""Release tags that tell the truth: a tag names the data version of the data committed at it, or
it is no release."""

from builder import git
from builder.dates import newest_data_version, parse_or_none
from builder.layout import DATA, JSON, below, is_published
from builder.release.rules import Version, release_versions


def data_version_of(files: dict[str, bytes]) -> str | None:
    """The newest data_version among the published JSON documents of `files` (by path from the
    repository root)."""
    inside = (below(rel, DATA.as_posix()) for rel in files)
    rels = [
        f"{DATA.as_posix()}/{rel}"
        for rel in inside
        if rel and rel.endswith(JSON) and is_published(rel)
    ]
    return newest_data_version(parse_or_none(files[rel]) for rel in rels)


def data_version_at(commit: str) -> str | None:
    """The data version of the data committed at `commit` (None when it has no dated document)."""
    return data_version_of(git.tree_files(commit, (DATA.as_posix(),))[0])


def mismatch(version: Version, data_version: str | None, commit: str) -> str | None:
    """Why a release tag on `commit` does not name the data committed there, or None when it
    does."""
    if version.date == data_version:
        return None
    want = f"data version {data_version}" if data_version else "a dated document"
    return (
        f"tag {version.tag}: expected the data version of the data committed at it "
        f"({commit[:12]}), found "
        f"{version.date}, where the data has {want}; a release tag names its data's version"
    )


def newest_matching(tags: list[str]) -> Version | None:
    """The newest release tag that names the data committed at it; a tag that does not is never
    counted."""
    for version in release_versions(tags):
        commit = git.commit_of(f"refs/tags/{version.tag}")
        if commit is not None and mismatch(version, data_version_at(commit), commit) is None:
            return version
    return None
