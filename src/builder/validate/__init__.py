"""Checks of a published tree: schemas, tables, cross-file consistency and physics.

Each check returns a list of Problems; nothing here prints or exits.
"""
