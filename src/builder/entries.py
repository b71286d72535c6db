"""The frontier and output-lengths documents compared entry by entry, for `builder diff`."""

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from builder.changes import Delta, change_text, changes
from builder.layout import place

ENTRY_KINDS = ("frontier", "generation-frontier", "output-lengths")  # compared entry by entry
ACROSS = "across_gpus"
WHOLE = "all configurations"  # an output-lengths model's own histogram


@dataclass(frozen=True, order=True)
class Entry:
    """Where an entry is: its document, its model ('' for the whole document) and its name ('' for
    the whole model), e.g. "H100 frontier qwen-3-8b/H100/1/8 #1", "across_gpus best_under 100"."""

    document: str  # its path in the data folder
    model: str
    name: str


def compare(old: dict[str, Any], new: dict[str, Any]) -> Delta[Entry]:
    """What changed in the frontier and output-lengths documents (by path) from `old` to `new`: a
    whole document or model one side lacks is one entry; others entry by entry, by natural key."""
    result: Delta[Entry] = Delta()
    a, b = _documents(old), _documents(new)
    result.added += [Entry(rel, "", "") for rel in sorted(b.keys() - a.keys())]
    result.removed += [Entry(rel, "", "") for rel in sorted(a.keys() - b.keys())]
    for rel in sorted(a.keys() & b.keys()):
        was, now = _models(rel, old[rel], a[rel]), _models(rel, new[rel], b[rel])
        result.added += [Entry(rel, slug, "") for slug in sorted(now.keys() - was.keys())]
        result.removed += [Entry(rel, slug, "") for slug in sorted(was.keys() - now.keys())]
        for slug in sorted(was.keys() & now.keys()):
            before, after = was[slug], now[slug]
            result.added += [entry for entry in after if entry not in before]
            result.removed += [entry for entry in before if entry not in after]
            for entry, values in after.items():
                if (prior := before.get(entry)) is not None:
                    result.changed += changes(entry, prior, values, gone=True)
    return result


def _documents(docs: dict[str, Any]) -> dict[str, str]:
    """The documents compared entry by entry, by path: their kind."""
    found = {rel: place(rel) for rel in docs}
    return {rel: p.kind for rel, p in found.items() if p is not None and p.kind in ENTRY_KINDS}


def _models(rel: str, doc: dict[str, Any], kind: str) -> dict[str, dict[Entry, dict[str, Any]]]:
    """A document's models by slug: each one's entries, in document order, with their values."""
    return {model["slug"]: dict(_entries(rel, model, kind)) for model in doc["models"]}


def _entries(rel: str, model: dict[str, Any], kind: str) -> Iterator[tuple[Entry, dict[str, Any]]]:
    """A model's entries: its frontier points and best_under picks, or its histograms."""
    slug = model["slug"]
    if kind == "output-lengths":
        own = {k: v for k, v in model.items() if k not in ("slug", "configurations")}
        yield Entry(rel, slug, WHOLE), _flat(own)
        for conf in model["configurations"]:
            yield Entry(rel, slug, f"{conf['row_id']} #{conf['repeat']}"), _flat(conf)
        return
    groups = [*model["gpus"].items(), *([(ACROSS, model[ACROSS])] if ACROSS in model else [])]
    for label, group in groups:
        for point in group["frontier"]:
            name = f"{label} frontier {point['row_id']} #{point['repeat']}"
            yield Entry(rel, slug, name), _flat(point)
        for target, pick in group["best_under"].items():
            if pick is not None:  # none fast enough: no pick
                yield Entry(rel, slug, f"{label} best_under {target}"), _flat(pick)


def _flat(values: dict[str, Any]) -> dict[str, Any]:
    """An entry's values, each item of a list (bins, counts) under its own name `key[i]`."""
    found: dict[str, Any] = {}
    for key, value in values.items():
        if isinstance(value, list):
            found |= {f"{key}[{i}]": item for i, item in enumerate(value)}
        else:
            found[key] = value
    return found


def render(d: Delta[Entry], summary: bool = False) -> list[str]:
    """A whole document or model added or removed on one line; the other entries grouped by
    document and model, a line per entry added or removed and per value changed (`summary`: a
    line of counts per document)."""
    whole = [(e, "added") for e in d.added if not e.name]
    whole += [(e, "removed") for e in d.removed if not e.name]
    if summary:
        counts: dict[str, list[int]] = {}
        for i, found in enumerate((d.added, d.removed, [c.where for c in d.changed])):
            for rel in (e.document for e in dict.fromkeys(found) if e.model):
                counts.setdefault(rel, [0, 0, 0])[i] += 1
        lines = [f"{e.document}: {state}" for e, state in sorted(whole) if not e.model]
        line = "{}: entries {} added, {} removed, {} changed"
        return lines + [line.format(rel, *counts[rel]) for rel in sorted(counts)]
    lines = [
        f"{e.document}{f' {e.model}' if e.model else ''}: {state}" for e, state in sorted(whole)
    ]
    groups: dict[tuple[str, str], list[str]] = {}
    for mark, found in (("+", d.added), ("-", d.removed)):
        for e in found:
            if e.name:
                groups.setdefault((e.document, e.model), []).append(f"  {mark} {e.name}")
    for c in d.changed:
        line = f"  ~ {change_text(c.where.name, c.field, c.old, c.new)}"
        groups.setdefault((c.where.document, c.where.model), []).append(line)
    for (rel, model), found_lines in sorted(groups.items()):
        lines += [f"{rel} {model}:", *found_lines]
    return lines
