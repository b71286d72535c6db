"""The reused package copy (conftest.reused_copy) sees every edit a case can make to a file."""

from __future__ import annotations

import os
import time
from pathlib import Path

from conftest import _look


def test_an_edit_of_the_same_size_whose_mtime_is_put_back_is_seen(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(b'{"a": 1}\n')
    os.utime(path, ns=(10**18, 10**18))  # as reused_copy stamps it
    before = os.lstat(path)
    time.sleep(0.05)  # past the file clock's tick (a few ms), as any case's edit is
    path.write_bytes(b'{"a": 2}\n')
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert _look(os.lstat(path)) != _look(before)
