"""`python -m builder`: the builder command, with the current folder taken off the import path.

`python -m` puts the current folder first on sys.path, and a package root may be an archive
unpacked from anywhere: no module in it may be imported (frictionless, for one, imports every
`frictionless_*` module it finds as a plugin). The `builder` command never had it on the path.
"""

import os
import sys

try:
    here = os.getcwd()
except OSError:  # the current folder was removed
    here = None
if sys.path and sys.path[0] in ("", here):
    del sys.path[0]

from builder.cli import run

run()
