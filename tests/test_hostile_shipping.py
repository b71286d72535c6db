"""Hostile corpus of what ships and when: a file under data/ that is not published, a tag or a date
that lies, and a push that could half-happen.

One case per class. Every refused case holds the command to tests/hostile.py: its exit code, one
escaped line naming the culprit, no traceback, and every pre-existing file (refs, HEAD and config
too) unchanged.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from builder.diff import diff_trees, load_docs
from builder.git import behind
from builder.release.rules import LARGE_CHANGE_PCT
from helpers import REPO, slow_after
from hostile import assert_refused, run_cli, tree_digest
from rules import rule_problems
from test_hostile_release import (
    IDENTITY,
    assert_nothing_changed,
    git,
    new_repo,
    released,
    state,
    trust_data,
)


def problem_lines(output: str, name: str) -> list[str]:
    return [line for line in output.splitlines() if name in line]


def test_a_dotfile_under_data_is_refused_by_validate(repo_copy: Path) -> None:
    models = repo_copy / "data" / "models"
    (models / ".qwen-3-8b.json").write_bytes((models / "qwen-3-8b.json").read_bytes())
    before = tree_digest(repo_copy)
    outcome = run_cli("validate")
    assert_refused(outcome, 1, "data/models/.qwen-3-8b.json", before, tree_digest(repo_copy))
    assert problem_lines(outcome.output, ".qwen-3-8b.json") == [
        "data/models/.qwen-3-8b.json: /: expected only published files, found a stray file"
    ]


FOLDERS = ["models/zz.json", "workloads/text-to-image/configurations.csv.d"]


@pytest.mark.parametrize("folder", FOLDERS)
def test_a_folder_under_data_that_no_build_makes_is_refused_by_rule(
    reused_copy: Path, folder: str
) -> None:
    """A folder named like a file (empty: git would never hold it, but a reader of the folder
    would), refused as a dotfile is: by validate's checks (tests/rules.py)."""
    (reused_copy / "data" / folder).mkdir()
    assert [line for line in rule_problems(reused_copy / "data") if folder in line] == [
        f"data/{folder}: /: expected only published folders, found a stray folder"
    ]


# Through `builder validate`: the first folder in the fast tier, the other slow.
@pytest.mark.parametrize("folder", slow_after([pytest.param(folder) for folder in FOLDERS]))
def test_a_folder_under_data_that_no_build_makes_is_refused_by_validate(
    repo_copy: Path, folder: str
) -> None:
    (repo_copy / "data" / folder).mkdir()
    before = tree_digest(repo_copy)
    outcome = run_cli("validate")
    assert_refused(outcome, 1, f"data/{folder}", before, tree_digest(repo_copy))
    assert problem_lines(outcome.output, folder) == [
        f"data/{folder}: /: expected only published folders, found a stray folder"
    ]


@pytest.mark.parametrize(
    ("workload", "slug", "keys"),
    [
        pytest.param("text-to-image", "flux-1-dev", ("joules_per_image", "wh_per_thousand_images")),
        pytest.param("text-to-video", "hunyuanvideo", ("wh_per_video_second",), id="video-second"),
    ],
)
def test_the_guard_counts_a_generation_configurations_energy(
    reused_copy: Path, workload: str, slug: str, keys: tuple[str, ...]
) -> None:
    """A configuration off the frontier, an energy value three times what it was (a video's per
    second of video alone when its length changed): the guard stops on it, as on a best value."""
    rel = f"workloads/{workload}/models/{slug}.json"
    old = load_docs(str(REPO / "data"))
    doc = json.loads((reused_copy / "data" / rel).read_text())
    conf = doc["configurations"][-1]
    for key in keys:
        conf[key] = round(conf[key] * 3, 4)
    (reused_copy / "data" / rel).write_text(json.dumps(doc, indent=2) + "\n")
    diff = diff_trees(old, load_docs(str(reused_copy / "data")))
    large = diff.large_changes(LARGE_CHANGE_PCT)
    assert [line.split(": ")[0] for line in large] == [
        f"{workload}:{conf['row_id']} #1 {key}" for key in keys
    ], large
    assert all(line.endswith("(+200.0 %)") for line in large), large


SCHEMA_FILES = [
    pytest.param(
        "evil.schema.json",
        b'{"$id": "https://evil.example/x"}',
        "schemas/evil.schema.json: /: expected only the package's schemas, found a stray file",
        id="stray-file",
    ),
    pytest.param(
        "model.schema.json",
        b'{"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://evil.example/x"}',
        'schemas/model.schema.json: /$id: expected "https://leadgreen.ai/schemas/v1/model.schema.json"'
        ', found "https://evil.example/x"',
        id="foreign-id",
    ),
]


