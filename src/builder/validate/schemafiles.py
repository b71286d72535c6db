"""The schemas/ folder of a package under review: only the package's schemas, each naming itself
as the project's."""

from pathlib import Path

from builder.errors import Problem, Said
from builder.files import Refused, read_file
from builder.jsonschemas import identity_problems
from builder.layout import SCHEMAS, is_schema_file
from builder.strictjson import StrictJSONError, json_type, parse_json
from builder.validate.tree import scan


def check_schema_files(root: Path) -> list[Problem]:
    """Every file of `root`'s schemas/ that is not one of the package's schemas, or that does not
    carry the project's $schema and $id."""
    shown_folder = SCHEMAS.as_posix()
    listing = scan(root / SCHEMAS, shown_folder)
    problems = list(listing.problems)
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
    return problems
