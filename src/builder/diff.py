"""Compare two published trees by natural key: models, best values, configurations, headers."""

import csv
import io
import math
from contextlib import suppress
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from builder import entries, git
from builder.changes import Change, Delta, change_text, changes
from builder.csvview import csv_key
from builder.dates import DATE_KEYS, newest_data_version
from builder.entries import Entry
from builder.errors import InputError, printable, shown
from builder.fields import MEASURE_KEYS, PER_SECOND, QUANTILE_KEYS, QUANTILES, RESPONSE_ENERGY
from builder.files import read_regular_file
from builder.jsonschemas import DIFF_SCHEMA, input_problems
from builder.layout import DATA, MAX_FILE_BYTES, ROOT_WORKLOAD, WORKLOAD_LIST, place
from builder.strictjson import parse_input

ENERGY_FIELDS = tuple(key for keys in MEASURE_KEYS.values() for key in keys[:2])  # J and Wh
BODY_KEYS = {
    "rows",
    "models",
    "configurations",
    "best",
    "slug",
    "name",
    "model_id",
    "params_b",
    "active_params_b",
}
BODY_KEYS |= {"architecture", "gpus", "workloads"}
# What the release guard stops on in a best, a configuration, a frontier or output-lengths entry
# (bin counts: too noisy).
GUARDED = (
    *ENERGY_FIELDS,
    *RESPONSE_ENERGY,
    *QUANTILE_KEYS,
    "mean_output_tokens",
    *QUANTILES,
    *PER_SECOND["video"],
)
# The definition in diff-document.schema.json of each kind of document whose body diff reads
SHAPES = {"model": "model", "output-lengths": "output-lengths"}
SHAPES |= {"frontier": "frontier", "generation-frontier": "frontier"}
# (workload, row_id, repeat) -> the cells only a CSV holds
Table = dict[tuple[str, str, int], dict[str, Any]]


EVERY = ("added", "removed", "changed")
# Each group's lists as `builder diff --json` prints them, in order: a precision value is only ever
# added, a model's values change as its best values and configurations, a header only changes
SHOWN = {"workloads": EVERY, "precisions": ("added",), "models": EVERY[:2], "best": EVERY}
SHOWN |= {"configurations": EVERY, "headers": ("changed",), "entries": EVERY}


@dataclass
class Diff:
    """What changed from one tree to another, each kind of thing as a group by natural key."""

    data_version: tuple[str | None, str | None]
    workloads: Delta[str] = field(default_factory=Delta)  # changed: an entry of workloads.json
    precisions: Delta[str] = field(default_factory=Delta)  # values no configuration had before
    models: Delta[str] = field(default_factory=Delta)
    best: Delta[str] = field(default_factory=Delta)  # "qwen-3-8b H100"; "image-chat:..." elsewhere
    configurations: Delta[str] = field(default_factory=Delta)  # "qwen-3-8b/H100/1/8 #1"
    headers: Delta[str] = field(default_factory=Delta)  # by document path
    # the entries of the frontier and output-lengths documents
    entries: Delta[Entry] = field(default_factory=Delta)

    @property
    def empty(self) -> bool:
        return not any(getattr(self, name) for name in SHOWN)

    def large_changes(self, threshold_pct: float) -> list[str]:
        """What the release guard stops on: an energy value of a best or of any configuration
        moving more than the threshold, losses."""
        found = [f"model removed: {slug}" for slug in self.models.removed]
        found += [f"best removed: {where}" for where in self.best.removed]
        for c in self.best.changed + self.configurations.changed:
            if c.field in GUARDED and c.pct is not None and abs(c.pct) > threshold_pct:
                found.append(f"{c.where} {c.field}: {c.old} -> {c.new} ({c.pct:+.1f} %)")
        for e in self.entries.changed:
            if e.field in GUARDED and e.pct is not None and abs(e.pct) > threshold_pct:
                where = f"{e.where.document} {e.where.model} {e.where.name}"
                found.append(change_text(where, e.field, e.old, e.new))
        return found

    def to_json(self) -> dict[str, Any]:
        """The diff as `--json` prints it: each group's lists as `<group>_<list>` (SHOWN), a change
        with its percent to 2 places, an entry's change with the entry under "entry"."""
        old, new = self.data_version
        out: dict[str, Any] = {"data_version": {"old": old, "new": new}}
        for name, lists in SHOWN.items():
            group = getattr(self, name)
            out |= {f"{name}_{found}": [_json(x) for x in getattr(group, found)] for found in lists}
        return out