@pytest.mark.parametrize(("name", "content", "line"), SCHEMA_FILES)
def test_a_file_under_schemas_that_is_not_the_packages_is_refused_by_validate(
    repo_copy: Path, name: str, content: bytes, line: str
) -> None:
    (repo_copy / "schemas" / name).write_bytes(content)
    before = tree_digest(repo_copy)
    outcome = run_cli("validate")
    assert_refused(outcome, 1, line, before, tree_digest(repo_copy))
    assert outcome.output.splitlines() == [line, "error: schemas: 1 problem(s)"]


# --- build --date: after tomorrow (UTC), or before the upstream was retrieved ---

DATES = [
    pytest.param("9999-12-31", "expected a date no later than ", id="far-future"),
    pytest.param(
        "1970-01-01",
        "expected a date no earlier than 2026-09-26 (when upstream was retrieved",
        id="too-old",
    ),
]


@pytest.mark.parametrize(("date", "said"), DATES)
def test_a_build_date_that_cannot_be_is_refused(repo_copy: Path, date: str, said: str) -> None:
    before = tree_digest(repo_copy)
    outcome = run_cli("build", "--date", date)
    assert_refused(outcome, 1, (said, f"found {date}"), before, tree_digest(repo_copy))
    assert outcome.output.count("\n") == 1, outcome.output  # one line


def test_a_build_date_is_read_as_yyyy_mm_dd_alone(repo_copy: Path) -> None:
    """Python's fromisoformat also reads an ISO week date (2026-W49-5): only the pattern is a
    date."""
    before = tree_digest(repo_copy)
    outcome = run_cli("build", "--date", "2026-W49-5")
    said = "Invalid value for '--date': expected a date as YYYY-MM-DD, found '2026-W49-5'"
    assert_refused(outcome, 2, said, before, tree_digest(repo_copy))


def test_a_backdated_build_that_changes_content_is_refused(repo_copy: Path) -> None:
    """Content changed under a date before the package's data version (2026-11-29) would leave
    the version where it is: a release would say nothing changed."""
    meta = repo_copy / "metadata.toml"
    meta.write_text(meta.read_text().replace('caveat = "GPU energy only', 'caveat = "GPU-only'))
    before = tree_digest(repo_copy)
    outcome = run_cli("build", "--date", "2026-10-01")
    said = (
        "error: the build date (--date): expected a date no earlier than the package's data "
        "version 2026-11-29, found 2026-10-01 (data/"
    )
    assert_refused(outcome, 1, said, before, tree_digest(repo_copy))
    assert outcome.output.count("\n") == 1, outcome.output  # one line


def redate(root: Path, old: str, new: str) -> None:
    """Every document's data_version and updated `old` set to `new`, the descriptor's version and
    hashes to match: a tree that only its dates make wrong."""
    for path in (root / "data").rglob("*.json"):
        text = path.read_text("utf-8")
        for key in ("data_version", "updated"):
            text = text.replace(f'"{key}": "{old}"', f'"{key}": "{new}"')
        path.write_text(text, "utf-8")
    descriptor = json.loads((root / "datapackage.json").read_text("utf-8"))
    descriptor["version"] = new
    for resource in descriptor["resources"]:
        data = (root / resource["path"]).read_bytes()
        resource["bytes"], resource["hash"] = (
            len(data),
            f"sha256:{hashlib.sha256(data).hexdigest()}",
        )
    (root / "datapackage.json").write_text(json.dumps(descriptor, indent=2) + "\n", "utf-8")


def test_a_future_data_version_in_the_tree_is_refused_by_validate(repo_copy: Path) -> None:
    redate(repo_copy, "2026-11-29", "9999-01-01")
    before = tree_digest(repo_copy)
    outcome = run_cli("validate")
    line = "data/frontier.json: /data_version: expected a date no later than "
    assert_refused(outcome, 1, (line, "found 9999-01-01 (and in "), before, tree_digest(repo_copy))
    assert len(outcome.output.splitlines()) == 2, outcome.output  # the problem, then the count
    # a build carries no date after tomorrow forward: it dates the content anew, and it validates
    assert run_cli("build").exit_code == 0
    assert run_cli("validate").exit_code == 0, run_cli("validate").output


# --- Tags: one that names other data, a day no calendar has, a bogus future tag; main behind its
# remote ---


