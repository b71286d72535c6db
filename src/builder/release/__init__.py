"""Data releases: the tag and changelog rules, the artifacts, and the flow that cuts a release."""
