"""Read and check the upstream per-model files, alone and against their task file's rows:
untrusted input stops here."""

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from operator import attrgetter, ge, mul
from typing import Any

from builder.errors import ModelFilesError, Problem, Said, UpstreamError, pointer, shown
from builder.jsonschemas import input_problems
from builder.strictjson import StrictJSONError, parse_json
from builder.upstream import FIELD_NAMES, OWN_NAMES, GenRow, Row, UpstreamRow

MODEL_SCHEMA = "upstream-model.schema.json"
LENGTHS = "output_length_distribution"
MODEL_LEVEL = (
    "nickname",
    "architecture",
    "weight_precision",
    "total_params_billions",
    "activated_params_billions",
)
SEPARATOR = "__"  # a file's name: ORG__NAME__TASK, the model id's '/' written as this
ROW_LEVEL = ("model_id", *MODEL_LEVEL)  # a row's fields a configuration need not repeat


@dataclass(frozen=True)
class Histogram:
    """A binned distribution of output lengths: len(bins) = len(counts) + 1 edges, in tokens."""

    bins: tuple[float, ...]
    counts: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.counts)


@dataclass(frozen=True)
class ModelFile:
    """One checked per-model file: its model and task, and its output lengths (None for an image
    or video model)."""

    name: str  # ORG__NAME__TASK
    shown: str  # as messages name it
    model_id: str
    task: str
    lengths: Histogram | None  # the model's, over every configuration
    # each configuration's, in file (= task file) order
    configurations: tuple[Histogram | None, ...]


def task_of(name: str) -> str:
    """The task a per-model file's name ends with."""
    return name.rpartition(SEPARATOR)[2]


def file_name(model_id: str, task: str) -> str:
    """The name (ORG__NAME__TASK) of a model's file for a task."""
    return f"{model_id.replace('/', SEPARATOR)}{SEPARATOR}{task}"


def parse_model_file(data: bytes, shown_as: str, name: str, rows: list[UpstreamRow]) -> ModelFile:
    """A per-model file checked alone and against its task's `rows` (in task order);
    UpstreamError lists every fault."""
    try:
        doc = parse_json(data)
    except StrictJSONError as exc:
        raise UpstreamError(
            f"{shown_as}: not strict JSON; nothing was written", exc.problems(shown_as)
        ) from None
    problems = input_problems(MODEL_SCHEMA, doc, shown_as)
    # one line a file: the first, and how many more
    if not problems and (faults := file_faults(doc, name, rows)):
        where, fault = faults[0]
        more = f" (and {len(faults) - 1} more fault(s) in this file)" if len(faults) > 1 else ""
        problems = [Problem.of(shown_as, where, "upstream.model-file", fault.noted(more))]
    if problems:
        raise UpstreamError(
            f"{shown_as}: {len(problems)} problem(s) in upstream; nothing was written", problems
        )
    confs = tuple(histogram(conf.get(LENGTHS)) for conf in doc["configurations"])
    return ModelFile(
        name, shown_as, doc["model_id"], doc["task"], histogram(doc.get(LENGTHS)), confs
    )


def histogram(raw: dict[str, Any] | None) -> Histogram | None:
    return None if raw is None else Histogram(tuple(raw["bins"]), tuple(raw["counts"]))


def file_faults(doc: dict[str, Any], name: str, rows: list[UpstreamRow]) -> list[tuple[str, Said]]:
    """(pointer, fault) for each way a schema-sound per-model file disagrees with its name, its
    task rows or itself."""
    expected = file_name(doc["model_id"], doc["task"])
    if name != expected:
        return [
            (
                "/model_id",
                Said(
                    f"the model and task its file name {name} says ({shown(expected)})", "another"
                ),
            )
        ]
    own = [row for row in rows if row.model_id == doc["model_id"]]
    if not own:
        return [
            (
                "/model_id",
                Said("a model of the task file", shown(doc["model_id"]), ", which it lacks"),
            )
        ]
    confs = doc["configurations"]
    if len(own) != len(confs):
        said = Said(f"{len(own)} configuration(s), as in the task file", str(len(confs)))
        return [("/configurations", said)]
    faults = []
    for key in MODEL_LEVEL:
        if key in doc and doc[key] != getattr(own[0], key):
            faults.append(
                (
                    f"/{key}",
                    Said(f"{shown(getattr(own[0], key))}, as in the task file", shown(doc[key])),
                )
            )
    for i, (conf, row) in enumerate(zip(confs, own, strict=True)):
        faults += [
            (pointer(("configurations", i, *at)), fault) for at, fault in row_faults(conf, row)
        ]
    return faults + length_faults(doc)