@pytest.fixture(scope="module")
def committed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package committed on main in a repository of its own (data version 2026-11-29), never
    released."""
    base = tmp_path_factory.mktemp("shipping")
    with pytest.MonkeyPatch.context() as mp:
        for key, value in IDENTITY.items():
            mp.setenv(key, value)
        mp.setenv("HOME", str(base))
        return new_repo(base / "committed")


@pytest.fixture
def repo(committed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("HOME", str(tmp_path))
    root = shutil.copytree(committed, tmp_path / "pkg", symlinks=True)
    monkeypatch.chdir(root)
    return root


def dotfile_commit(repo: Path) -> None:
    models = repo / "data" / "models"
    (models / ".qwen-3-8b.json").write_bytes((models / "qwen-3-8b.json").read_bytes())
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", "a dotfile under data/")


DIST_REFUSED = [
    pytest.param(
        None,
        "v2028.01.01",
        "tag v2028.01.01: expected the data version of the data committed at it (",
        id="tag-names-other-data",
    ),
    pytest.param(
        None,
        "v2026.02.30",
        "tag v2026.02.30: expected a real date, found 2026-02-30",
        id="impossible-date",
    ),
    pytest.param(
        None,
        "v2026.11.29.0",
        "tag v2026.11.29.0: expected a serial from 2 to 999 without a leading zero, found .0",
        id="serial-0-of-the-data-version",
    ),
    pytest.param(
        dotfile_commit,
        "v2026.11.29",
        "expected only published files under data/ and schemas/ at ",
        id="dotfile-committed-under-data",
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize(("setup", "tag", "said"), DIST_REFUSED)
def test_dist_refuses_a_tag_that_lies(repo: Path, setup, tag: str, said: str) -> None:
    """As the release workflow runs it: `builder dist --tag <the pushed tag>` on a checkout of
    the tag."""
    if setup is not None:
        setup(repo)
    git(repo, "tag", "--annotate", tag, "-m", "pushed")
    before = state(repo)
    for args in (("dist", "--tag", tag), ("dist",)):
        outcome = run_cli(*args)
        assert_nothing_changed(outcome, (said,), before, state(repo))
        assert outcome.output.count("\n") == 1, outcome.output  # one line


@pytest.mark.slow
def test_a_bogus_future_tag_is_never_the_newest_release(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tag two years ahead of the data, on the data's own commit: dist refuses it, and release
    releases past it."""
    trust_data(monkeypatch)
    git(repo, "tag", "--annotate", "v2028.12.01", "-m", "from the future")
    before = state(repo)
    outcome = run_cli("dist", "--tag", "v2028.12.01")
    assert_nothing_changed(
        outcome, ("tag v2028.12.01: expected the data version", "2026-11-29"), before, state(repo)
    )
    released(run_cli("release"), "v2026.11.29")
    assert "First release." in (repo / "CHANGELOG.md").read_text()


@pytest.mark.slow
def test_release_refuses_when_main_is_behind_its_remote(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A local bare remote that has a commit main lacks, as last fetched: release refuses; after
    a pull it releases."""
    trust_data(monkeypatch)
    remote = tmp_path / "remote.git"
    git(repo, "clone", "--quiet", "--bare", str(repo), str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "fetch", "--quiet", "origin")
    git(repo, "branch", "--quiet", "--set-upstream-to", "origin/main", "main")
    other = tmp_path / "other"
    git(tmp_path, "clone", "--quiet", str(remote), str(other))
    (other / "NOTES.md").write_text("a commit pushed from another clone\n")
    git(other, "add", "NOTES.md")
    git(other, "commit", "--quiet", "-m", "elsewhere")
    git(other, "push", "--quiet", "origin", "main")
    git(repo, "fetch", "--quiet", "origin")
    before = state(repo)
    outcome = run_cli("release")
    assert_nothing_changed(
        outcome,
        ("main is behind origin/main by 1 commit(s)", "git pull --ff-only"),
        before,
        state(repo),
    )
    assert outcome.output.count("\n") == 1, outcome.output
    git(repo, "pull", "--quiet", "--ff-only")
    done = run_cli("release")
    released(done, "v2026.11.29")
    assert "To publish: git push --atomic origin main v2026.11.29" in done.output


def test_main_behind_origin_is_seen_though_it_tracks_another_remote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """main follows a fork that is up to date, while origin, where the printed push goes, has a
    commit main lacks: the check release runs names origin's."""

    def commit(repo: Path, name: str) -> None:
        (repo / name).write_text(f"{name}\n")
        git(repo, "add", name)
        git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", name)

    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "--quiet", "--initial-branch", "main")
    commit(repo, "a")
    for remote in ("origin", "fork"):
        git(repo, "clone", "--quiet", "--bare", str(repo), str(tmp_path / f"{remote}.git"))
        git(repo, "remote", "add", remote, str(tmp_path / f"{remote}.git"))
    other = tmp_path / "other"
    git(tmp_path, "clone", "--quiet", str(tmp_path / "origin.git"), str(other))
    commit(other, "b")
    git(other, "push", "--quiet", "origin", "main")
    git(repo, "fetch", "--quiet", "--all")
    git(repo, "branch", "--quiet", "--set-upstream-to", "fork/main", "main")
    monkeypatch.chdir(repo)
    assert behind("main") == ("origin/main", 1)
