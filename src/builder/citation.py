"""The cards at the repository root: CITATION.cff and .zenodo.json from citation.toml and the data
version, and croissant.json from the descriptor; written by `build`, checked by `validate`."""

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from builder import card, repository
from builder.croissant import CROISSANT, croissant
from builder.errors import InputError, Problem, ValidationError, printable
from builder.files import read_or_none
from builder.layout import CFF, CITATION_TOML, DATA, DESCRIPTOR, METADATA, WORKLOAD_LIST, ZENODO
from builder.write import replace_files

ARXIV = re.compile(r"arXiv:(?P<id>\d{4}\.\d{4,5})")


def _yaml(value: Any, indent: int) -> list[str]:
    """Block YAML of TOML values (tables, arrays, strings, numbers), strings JSON-quoted."""
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, dict | list) and item:
                lines += [f"{pad}{key}:", *_yaml(item, indent + 2)]
            else:
                lines.append(f"{pad}{key}: {json.dumps(item, ensure_ascii=False)}")
    else:
        for item in value:
            inner = (
                _yaml(item, indent + 2)
                if isinstance(item, dict | list)
                else [json.dumps(item, ensure_ascii=False)]
            )
            lines.append(f"{pad}- {inner[0].lstrip()}")
            lines += inner[1:]
    return lines


def _stale(root: Path, descriptor: bytes) -> dict[str, bytes] | None:
    """The generated files at `root` whose bytes differ from what CITATION_TOML makes; None unless
    `root` is its folder."""
    if not (CITATION_TOML.is_file() and root.resolve() == CITATION_TOML.resolve().parent):
        # not the repository root: a build into another folder, or an archive, has no citation.toml
        return None
    made = citation_files(descriptor)
    return {name: data for name, data in made.items() if read_or_none(root / name) != data}


def citation_files(descriptor: bytes, curated: Path = CITATION_TOML) -> dict[str, bytes]:
    """CITATION.cff, .zenodo.json and croissant.json for a descriptor's data version, from one
    set of fields."""
    try:
        meta = tomllib.loads(curated.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(
            f"{curated}: expected readable TOML, found {type(exc).__name__}: {exc}"
        ) from exc
    if missing := [key for key in ("doi", "cff", "zenodo") if key not in meta]:
        raise InputError(f"{curated}: {missing[0]}: expected a value, found none")
    listed = curated.parent / DATA / WORKLOAD_LIST
    try:
        summary = card.summary(card.listed_workloads(listed.read_bytes()))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(
            f"{listed}: expected the workload list, found {type(exc).__name__}: {exc}"
        ) from exc
    date = json.loads(descriptor)["version"]
    # the release of data version 2026-11-29 is 2026.11.29
    cff, version = (
        dict(meta["cff"]),
        date.replace("-", "."),
    )
    references = cff.pop("references", [])
    found = repository.load(curated.parent / METADATA)  # the one curated place that names it
    url = found.url if found else None
    # the one description: CITATION.cff's and Zenodo's
    abstract = f"{summary}. {meta['zenodo']['note']}"
    head = {
        "cff-version": "1.2.0",
        **cff,
        "abstract": abstract,
        "version": version,
        "date-released": date,
    }
    related = []
    for ref in references:
        ids = [ARXIV.fullmatch(i.get("value", "")) for i in ref.get("identifiers", [])]
        for arxiv in filter(None, ids):
            related.append(
                {"identifier": f"arXiv:{arxiv['id']}", "relation": "references", "scheme": "arxiv"}
            )
        if not any(ids) and ref.get("url"):
            related.append({"identifier": ref["url"], "relation": "isDerivedFrom", "scheme": "url"})
    if url:
        head["repository-code"] = url
        related.append({"identifier": url, "relation": "isSupplementTo", "scheme": "url"})
    lines = [
        f"# Written by `builder build` from {CITATION_TOML} and the data version: "
        f"edit {CITATION_TOML}, not this file."
    ]
    lines += _yaml(head, 0)
    if meta["doi"]:
        lines += _yaml(
            {"identifiers": [{"type": "doi", "value": meta["doi"], "description": "Zenodo"}]}, 0
        )
    else:
        lines.append(
            f"# No DOI yet: Zenodo mints one from the first GitHub release; it goes in "
            f"{CITATION_TOML}'s doi."
        )
    lines += _yaml({"references": references}, 0)
    names = [
        a["name"] if "name" in a else f"{a['family-names']}, {a['given-names']}"
        for a in cff["authors"]
    ]
    record = {
        "title": cff["title"],
        "upload_type": meta["zenodo"]["upload_type"],
        "description": abstract,
        "creators": [{"name": name} for name in names],
        "license": cff["license"],
        "keywords": cff.get("keywords", []),
        "version": version,
        "publication_date": date,
        "access_right": "open",
        "related_identifiers": related,
    }
    zenodo = json.dumps(record, indent=2, ensure_ascii=False) + "\n"
    made = croissant(json.loads(descriptor), summary, version, url)
    return {CFF: ("\n".join(lines) + "\n").encode(), ZENODO: zenodo.encode(), CROISSANT: made}


def citation_problems(root: Path) -> list[Problem]:
    """CITATION.cff (and .zenodo.json) at `root` against the data version of the descriptor
    there."""
    try:
        descriptor = (root / DESCRIPTOR).read_bytes()
        data_version = json.loads(descriptor)["version"]
    except (OSError, ValueError, KeyError, TypeError):
        return []  # the descriptor's own problems are reported by the package checks
    if (stale := _stale(root, descriptor)) is not None:
        wanted = f"what `builder build` writes from {CITATION_TOML} for data version {data_version}"
        note = " (run builder build)"
        return [
            Problem.mismatch(name, "/", "citation.stale", wanted, "other bytes", note)
            for name in stale
        ]
    if (raw := read_or_none(root / CFF)) is None:
        # a data folder without a citation (an older archive, a bare copy): nothing to check
        return []
    text = raw.decode("utf-8", "replace")
    fields = {"version": data_version.replace("-", "."), "date-released": data_version}
    problems = []
    for key, value in fields.items():
        found = re.search(rf"^{key}: (.*)$", text, re.MULTILINE)
        if found is None or found[1] != json.dumps(value):
            shown = printable(found[1]) if found else "none"
            problems.append(
                Problem.mismatch(CFF, f"/{key}", "citation.data-version", json.dumps(value), shown)
            )
    return problems


def write_citation(root: Path, descriptor: bytes) -> None:
    """Write the cards at `root` where their bytes change (stale ones: validate reports them)."""
    if stale := _stale(root, descriptor):
        replace_files({root / name: data for name, data in stale.items()})


def check_citation(data: Path) -> None:
    """ValidationError when CITATION.cff beside `data` does not follow its data version."""
    if problems := citation_problems(data.parent):
        named = ", ".join(sorted({problem.path for problem in problems}))
        raise ValidationError(f"{named}: {len(problems)} problem(s)", problems)
