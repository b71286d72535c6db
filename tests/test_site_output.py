"""builder site --out: never writes into a folder it does not own; a failure leaves the old site
whole."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import builder.write
from builder.errors import OutputError
from builder.site import build as output
from builder.site.build import MARKER, check_target, write_site
from helpers import snapshot

FILES = {"index.html": b"<p>new</p>\n", "a/b.json": b"{}\n"}


@pytest.mark.parametrize(
    ("out", "message"),
    [
        (".", "is the current folder"),
        ("..", "is a folder that contains the current folder"),
        ("/", "is a folder that contains the current folder"),
        ("data", "is the data/ folder"),
        ("data/models", "is inside the data/ folder"),
        ("schemas", "is the schemas/ folder"),
    ],
)
def test_refuses_the_repository_its_parents_and_the_package_folders(
    reused_copy, cli, out, message
) -> None:
    before = snapshot(reused_copy)
    result = cli("site", "--out", out)
    assert result.exit_code == 1
    assert result.output.startswith(f"error: {out}: {message} ("), result.output
    assert result.output.count("\n") == 1
    assert "Traceback" not in result.output
    assert snapshot(reused_copy) == before


def test_refuses_a_folder_of_other_files(repo_copy, cli) -> None:
    (repo_copy / "notes").mkdir()
    (repo_copy / "notes" / "todo.txt").write_text("mine\n")
    result = cli("site", "--out", "notes")
    assert result.exit_code == 1
    assert "found todo.txt; refusing to replace it" in result.output
    assert (repo_copy / "notes" / "todo.txt").read_text() == "mine\n"


def test_refuses_a_file_and_a_symbolic_link(tmp_path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match="expected a folder, found a regular file"):
        check_target(tmp_path / "file")
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(OutputError, match="expected a folder, found a symbolic link"):
        check_target(tmp_path / "link")


def test_a_previous_site_is_replaced_and_its_stale_files_go(tmp_path) -> None:
    out = tmp_path / "site"
    write_site(out, {**FILES, "old/gone.html": b"old\n"}.items())
    write_site(out, FILES.items())
    assert snapshot(out) == {**FILES, MARKER: output.marker(list(FILES))}
    # no staging or backup folder left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_a_file_someone_added_to_the_site_is_never_removed(tmp_path) -> None:
    out = tmp_path / "site"
    write_site(out, FILES.items())
    (out / "a" / "mine.txt").write_text("keep me\n")
    with pytest.raises(OutputError, match=r"found a/mine.txt; refusing to replace it"):
        write_site(out, FILES.items())
    assert (out / "a" / "mine.txt").read_text() == "keep me\n"


def test_an_empty_folder_is_used(tmp_path) -> None:
    (tmp_path / "site").mkdir()
    write_site(tmp_path / "site", FILES.items())
    assert (tmp_path / "site" / "index.html").read_bytes() == FILES["index.html"]


def test_a_failed_write_leaves_the_old_site_whole(tmp_path, monkeypatch) -> None:
    out = tmp_path / "site"
    write_site(out, FILES.items())
    before = snapshot(out)
    real = builder.write._write

    def failing(path: Path, data: bytes) -> None:
        if path.name == "b.json":
            raise OSError(28, "No space left on device", str(path))
        real(path, data)

    monkeypatch.setattr(builder.write, "_write", failing)
    with pytest.raises(OutputError, match=r"No space left on device.*is unchanged"):
        write_site(out, {**FILES, "index.html": b"<p>newer</p>\n"}.items())
    assert snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_a_failed_swap_puts_the_old_site_back(tmp_path, monkeypatch) -> None:
    out = tmp_path / "site"
    write_site(out, FILES.items())
    before = snapshot(out)
    real = os.rename

    def failing(src, dst):
        if Path(src).parent.name.startswith(".site.stage-") and Path(src).name == "new":
            raise OSError(18, "Invalid cross-device link", str(src))
        return real(src, dst)

    monkeypatch.setattr(builder.write.os, "rename", failing)
    with pytest.raises(OutputError, match="cross-device"):
        write_site(out, {"index.html": b"other\n"}.items())
    assert snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
