"""Checks of a published tree: schemas, tables, cross-file consistency and physics, each a list
of Problems."""
