"""builder site is quiet: a model name in any script, and a HOME it cannot write in, print no
warning line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from builder.site import quiet
from sitehelp import copy_package

# CJK, Cyrillic, Arabic, Devanagari, Georgian, Hangul, emoji
SCRIPTS = "通义千问 Модель عربي मॉडल ქართ 한국어 🦙"


@pytest.mark.slow
@pytest.mark.parametrize("mplconfigdir", [None, "/dev/null/mpl"], ids=["home", "mplconfigdir"])
def test_a_name_in_any_script_and_an_unwritable_home_print_one_line(
    tmp_path: Path, mplconfigdir: str | None
) -> None:
    root = copy_package(tmp_path / "package")
    path = root / "data" / "models" / "qwen-3-8b.json"
    doc = json.loads(path.read_bytes())
    path.write_text(json.dumps({**doc, "name": SCRIPTS}, ensure_ascii=False), encoding="utf-8")
    (tmp_path / "home").write_text("a file, so no folder can be made under it\n")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")
    }
    env["HOME"] = str(tmp_path / "home" / "user")
    if mplconfigdir:
        env["MPLCONFIGDIR"] = mplconfigdir
    args = [sys.executable, "-m", "builder", "site", "--out", str(tmp_path / "site")]
    done = subprocess.run(
        args, cwd=root, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.count("\n") == 1, done.stdout
    assert done.stdout.startswith(f"{tmp_path / 'site'}: "), done.stdout
    assert SCRIPTS in (tmp_path / "site" / "models" / "qwen-3-8b" / "energy-latency.svg").read_text(
        encoding="utf-8"
    )


def test_matplotlib_gets_a_folder_of_its_own_only_when_home_is_not_writable(
    tmp_path, monkeypatch
) -> None:
    for name in ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "writable"))
    quiet.matplotlib_home()
    assert "MPLCONFIGDIR" not in os.environ
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("HOME", str(tmp_path / "file" / "user"))
    quiet.matplotlib_home()
    assert Path(os.environ["MPLCONFIGDIR"]).is_dir()


def test_an_unwritable_mplconfigdir_is_replaced(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path / "mpl"))
    quiet.matplotlib_home()
    assert os.environ["MPLCONFIGDIR"] == str(tmp_path / "mpl")
    monkeypatch.setenv("MPLCONFIGDIR", "/dev/null/mpl")
    quiet.matplotlib_home()
    assert Path(os.environ["MPLCONFIGDIR"]).is_dir()


def test_only_the_missing_glyph_warning_goes_unsaid() -> None:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with quiet.glyphs_unsaid():
            glyph = (
                "Glyph 36890 (\\N{CJK UNIFIED IDEOGRAPH-901A}) missing from font(s) DejaVu Sans."
            )
            warnings.warn(glyph, UserWarning, stacklevel=1)
            warnings.warn("something else", UserWarning, stacklevel=1)
    assert [str(w.message) for w in seen] == ["something else"]
