"""The schemas/ folder of a package under review: only the package's schemas, each naming itself
as the project's, and in a release archive each the same as the builder's own."""

from pathlib import Path
from typing import Any

from builder.errors import Problem, Said
from builder.files import Refused, read_file
from builder.jsonschemas import identity_problems, read_schemas, schemas_folder
from builder.layout import SCHEMAS, is_schema_file
from builder.strictjson import StrictJSONError, json_type, parse_json
from builder.validate.descriptor import value_differences
from builder.validate.tree import scan

OWN = "the builder's own schema"


def check_schema_files(root: Path) -> list[Problem]:
    """Every file of `root`'s schemas/ that is not one of the package's schemas, that does not
    carry the project's $schema and $id, or (in a release archive) that differs from the
    builder's own (the documents' judge)."""
    shown_folder = SCHEMAS.as_posix()
    listing = scan(root / SCHEMAS, shown_folder)
    problems = list(listing.problems)
    # a repository: its schemas/ are the curated ones
    own = None if (own_folder := schemas_folder()) == SCHEMAS else read_schemas(own_folder)
    for rel in listing.files:
        shown_as = f"{shown_folder}/{rel}"
        if not is_schema_file(rel):
            stray = Said("only the package's schemas", "a stray file")
            problems.append(Problem.of(shown_as, "/", "schema.unpublished-file", stray))
            continue
        try:
            schema = parse_json(read_file(root / SCHEMAS / rel))
        except (Refused, StrictJSONError) as exc:
            said = Said("a readable JSON Schema", f"a file not read ({exc})")
            problems.append(Problem.of(shown_as, "/", "schema.unusable", said))
            continue
        if not isinstance(schema, dict):
            said = Said("a JSON Schema object", json_type(schema))
            problems.append(Problem.of(shown_as, "/", "schema.unusable", said))
            continue
        problems += identity_problems(shown_as, rel, schema)
        if own is not None and rel in own:
            problems += differs_from_own(shown_as, own[rel], schema)
    for name in sorted((own or {}).keys() - set(listing.files)):
        problems.append(Problem.mismatch(f"{shown_folder}/{name}", "/", "schema.own", OWN, "none"))
    return problems


def differs_from_own(shown_as: str, own: Any, schema: Any) -> list[Problem]:
    """One problem at the first difference of an archive's schema from the builder's own, if any."""
    if differences := value_differences(own, schema):
        return [Problem.mismatch(shown_as, differences[0][0], "schema.own", OWN, "another")]
    return []
