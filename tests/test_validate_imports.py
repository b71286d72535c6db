"""`builder validate` imports only what it uses: never the site's (matplotlib, jinja2) or the
fetch's (httpx)."""

from __future__ import annotations

import subprocess
import sys

from helpers import REPO

UNUSED = ("matplotlib", "jinja2", "httpx")
PROBE = f"""
import sys
from builder.cli import run
sys.argv = ["builder", "validate"]
try:
    run()
except SystemExit as exit:
    print(exit.code, sorted({{name.split(".")[0] for name in sys.modules}} & set({UNUSED!r})))
"""


def test_validate_never_imports_the_site_or_the_network() -> None:
    run = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert run.stdout.splitlines()[-1] == "0 []", run.stdout + run.stderr
