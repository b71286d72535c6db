"""`python -m builder`: the builder command (importing `builder` has taken the current folder off
the path)."""

from builder.cli import run

run()
