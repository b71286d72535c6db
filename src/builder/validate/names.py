"""The name rules build applies at upstream (builder.names), applied to a package's model documents:
validate refuses a name, GPU or slug that build would never have written."""

from __future__ import annotations

from typing import Any

from builder.errors import Problem, shown
from builder.names import control_characters, gpu_case_faults, is_reserved_slug, name_fault
from builder.slug import slugify


def check_names(path: str, doc: dict[str, Any]) -> list[Problem]:
    """Spreadsheet-safe name, architecture and GPUs, and a slug Windows allows."""
    problems = [Problem(path, f"/{key}", fault) for key in ("name", "architecture") if (fault := name_fault(doc[key]))]
    problems += [Problem(path, f"/gpus/{i}", fault) for i, gpu in enumerate(doc["gpus"]) if (fault := name_fault(gpu))]
    if control_characters(doc["name"]):
        msg = f"expected no control or format characters, found {', '.join(control_characters(doc['name']))}"
        problems.append(Problem(path, "/name", msg))
    if slugify(doc["name"]) != doc["slug"]:
        found = f"expected the slug of its name, {shown(slugify(doc['name']))}, found {shown(doc['slug'])}"
        problems.append(Problem(path, "/slug", found))
    if is_reserved_slug(doc["slug"]):
        msg = f"expected a slug Windows allows as a file name, found {shown(doc['slug'])}"
        problems.append(Problem(path, "/slug", msg))
    return problems


def check_gpu_spellings(models: dict[str, dict[str, Any]]) -> list[Problem]:
    """One spelling per GPU across every model document (by path shown) of every workload."""
    pairs = [(path, gpu) for path, doc in models.items() for gpu in doc["gpus"]]
    return [Problem(path, "/gpus", msg) for path, _, msg in gpu_case_faults(pairs)]