def _json(item: Any) -> Any:
    """A thing or a change of a group as JSON holds it: an entry as an object."""
    if isinstance(item, Entry):
        return asdict(item)
    if not isinstance(item, Change):
        return item
    key = "entry" if isinstance(item.where, Entry) else "where"
    pct = None if item.pct is None else round(item.pct, 2)
    return {
        key: _json(item.where),
        "field": item.field,
        "old": item.old,
        "new": item.new,
        "pct": pct,
    }


def source_files(
    spec: str,
    below: str,
    suffix: str,
    what: str,
    deep: bool = True,
    expected: str = "a folder or a git ref",
) -> tuple[str, dict[str, bytes]]:
    """A prefix naming the place, and the bytes of files *`suffix` in `below` of folder or git
    ref `spec`, by path."""
    folder = Path(spec)
    if folder.is_dir():
        inner = folder / below
        root, shown = (
            (inner, f"{spec.rstrip('/')}/{below}/")
            if inner.is_dir()
            else (folder, f"{spec.rstrip('/')}/")
        )
        found = root.rglob(f"*{suffix}") if deep else root.glob(f"*{suffix}")
        return shown, {
            p.relative_to(root).as_posix(): read_regular_file(p, MAX_FILE_BYTES, what)
            for p in sorted(found)
        }
    if (commit := git.commit_of(spec)) is None:
        raise InputError(f"{spec}: expected {expected}, found neither")
    files = {
        rel.removeprefix(f"{below}/"): data
        for rel, data in git.tree_files(commit, (below,))[0].items()
    }
    kept = {
        rel: data
        for rel, data in files.items()
        if rel.endswith(suffix) and (deep or "/" not in rel)
    }
    return f"{spec}:{below}/", kept  # in path order, as tree_files gives them


def load_docs(spec: str) -> dict[str, Any]:
    """The JSON documents of a data folder (or its data/) or of data/ at a git ref, in the shape
    diff needs."""
    expected = f"a data folder or a git ref holding {DATA}/"
    shown, files = source_files(spec, DATA.as_posix(), ".json", "a document", expected=expected)
    docs = {rel: parse_input(data, f"{shown}{rel}") for rel, data in files.items()}
    # the shape diff needs, and no more: builder validate checks the rest
    for rel, doc in docs.items():
        shape = SHAPES.get(found.kind) if (found := place(rel)) else None
        part = ("$defs", shape) if shape else ()
        if faults := input_problems(DIFF_SCHEMA, doc, f"{shown}{rel}", part):
            raise InputError(str(faults[0]))
    if not any(map(place, docs)):
        raise InputError(f"{spec}: expected {expected}, found no documents in {shown}")
    return docs


def load_tables(spec: str, docs: dict[str, Any]) -> Table:
    """The cells of the CSV tables of a data folder (or of data/ at a git ref) that none of its
    `docs` holds."""
    shown, files = source_files(
        spec, DATA.as_posix(), ".csv", "a table", expected="a data folder or a git ref"
    )
    models = _models(docs).values()
    held = {"workload", *(key for m in models for key in m)}
    held |= {key for m in models for conf in m["configurations"] for key in conf}
    table: Table = {}
    for rel, data in files.items():
        try:
            lines = list(csv.DictReader(io.StringIO(data.decode("utf-8"), newline="")))
        except (UnicodeDecodeError, csv.Error) as exc:
            raise InputError(
                f"{shown}{rel}: expected a UTF-8 CSV table, found {printable(str(exc))}"
            ) from None
        for line in lines:
            # a row without its key: builder validate reports it
            with suppress(KeyError, TypeError, ValueError):
                table[csv_key(line)] = {
                    col: _cell(cell)
                    for col, cell in line.items()
                    if col not in held and col is not None
                }
    return table


def _cell(text: Any) -> Any:
    """A CSV cell as the number it spells (finite), else as its text."""
    with suppress(TypeError, ValueError):
        return int(text)
    with suppress(TypeError, ValueError):
        if math.isfinite(number := float(text)):
            return number
    return text