@cache
def spelt(kind: str, generation: bool) -> dict[str, str]:
    """A row's fields (a GenRow's or a Row's) by the name a per-model file of `kind` (image or
    video) gives each."""
    names = FIELD_NAMES[GenRow if generation else Row]
    return {OWN_NAMES.get(name, name).format(kind): name for name in names}


@cache
def repeated(kind: str, generation: bool) -> tuple[tuple[str, ...], Callable[[Any], Any]]:
    """The names a per-model file of `kind` gives the row fields its configurations repeat (the
    model's aside), and a getter of those fields' values from a row, as a tuple in that order."""
    names = [(key, name) for key, name in spelt(kind, generation).items() if name not in ROW_LEVEL]
    return tuple(key for key, _ in names), attrgetter(*(name for _, name in names))


def row_faults(conf: dict[str, Any], row: UpstreamRow) -> list[tuple[tuple[str, ...], Said]]:
    """(where, fault) for each value of a configuration that differs from its task row's (notes
    aside): none where it repeats the row exactly (the common case, one comparison)."""
    return [] if repeats_row(conf, row) else differences(conf, row)


def spelling(conf: dict[str, Any], row: UpstreamRow) -> tuple[str, bool]:
    """What `repeated` and `spelt` take for a configuration and its row: its kind ("image" or
    "video"; a language model's files name none) and whether the row is an image or video one."""
    return "image" if "energy_per_image_joules" in conf else "video", isinstance(row, GenRow)


def repeats_row(conf: dict[str, Any], row: UpstreamRow) -> bool:
    """Whether a configuration holds its row's values, each of its type (1.0 is not 1), and no
    other key (notes and the distribution aside): `differences` then finds none."""
    keys, values_of = repeated(*spelling(conf, row))
    values = dict(conf)  # flat, as in `differences`: without the distribution and the notes
    parallel, _ = values.pop("parallelization"), values.pop(LENGTHS, None)
    values |= {key: value for key, value in parallel.items() if key != "notes"}
    want, found = values_of(row), tuple(map(values.get, keys))  # a key the file lacks: None
    return (
        found == want
        and list(map(type, found)) == list(map(type, want))
        and len(values) == len(keys) - want.count(None)
    )


def differences(conf: dict[str, Any], row: UpstreamRow) -> list[tuple[tuple[str, ...], Said]]:
    """(where, fault) for each value of a configuration that differs from its task row's (notes
    aside), each worded."""
    kind, generation = spelling(conf, row)
    keys, values_of = repeated(kind, generation)
    wanted = {key for key, value in zip(keys, values_of(row), strict=True) if value is not None}
    flat = {
        key: ((key,), value)
        for key, value in conf.items()
        if key not in ("parallelization", LENGTHS)
    }
    flat |= {
        key: (("parallelization", key), value)
        for key, value in conf["parallelization"].items()
        if key != "notes"
    }
    names = spelt(kind, generation)
    missing = Said("the field the task file's row has", "none")
    faults: list[tuple[tuple[str, ...], Said]] = [
        ((key,), missing) for key in sorted(wanted - flat.keys())
    ]
    for key, (at, value) in flat.items():
        if key not in names:
            said = Said("a field of the task file's rows", "one it does not have")
            faults.append((at, said))
        elif (want := getattr(row, names[key])) != value or type(want) is not type(value):
            faults.append((at, Said(f"{shown(want)}, as in the task file", shown(value))))
    return faults


