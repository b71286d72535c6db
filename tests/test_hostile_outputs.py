"""Hostile output folders: `builder build --out` never replaces what a build did not write.

Every refused case asserts, through tests/hostile.py, the exit code, a message naming the folder
(or the option), no traceback, one line, and the whole scratch folder (the repo copy and its
parent) hashed identical before and after.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from builder.errors import OutputError
from builder.guards import check_output
from builder.layout import is_hidden, place
from builder.write import publish, staging
from helpers import copy_package, slow_after
from hostile import assert_refused, run_cli, tree_digest

# makes the hostile thing below the repo copy; returns the --out argument
Setup = Callable[[Path], str]


def folder_with(*entries: str, data: bool = False) -> Setup:
    """A folder `out` holding the given entries (a trailing / makes a folder), and a build's
    files if `data`."""

    def make(root: Path) -> str:
        out = root / "out"
        out.mkdir()
        if data:
            copy_data(root / "data", out)
        for entry in entries:
            path = out / entry
            path.parent.mkdir(parents=True, exist_ok=True)
            if entry.endswith("/"):
                path.mkdir(exist_ok=True)
            else:
                path.write_text("not published\n")
        return "out"

    return make


def copy_data(source: Path, target: Path) -> None:
    for path in sorted(source.rglob("*")):
        rel = path.relative_to(source)
        if path.is_dir():
            (target / rel).mkdir(parents=True, exist_ok=True)
        else:
            (target / rel).write_bytes(path.read_bytes())


def with_entry(at: str, create: Callable[[Path], None], data: bool = True) -> Setup:
    """A data folder `out` whose entry at `at` (relative to out) is made by `create`, replacing
    any file there."""

    def make(root: Path) -> str:
        folder_with(data=data)(root)
        entry = root / "out" / at
        entry.parent.mkdir(parents=True, exist_ok=True)
        if entry.exists():
            entry.unlink()
        create(entry)
        return "out"

    return make


def with_link(at: str, target: str, data: bool = True) -> Setup:
    """A data folder `out` with a symbolic link at `at` (relative to out) pointing to `target`."""
    return with_entry(at, lambda link: link.symlink_to(target), data)


def with_fifo(at: str) -> Setup:
    return with_entry(at, os.mkfifo)


def link_to(target: str, name: str = "link") -> Setup:
    def make(root: Path) -> str:
        (root / name).symlink_to(target)
        return name

    return make


def given(arg: str | Callable[[Path], str]) -> Setup:
    return (lambda root: arg(root)) if callable(arg) else (lambda _root: arg)


def fifo_out(root: Path) -> str:
    os.mkfifo(root / "pipe")
    return "pipe"


def new_file(name: str, arg: str) -> Setup:
    def make(root: Path) -> str:
        (root / name).write_text("a file, not a folder\n")
        return arg

    return make


def home_like(*entries: str) -> Setup:
    return folder_with(*entries)


# (id, setup, exit code, what the message must name besides the --out argument)
CASES: list[tuple[str, Setup, int, tuple[str, ...]]] = [
    # the repository root, however it is spelled
    ("root-dot", given("."), 1, ("the current folder", "refusing")),
    ("root-dot-slash", given("./"), 1, ("the current folder",)),
    ("root-absolute", given(lambda root: str(root)), 1, ("the current folder",)),
    ("root-via-data-dotdot", given("data/.."), 1, ("the current folder",)),
    ("root-via-parent", given("../repo"), 1, ("the current folder",)),
    ("root-via-symlink", link_to(".", "here"), 1, ("here",)),
    # a folder that holds the current folder
    ("ancestor-dotdot", given(".."), 1, ("contains the current folder",)),
    ("ancestor-two-up", given("../.."), 1, ("contains the current folder",)),
    ("ancestor-filesystem-root", given("/"), 1, ("contains the current folder",)),
    (
        "ancestor-absolute",
        given(lambda root: str(root.parent)),
        1,
        ("contains the current folder",),
    ),
    ("ancestor-via-symlink", link_to("..", "up"), 1, ("up",)),
    # the pinned upstream
    ("upstream", given("upstream"), 1, ("upstream/ folder", "refusing")),
    ("upstream-slash", given("./upstream/"), 1, ("upstream/ folder",)),
    ("upstream-absolute", given(lambda root: str(root / "upstream")), 1, ("upstream/ folder",)),
    ("upstream-via-data-dotdot", given("data/../upstream"), 1, ("upstream/ folder",)),
    ("upstream-new-subfolder", given("upstream/data"), 1, ("inside the upstream/ folder",)),
    ("upstream-via-symlink", link_to("upstream", "pin"), 1, ("pin",)),
    # the schemas
    ("schemas", given("schemas"), 1, ("schemas/ folder", "refusing")),
    ("schemas-slash", given("schemas/"), 1, ("schemas/ folder",)),
    ("schemas-new-subfolder", given("schemas/v1"), 1, ("inside the schemas/ folder",)),
    ("schemas-via-symlink", link_to("schemas", "defs"), 1, ("defs",)),
    # a folder with a stray file
    ("stray-readme", folder_with("README.md"), 1, ("found README.md", "refusing to replace it")),
    ("stray-beside-a-build", folder_with("notes.txt", data=True), 1, ("found notes.txt",)),
    (
        "stray-backup-of-a-published-file",
        folder_with("index.json.bak", data=True),
        1,
        ("index.json.bak",),
    ),
    (
        "stray-datapackage-inside",
        folder_with("datapackage.json", data=True),
        1,
        ("found datapackage.json",),
    ),
    (
        "stray-many",
        folder_with(*(f"f{i}.txt" for i in range(9))),
        1,
        ("f0.txt, f1.txt, f2.txt, f3.txt, f4.txt ...",),
    ),
    # a folder with a nested entry a build does not publish
    (
        "nested-readme-in-models",
        folder_with("models/README.md", data=True),
        1,
        ("found models/README.md",),
    ),
    (
        "nested-folder-in-models",
        folder_with("models/old/a.json", data=True),
        1,
        ("found models/old/",),
    ),
    ("nested-json-in-other-folder", folder_with("v1/index.json"), 1, ("found v1/",)),
    (
        "nested-src-folder",
        folder_with("src/", "pyproject.toml"),
        1,
        ("found pyproject.toml, src/",),
    ),
    ("nested-models-is-a-file", folder_with("models"), 1, ("found models",)),
    (
        "nested-hidden-folder",
        folder_with("models/.cache/x", data=True),
        1,
        ("found models/.cache/",),
    ),
    ("nested-inside-the-committed-data", given("data/v2"), 1, ("inside the data/ folder",)),
    # a symbolic link as the output folder
    ("link-to-data", link_to("data"), 1, ("link: expected a folder, found a symbolic link",)),
    ("link-to-empty-folder", link_to("empty"), 1, ("found a symbolic link",)),
    ("link-to-outside", link_to("/tmp"), 1, ("found a symbolic link",)),
    ("link-dangling", link_to("nowhere"), 1, ("found a symbolic link",)),
    # a folder holding a symbolic link
    (
        "holds-link-as-index",
        with_link("index.json", "../metadata.toml"),
        1,
        ("index.json (a symbolic link)",),
    ),
    (
        "holds-link-as-model",
        with_link("models/a.json", "/etc/hostname"),
        1,
        ("models/a.json (a symbolic link)",),
    ),
    (
        "holds-link-as-models",
        with_link("models", "../schemas", data=False),
        1,
        ("models (a symbolic link)",),
    ),
    (
        "holds-hidden-link",
        with_link(".gitkeep", "../metadata.toml"),
        1,
        (".gitkeep (a symbolic link)",),
    ),
    # FIFOs: refused without ever being opened (a read would hang)
    ("fifo-as-index", with_fifo("index.json"), 1, ("index.json (a FIFO)",)),
    ("fifo-as-model", with_fifo("models/qwen-3-8b.json"), 1, ("models/qwen-3-8b.json (a FIFO)",)),
    ("fifo-hidden", with_fifo("models/.pipe"), 1, ("models/.pipe (a FIFO)",)),
    ("fifo-as-output", fifo_out, 1, ("pipe: expected a folder, found a FIFO",)),
    # a file where the folder should be
    ("file-metadata", given("metadata.toml"), 2, ("--out", "'metadata.toml' is a file")),
    ("file-new", new_file("blocker", "blocker"), 2, ("--out", "'blocker' is a file")),
    (
        "file-as-parent",
        new_file("blocker", "blocker/data"),
        1,
        ("cannot write beside the output folder",),
    ),
    ("file-link-to-file", link_to("metadata.toml", "meta"), 2, ("--out", "'meta' is a file")),
    # a folder holding .git (a checkout or worktree)
    ("git-folder-in-data", folder_with(".git/HEAD", data=True), 1, ("found .git/",)),
    (
        "git-folder-and-project",
        folder_with(".git/config", "README.md", "src/"),
        1,
        ("found .git/, README.md, src/",),
    ),
    ("git-file-worktree", folder_with(".git", data=True), 1, ("found .git",)),
    ("git-empty-folder", folder_with(".git/"), 1, ("found .git/",)),
    ("git-inside-the-repositorys", given(".git/out"), 1, ("inside the .git/ folder",)),
    # a home folder
    (
        "home-dotfiles-and-notes",
        home_like(".bashrc", ".profile", "notes.txt"),
        1,
        ("found notes.txt",),
    ),
    (
        "home-ssh-and-config",
        home_like(".bashrc", ".ssh/id_ed25519", ".config/x"),
        1,
        ("found .config/, .ssh/",),
    ),
    (
        "home-documents",
        home_like(".bash_history", "Documents/cv.pdf", "Downloads/"),
        1,
        ("Documents/, Downloads/",),
    ),
]


# Slow: file-as-parent, a whole build (the refusal comes once everything is rendered), and all FIFOs
# but one (a real process each: were a FIFO opened, the run would hang); their rules run below, in
# the fast tier.
SLOW = {"file-as-parent", "fifo-as-index", "fifo-hidden", "fifo-as-output"}


@pytest.fixture(scope="module")
def _package(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = copy_package(tmp_path_factory.mktemp("outputs") / "repo")
    (root / "empty").mkdir()
    return root, tree_digest(root.parent)


@pytest.fixture
def package(
    _package: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """A package copy a worker, with an empty folder `empty`, as working directory: what a case
    adds beside or at the top of the copy is removed after the case, and should anything else
    differ the copy is made afresh."""
    root, pristine = _package
    monkeypatch.chdir(root)
    yield root
    for path in [*root.parent.iterdir(), *root.iterdir()]:
        if path.relative_to(root.parent).as_posix() not in pristine:
            path.unlink() if path.is_symlink() or not path.is_dir() else shutil.rmtree(path)
    if tree_digest(root.parent) != pristine:
        shutil.rmtree(root, ignore_errors=True)
        copy_package(root)
        (root / "empty").mkdir()


@pytest.mark.parametrize(
    ("setup", "code", "names"),
    [pytest.param(s, c, n, id=i, marks=[pytest.mark.slow] * (i in SLOW)) for i, s, c, n in CASES],
)
def test_hostile_output_is_refused_and_nothing_changes(
    package: Path, setup: Setup, code: int, names
) -> None:
    out = setup(package)
    scratch = package.parent  # the package copy and what holds it: ".." and "../.." cases
    before = tree_digest(scratch)
    # a real process: were a FIFO ever opened, the run would time out, not hang
    fifo = "special" in before.values()
    outcome = run_cli(
        "build", "--out", out, "--date", "2026-12-01", subprocess_=fifo, cwd=package, timeout=60
    )
    after = tree_digest(scratch)
    assert_refused(outcome, code, (str(Path(out)), *names), before, after)  # as click hands it over
    if code == 1:
        assert len(outcome.output.strip().splitlines()) == 1, outcome.output


FIFOS = [pytest.param(setup, names, id=i) for i, setup, _, names in CASES if i.startswith("fifo-")]


@pytest.mark.parametrize(("setup", "names"), FIFOS)
def test_a_fifo_in_or_as_the_output_is_refused_by_check_output(
    repo_copy: Path, setup: Setup, names
) -> None:
    """The rule the FIFO cases run through: check_output names the FIFO by its lstat, never
    opening it."""
    out = setup(repo_copy)
    before = tree_digest(repo_copy.parent)
    with pytest.raises(OutputError) as refused:
        check_output(Path(out))
    assert all(name in str(refused.value) for name in (out, *names)), str(refused.value)
    assert tree_digest(repo_copy.parent) == before


def test_a_file_where_the_output_folders_parent_goes_is_refused_by_publish(tmp_path: Path) -> None:
    """The rule file-as-parent runs through: publish cannot make the folder that holds the output
    folder."""
    (tmp_path / "blocker").write_text("a file, not a folder\n")
    out = tmp_path / "blocker" / "data"
    with pytest.raises(OutputError) as refused:
        publish(out, {"index.json": b"{}\n"})
    assert str(refused.value) == f"{out}: cannot write beside the output folder (File exists)"
    assert (tmp_path / "blocker").read_text() == "a file, not a folder\n"


def test_the_corpus_covers_every_class_with_several_cases() -> None:
    classes = {}
    for case_id, *_ in CASES:
        classes.setdefault(case_id.split("-")[0], []).append(case_id)
    assert len(CASES) == len({case_id for case_id, *_ in CASES})
    assert {k for k, v in classes.items() if len(v) >= 3} == set(classes), classes


# What a build may replace.


def published(out: Path) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())


def no_leftovers(parent: Path, name: str) -> None:
    left = sorted(p.name for p in parent.iterdir() if p.name.startswith(f".{name}."))
    assert left == [], left


ALLOWED = [
    pytest.param(lambda root: root / "scratch" / "empty", id="empty-folder"),
    pytest.param(lambda root: root / "scratch" / "missing" / "deeper", id="missing-folder"),
    pytest.param(lambda root: root / "data", id="existing-data-folder"),
]


@pytest.mark.parametrize("make", ALLOWED)
def test_allowed_output_passes_the_guard_and_is_published(repo_copy: Path, make) -> None:
    """What decides: check_output lets the folder through, and publish makes it hold exactly the
    files."""
    out = make(repo_copy)
    if out.name == "empty":
        out.mkdir(parents=True)
    check_output(out)  # does not raise
    publish(out, {"index.json": b"{}\n", "models/a.json": b"{}\n"}, {"datapackage.json": b"{}\n"})
    assert published(out) == ["index.json", "models/a.json"]
    assert (out.parent / "datapackage.json").read_bytes() == b"{}\n"
    no_leftovers(out.parent, out.name)


# each a whole build; the guard and publish run above
@pytest.mark.parametrize("make", slow_after(ALLOWED, fast=0))
def test_allowed_output_is_built(repo_copy: Path, make) -> None:
    out = make(repo_copy)
    if out.name == "empty":
        out.mkdir(parents=True)
    outcome = run_cli("build", "--out", str(out), "--date", "2026-12-01")
    assert outcome.exit_code == 0, outcome.output
    files = published(out)
    # five LLM workloads, the list, the CSV and units.json: 68; their output lengths: 5; two
    # generation ones: 20
    assert len(files) == 68 + 5 + 20
    assert all(place(rel) is not None for rel in files)
    assert json.loads((out.parent / "datapackage.json").read_text())["resources"][0][
        "path"
    ].startswith(out.name)
    no_leftovers(out.parent, out.name)


@pytest.mark.slow  # two whole builds
def test_hidden_files_are_kept_across_the_swap(repo_copy: Path) -> None:
    out = repo_copy / "scratch" / "site"
    out.mkdir(parents=True)
    (out / ".gitkeep").write_bytes(b"")
    outcome = run_cli("build", "--out", str(out), "--date", "2026-12-01")
    assert outcome.exit_code == 0, outcome.output
    assert (out / ".gitkeep").read_bytes() == b""
    (out / "models" / ".gitattributes").write_bytes(b"*.json -diff\n")
    (out / ".htaccess").write_bytes(b"Options -Indexes\n")
    before = {rel: (out / rel).read_bytes() for rel in published(out) if is_hidden(rel)}
    raw = json.loads((repo_copy / "upstream" / "lm-arena-chat.json").read_text())
    raw["configurations"] = [c for c in raw["configurations"] if c["model_id"] != "Qwen/Qwen3-8B"]
    (repo_copy / "smaller.json").write_text(json.dumps(raw))
    outcome = run_cli(
        "build", "--upstream", "smaller.json", "--out", str(out), "--date", "2026-12-02"
    )
    assert outcome.exit_code == 0, outcome.output
    assert "removed: site/models/qwen-3-8b.json" in outcome.output
    assert ".gitkeep" not in outcome.output
    assert ".htaccess" not in outcome.output
    assert {rel: (out / rel).read_bytes() for rel in published(out) if is_hidden(rel)} == before
    assert sorted(before) == [".gitkeep", ".htaccess", "models/.gitattributes"]
    no_leftovers(out.parent, out.name)


def test_a_descriptor_beside_that_is_not_a_regular_file_is_refused(repo_copy: Path) -> None:
    scratch = repo_copy / "scratch"
    scratch.mkdir()
    os.mkfifo(scratch / "datapackage.json")
    before = tree_digest(repo_copy)
    outcome = run_cli("build", "--out", "scratch/data", subprocess_=True, cwd=repo_copy, timeout=60)
    assert_refused(
        outcome, 1, ("scratch/datapackage.json", "found a FIFO"), before, tree_digest(repo_copy)
    )


def test_another_packages_descriptor_beside_is_refused(repo_copy: Path) -> None:
    scratch = repo_copy / "scratch"
    scratch.mkdir()
    (scratch / "datapackage.json").write_text(
        json.dumps({"name": "someone-elses-data", "resources": []})
    )
    before = tree_digest(repo_copy)
    outcome = run_cli("build", "--out", "scratch/data")
    assert_refused(
        outcome,
        1,
        ("scratch/datapackage.json", "'someone-elses-data'"),
        before,
        tree_digest(repo_copy),
    )


def test_a_failed_build_into_a_new_folder_leaves_no_folder_behind(repo_copy: Path) -> None:
    before = tree_digest(repo_copy)
    outcome = run_cli("build", "--upstream", "nowhere.json", "--out", "new/deeper/data")
    assert_refused(
        outcome, 1, ("nowhere.json: cannot read upstream",), before, tree_digest(repo_copy)
    )


def test_a_stage_answers_membership_without_reading_the_file(tmp_path: Path) -> None:
    """`rel in stage` is the stage's record of what it wrote: the file is not read back."""
    out = tmp_path / "data"
    with staging(out) as stage:
        stage["a.json"] = b"{}\n"
        (stage.new / "a.json").unlink()  # read back, it would be a FileNotFoundError
        assert "a.json" in stage
        assert "b.json" not in stage
        stage["a.json"] = b"{}\n"