def diff_trees(
    old: dict[str, Any], new: dict[str, Any], tables: tuple[Table, Table] = ({}, {})
) -> Diff:
    """What changed from the documents `old` to `new` (and from the CSV-only cells `tables`), by
    natural key."""
    result = Diff(
        data_version=(newest_data_version(old.values()), newest_data_version(new.values()))
    )
    before, after = _workloads(old), _workloads(new)
    result.workloads.added, result.workloads.removed = (
        sorted(after - before),
        sorted(before - after),
    )
    old_entries, new_entries = (
        {e["id"]: e for e in docs.get(WORKLOAD_LIST, {}).get("workloads", [])}
        for docs in (old, new)
    )
    for workload, entry in new_entries.items():
        if workload in old_entries:
            result.workloads.changed += changes(workload, old_entries[workload], entry)
    old_models, new_models = _models(old), _models(new)
    before, after = (
        {c["precision"] for m in ms.values() for c in m["configurations"]}
        for ms in (old_models, new_models)
    )
    result.precisions.added = sorted(after - before)
    result.models.added = sorted("".join(m) for m in new_models.keys() - old_models.keys())
    result.models.removed = sorted("".join(m) for m in old_models.keys() - new_models.keys())
    for model in sorted(old_models.keys() & new_models.keys()):
        was, now, key = old_models[model], new_models[model], "".join(model)
        for gpu in sorted(was["best"].keys() | now["best"].keys()):
            a, b = was["best"].get(gpu), now["best"].get(gpu)
            if a is None or b is None:
                (result.best.added if a is None else result.best.removed).append(f"{key} {gpu}")
            else:
                result.best.changed += changes(f"{key} {gpu}", a, b)
        keyed_old, keyed_new = (
            {(c["row_id"], c["repeat"]): c for c in m["configurations"]} for m in (was, now)
        )
        names = {k: f"{model[0]}{k[0]} #{k[1]}" for k in keyed_old | keyed_new}
        result.configurations.added += [names[k] for k in keyed_new if k not in keyed_old]
        result.configurations.removed += [names[k] for k in keyed_old if k not in keyed_new]
        for k, b in keyed_new.items():  # in the document's own order
            if k in keyed_old:
                result.configurations.changed += changes(names[k], keyed_old[k], b)
    for (workload, row_id, repeat), cells in tables[1].items():
        if (was := tables[0].get((workload, row_id, repeat))) is not None:
            where = f"{'' if workload == ROOT_WORKLOAD else f'{workload}:'}{row_id} #{repeat}"
            result.configurations.changed += changes(where, was, cells)
    for rel in sorted(old.keys() & new.keys()):
        a, b = old[rel], new[rel]
        keys = sorted({*a, *b} - BODY_KEYS - set(DATE_KEYS))
        result.headers.changed += [
            Change(rel, key, a.get(key), b.get(key)) for key in keys if a.get(key) != b.get(key)
        ]
    result.entries = entries.compare(old, new)
    return result


def _workloads(docs: dict[str, Any]) -> set[str]:
    """The workloads with an index among the documents."""
    return {
        p.workload
        for p in map(place, docs)
        if p and p.kind in ("index", "generation-index") and p.workload
    }


def _models(docs: dict[str, Any]) -> dict[tuple[str, str], Any]:
    """The model documents by (workload prefix, slug): "image-chat:"; text conversation's keep
    their v1 names."""
    found = {rel: place(rel) for rel in docs}
    prefix = {None: "", ROOT_WORKLOAD: ""}
    return {
        (prefix.get(p.workload, f"{p.workload}:"), p.slug): docs[rel]
        for rel, p in found.items()
        if p and p.slug
    }


def render_text(d: Diff, summary: bool = False) -> str:
    """The diff for people: one line per change, old -> new with the % change (`summary`:
    configurations counted)."""
    lines = [f"data version: {d.data_version[0]} -> {d.data_version[1]}"] + (
        ["no changes"] if d.empty else []
    )
    lines += _listed("workloads added", d.workloads.added) + _listed(
        "workloads removed", d.workloads.removed
    )
    lines += [f"workload changed: {_change(c)}" for c in d.workloads.changed]
    lines += _listed("precision values added", d.precisions.added)
    lines += _listed("models added", d.models.added) + _listed("models removed", d.models.removed)
    lines += [f"best added: {item}" for item in d.best.added] + [
        f"best removed: {item}" for item in d.best.removed
    ]
    lines += [f"best changed: {_change(c)}" for c in d.best.changed]
    changed = {c.where for c in d.configurations.changed}
    counts = (len(d.configurations.added), len(d.configurations.removed), len(changed))
    if any(counts):
        lines.append("configurations: {} added, {} removed, {} changed".format(*counts))
        if not summary:
            lines += [f"  + {k}" for k in d.configurations.added] + [
                f"  - {k}" for k in d.configurations.removed
            ]
            lines += [f"  ~ {_change(c)}" for c in d.configurations.changed]
    lines += entries.render(d.entries, summary)
    lines += [
        f"header changed: {c.where} {c.field}: {shown(c.old)} -> {shown(c.new)}"
        for c in d.headers.changed
    ]
    # a name holding a newline stays on its line
    return "\n".join(printable(line) for line in lines) + "\n"


def _listed(label: str, items: list[str]) -> list[str]:
    return [f"{label}: {', '.join(items)}"] if items else []


def _change(c: Change[str]) -> str:
    return change_text(c.where, c.field, c.old, c.new)
