"""`builder site` (load.py reads, plan.py yields files, build.py writes), imported only when the
command runs."""