def length_faults(doc: dict[str, Any]) -> list[tuple[str, Said]]:
    """Where a language model's distributions break their own rules: see the data dictionary's
    list."""
    confs = doc["configurations"]
    has = [LENGTHS in conf for conf in confs]
    if LENGTHS not in doc and not any(has):
        return []
    if LENGTHS not in doc or not all(has):
        return [
            (
                "/" + LENGTHS,
                Said("a distribution for the model and for each configuration, or none", "some"),
            )
        ]
    model = doc[LENGTHS]
    faults = [(f"/{LENGTHS}", fault) for fault in shape_faults(model)]
    summed = [
        sum(column) for column in zip(*(conf[LENGTHS]["counts"] for conf in confs), strict=False)
    ]
    for i, conf in enumerate(confs):
        at = f"/configurations/{i}/{LENGTHS}"  # pointer() of it: nothing to escape
        if conf[LENGTHS]["bins"] != model["bins"]:
            faults.append((f"{at}/bins", Said("the model's bins", "others")))
        elif shape := shape_faults(conf[LENGTHS]):
            faults.append((at, shape[0]))
        elif sum(conf[LENGTHS]["counts"]) == 0:
            faults.append((f"{at}/counts", Said("at least one response", "every count 0")))
        elif not isinstance(mean := conf.get("avg_output_len"), float | int):
            continue  # row_faults named it
        elif fault := mean_fault(
            Histogram(tuple(model["bins"]), tuple(conf[LENGTHS]["counts"])), mean
        ):
            faults.append((f"/configurations/{i}/avg_output_len", fault))
    if not faults and summed != model["counts"]:
        faults.append(
            (
                f"/{LENGTHS}/counts",
                Said("the sum of the configurations' counts, bin by bin", "another"),
            )
        )
    return faults


def shape_faults(raw: dict[str, Any]) -> list[Said]:
    """A distribution's edges rise strictly, one count a bin."""
    bins, counts = raw["bins"], raw["counts"]
    if len(bins) != len(counts) + 1:
        return [Said(f"{len(counts) + 1} bin edges for {len(counts)} counts", str(len(bins)))]
    if any(map(ge, bins, bins[1:])):  # an edge at or below the one before
        return [Said("bin edges that rise strictly", "one at or below the one before")]
    return []


def mean_fault(lengths: Histogram, mean: float) -> Said | None:
    """Binned lengths' exact mean lies between their bins' lower-edge mean and upper-edge mean;
    else the fault."""
    low, high = edge_means(lengths)
    if low <= mean <= high:
        return None
    return Said(
        f"the average of the binned lengths, between {low!r} and {high!r} tokens", repr(mean)
    )


def edge_means(lengths: Histogram) -> tuple[float, float]:
    """The mean if every response sat at its bin's lower edge, and at its upper edge."""
    bins, counts, total = lengths.bins, lengths.counts, lengths.total
    # count x edge, bin by bin: the lower edges, then the upper ones (one edge more than counts)
    low = sum(map(mul, counts, bins)) / total
    high = sum(map(mul, counts, bins[1:])) / total
    return low, high


def parse_model_files(
    files: dict[str, tuple[bytes, str]], rows_by_task: dict[str, list[UpstreamRow]], lock: str
) -> dict[str, dict[str, ModelFile]]:
    """The checked per-model files (name -> bytes, name shown) by task, then name; every model of a
    task with any file needs one. UpstreamError lists every problem of every file."""
    found: dict[str, dict[str, ModelFile]] = {}
    problems: list[Problem] = []
    for name, (data, shown_as) in files.items():
        if (task := task_of(name)) not in rows_by_task:
            tasks = ", ".join(rows_by_task)
            said = Said(f"a file of a task ({tasks})", task)
            problems.append(Problem.of(lock, pointer(("models", name)), "lock.model-task", said))
            continue
        try:
            found.setdefault(task, {})[name] = parse_model_file(
                data, shown_as, name, rows_by_task[task]
            )
        except UpstreamError as exc:
            problems += exc.problems
    # a refused file's model is not known to be missing
    for task, own in found.items() if not problems else ():
        have = {model.model_id for model in own.values()}
        for model_id in dict.fromkeys(row.model_id for row in rows_by_task[task]):
            if model_id not in have:
                want = f"a per-model file {file_name(model_id, task)} (a model of {task})"
                problems.append(Problem.mismatch(lock, "/models", "lock.models", want, "none"))
    if problems:
        count = len({p.path for p in problems})
        raise ModelFilesError(
            f"{len(problems)} problem(s) in {count} per-model upstream file(s); nothing was "
            f"written",
            problems,
        )
    return found


def expected_files(rows: dict[str, list[UpstreamRow]]) -> dict[str, str]:
    """The per-model file each model of each task's `rows` needs, by name: its task."""
    return {file_name(row.model_id, task): task for task, own in rows.items() for row in own}


def model_urls(pinned: dict[str, str], names: dict[str, str]) -> dict[str, str]:
    """The URL of each per-model file `names` names (name -> task): its pin's (`pinned`: name ->
    URL), else beside its task's pinned files, in their folder."""
    folders = {task_of(name): url.rpartition("/")[0] for name, url in pinned.items()}
    return {
        name: pinned.get(name) or f"{folders[task]}/{name}.json" for name, task in names.items()
    }
