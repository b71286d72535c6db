"""`builder site`: load.py reads the package, plan.py yields the site's files, build.py writes them.

Imported only when the command runs, so `builder --help` never loads matplotlib or Jinja2."""
