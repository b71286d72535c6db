"""`builder site`: a static web site from the committed package, offline and deterministic.

load.py reads the package, plan.py turns it into site files (a pure mapping of path to bytes,
with views.py, charts.py and render.py), and output.py writes them. Nothing here is imported
until the command runs, so `builder --help` never loads matplotlib or Jinja2.
"""
