"""The GitHub workflows: valid, every action pinned by commit, least privilege, and the release
and upstream flows."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from helpers import REPO

WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
PINNED = re.compile(
    r"^\s*(?:-\s+)?uses:\s*(?P<action>[\w.-]+/[\w./-]+)@(?P<ref>[0-9a-f]{40})\s+#\s+v\d+(\.\d+)*\s*$"
)


def load(name: str) -> dict[str, Any]:
    return YAML(typ="safe").load((REPO / ".github" / "workflows" / name).read_text())


def steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    return job.get("steps", [])


def test_the_workflows_are_there() -> None:
    assert [p.name for p in WORKFLOWS] == ["ci.yml", "pages.yml", "release.yml", "upstream.yml"]


@pytest.mark.slow  # an outside tool
def test_every_workflow_passes_the_vendored_github_workflows_schema() -> None:
    check = Path(sys.executable).parent / "check-jsonschema"
    run = subprocess.run(
        [str(check), "--builtin-schema", "vendor.github-workflows", *map(str, WORKFLOWS)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "ok -- validation done" in run.stdout


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_action_is_pinned_to_a_commit_with_its_version_in_a_comment(path: Path) -> None:
    lines = [line for line in path.read_text().splitlines() if re.match(r"^\s*(-\s+)?uses:", line)]
    assert lines, path.name
    for line in lines:
        assert PINNED.match(line), (
            f"{path.name}: expected uses: owner/action@<40-hex sha> # vX.Y.Z, found {line.strip()}"
        )


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_the_same_action_is_pinned_to_the_same_commit_everywhere(path: Path) -> None:
    pins: dict[str, set[str]] = {}
    for other in WORKFLOWS:
        for line in other.read_text().splitlines():
            found = PINNED.match(line)
            if found:
                pins.setdefault(found["action"], set()).add(found["ref"])
    assert {action: refs for action, refs in pins.items() if len(refs) > 1} == {}


def test_workflows_grant_nothing_at_the_top_beyond_reading() -> None:
    for path in WORKFLOWS:
        granted = load(path.name).get("permissions")
        assert granted in ({}, {"contents": "read"}), path.name


def test_release_runs_on_release_tags_and_rebuilds_dist_from_the_tag() -> None:
    flow = load("release.yml")
    assert flow["on"] == {"push": {"tags": ["v*"]}}
    build = flow["jobs"]["build"]
    checkout = steps(build)[0]
    assert checkout["uses"].startswith("actions/checkout@")
    assert checkout["with"]["fetch-depth"] == 0
    runs = [step.get("run", "") for step in steps(build)]
    # nothing is built or published until the tagged data validates and matches its pinned upstream
    assert (
        runs.index("builder validate")
        < runs.index("builder drift")
        < runs.index(
            'builder dist --tag "$GITHUB_REF_NAME" --notes "$RUNNER_TEMP/release-notes.md"'
        )
    )
    assert "cd dist && sha256sum -c SHA256SUMS" in runs
    packages = (
        'mkdir "$RUNNER_TEMP/packages" && cp dist/*.whl dist/leadgreen_data-*.tar.gz '
        '"$RUNNER_TEMP/packages/"'
    )
    # the wheel and the sdist; the archive (leadgreen-data-<tag>.tar.gz) is not a package
    assert packages in runs


def test_release_jobs_have_least_privilege() -> None:
    jobs = load("release.yml")["jobs"]
    assert {name: job["permissions"] for name, job in jobs.items()} == {
        "build": {"contents": "read"},
        "release": {"contents": "write"},
        "publish": {"id-token": "write"},
    }


def test_release_creates_the_github_release_with_the_changelog_entry() -> None:
    job = load("release.yml")["jobs"]["release"]
    script = steps(job)[-1]["run"]
    assert "sha256sum -c SHA256SUMS" in script
    assert 'gh release create "$TAG" dist/*' in script
    assert "--notes-file notes/release-notes.md" in script


def test_publish_uploads_the_wheel_and_the_sdist_by_trusted_publishing() -> None:
    job = load("release.yml")["jobs"]["publish"]
    assert job["needs"] == ["build", "release"]
    download, upload = steps(job)
    assert download["with"] == {"name": "packages", "path": "packages"}
    assert upload["uses"].startswith("pypa/gh-action-pypi-publish@")
    assert upload["with"] == {"packages-dir": "packages/"}  # no password: trusted publishing


def test_the_release_tag_deploys_the_site() -> None:
    pages = load("pages.yml")
    assert pages["on"]["push"]["tags"] == ["v*"]
    assert "deploy" in pages["jobs"]


def test_upstream_does_nothing_while_a_refresh_pull_request_is_open() -> None:
    jobs = load("upstream.yml")["jobs"]
    first = steps(jobs["check"])[0]
    assert first["id"] == "open"
    assert "gh pr list" in first["run"]
    assert "--state open" in first["run"]
    assert 'startswith("upstream-")' in first["run"]
    assert all(step["if"] == "steps.open.outputs.open == '0'" for step in steps(jobs["check"])[1:])
    assert (
        jobs["refresh"]["if"] == "needs.check.outputs.open == '0' && needs.check.outputs.rc == '4'"
    )
    assert 'git switch -c "$branch"' in steps(jobs["refresh"])[5]["run"]
    assert 'branch="upstream-' in steps(jobs["refresh"])[5]["run"]


def test_upstream_jobs_have_least_privilege() -> None:
    jobs = load("upstream.yml")["jobs"]
    assert jobs["check"]["permissions"] == {"contents": "read", "pull-requests": "read"}
    assert jobs["refresh"]["permissions"] == {
        "contents": "write",
        "pull-requests": "write",
        "issues": "write",
    }


def test_ci_turns_validate_problems_into_notes_on_the_files() -> None:
    job = load("ci.yml")["jobs"]["check"]
    annotate = steps(job)[-1]
    assert annotate["run"] == ".venv/bin/builder validate --format github"
    assert annotate["if"] == "failure()"


def _log_steps() -> tuple[str, list[str]]:
    """The upstream workflow's step that fences update.log, and every step script that reads the
    log."""
    scripts = [
        step.get("run", "") for job in load("upstream.yml")["jobs"].values() for step in steps(job)
    ]
    fencing = [run for run in scripts if "update.log" in run and "log.md" in run]
    assert len(fencing) == 1, "expected one step that fences update.log into log.md"
    return fencing[0], [run for run in scripts if "log" in run and "body" in run]


def test_upstream_pastes_the_log_only_inside_a_fence_it_cannot_close(tmp_path: Path) -> None:
    fencing, bodies = _log_steps()
    hostile = "fetched\n```\n@maintainers ![x](https://evil.example/x.png)\n`````` and ``\n"
    (tmp_path / "update.log").write_text(hostile)
    subprocess.run(["bash", "-eo", "pipefail", "-c", fencing], cwd=tmp_path, check=True)
    lines = (tmp_path / "log.md").read_text().splitlines()
    assert lines[0] == lines[-1] == "`" * 7, lines
    assert lines[1:-1] == hostile.splitlines()
    assert len(bodies) == 2
    assert all("log.md" in run and "```" not in run and "update.log" not in run for run in bodies)


def test_upstream_fences_a_plain_log_with_three_backticks(tmp_path: Path) -> None:
    (tmp_path / "update.log").write_text("rebuilt\n")
    subprocess.run(["bash", "-eo", "pipefail", "-c", _log_steps()[0]], cwd=tmp_path, check=True)
    assert (tmp_path / "log.md").read_text() == "```\nrebuilt\n```\n"
