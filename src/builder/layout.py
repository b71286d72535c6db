"""Where everything lives (relative to the repository root), and the rules tying a file, slug,
row id and URL."""

import re
from dataclasses import dataclass
from pathlib import Path

from builder.errors import InputError

DATA = Path("data")
UPSTREAM = Path("upstream")
LOCK = UPSTREAM / "lock.json"
METADATA = Path("metadata.toml")
SCHEMAS = Path("schemas")
DIST = Path("dist")
CHANGELOG = Path("CHANGELOG.md")
CITATION_TOML = Path("citation.toml")  # curated; build writes CFF and ZENODO from it
CFF = "CITATION.cff"
ZENODO = ".zenodo.json"
GIT = Path(".git")
DESCRIPTOR = "datapackage.json"  # beside the data folder, in its parent
# the Data Package standard it follows
PROFILE = "https://datapackage.org/profiles/2.0/datapackage.json"
# the descriptor's `name`: how a build knows a descriptor is its own
PACKAGE_NAME = "leadgreen-data"
# per data file; the largest is about 50 KB today, a few MB at 100x
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_MODELS_PER_TASK = (
    2000  # each cap on an upstream task 100x today's largest, and validate's on a workload
)
MAX_CONFIGURATIONS_PER_TASK = 100_000
MAX_GPUS_PER_TASK = 32  # 16x today's two: a workload page's comparison has a column per GPU type

# The published files inside the data folder: the root workload's at the top, every other's below
# workloads/<id>/.
INDEX = "index.json"
MODEL_LIST = "models.json"
FRONTIER = "frontier.json"  # a workload's energy-latency frontier, beside its index
# an LLM workload's output-length distributions, beside its index
OUTPUT_LENGTHS = "output-lengths.json"
MODELS_DIR = "models"
WORKLOAD_LIST = "workloads.json"
# per workload, the units workloads.json (a v1 document) cannot add beside its numbers
UNITS = "units.json"
WORKLOADS_DIR = "workloads"
CSV = "configurations.csv"
JSON = ".json"
ROOT_WORKLOAD = "text-conversation"
# a workload id or a model's slug (defs.schema.json's slug pattern)
_ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
# the reader repeats it (it imports nothing of the builder); a test holds them equal
SLUG_PATTERN = _ID.pattern

# The JSON Schemas (file names in SCHEMAS): a published document's is named after its kind (see
# schema_for).
DEFS_SCHEMA = "defs.schema.json"
INDEX_SCHEMA = "index.schema.json"
MODEL_LIST_SCHEMA = "model-list.schema.json"
# datapackage.json itself, as checked in a release archive
DESCRIPTOR_SCHEMA = "datapackage.schema.json"
# one row of an image or video workload's CSV
GENERATION_ROW_SCHEMA = "generation-configuration.schema.json"
# Every file of SCHEMAS: the published schemas at its top (what validate checks there and what
# ships), the input files' below inputs/ (never published); each names itself by its $id.
PUBLISHED_SCHEMAS = frozenset(
    f"{kind}.schema.json"
    for kind in (
        "defs",
        "index",
        "model-list",
        "model",
        "frontier",
        "output-lengths",
        "workload-list",
        "units",
        "datapackage",
        "generation-defs",
        "generation-index",
        "generation-model-list",
        "generation-model",
        "generation-frontier",
        "generation-configuration",
    )
)
INPUT_SCHEMAS_DIR = "inputs"
SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID_BASE = "https://leadgreen.ai/schemas/"
_SCHEMA_NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*\.schema\.json")
# a workload's own documents
_KIND_OF_NAME = {
    INDEX: "index",
    MODEL_LIST: "model-list",
    FRONTIER: "frontier",
}
_KIND_OF_NAME[OUTPUT_LENGTHS] = "output-lengths"

# The generation workloads (text-to-image/video): their own document kinds, and a flat CSV each.
GENERATION_WORKLOADS = {"text-to-image": "image", "text-to-video": "video"}
_GENERATION_KIND_OF_NAME = {
    INDEX: "generation-index",
    MODEL_LIST: "generation-model-list",
    CSV: "generation-csv",
}
_GENERATION_KIND_OF_NAME[FRONTIER] = "generation-frontier"


def workload_dir(workload: str) -> str:
    """The folder of a workload's documents inside the data folder, with its trailing '/' ('' for
    the root)."""
    return "" if workload == ROOT_WORKLOAD else f"{WORKLOADS_DIR}/{workload}/"


def index_rel(workload: str = ROOT_WORKLOAD) -> str:
    return workload_dir(workload) + INDEX


def model_list_rel(workload: str = ROOT_WORKLOAD) -> str:
    return workload_dir(workload) + MODEL_LIST


def frontier_rel(workload: str = ROOT_WORKLOAD) -> str:
    return workload_dir(workload) + FRONTIER


def output_lengths_rel(workload: str = ROOT_WORKLOAD) -> str:
    return workload_dir(workload) + OUTPUT_LENGTHS


def model_rel(slug: str, workload: str = ROOT_WORKLOAD) -> str:
    """The path of a model's document inside the data folder."""
    return f"{workload_dir(workload)}{MODELS_DIR}/{slug}{JSON}"


@dataclass(frozen=True)
class Place:
    """What a path inside the data folder holds: its kind (its schema's name, see schema_for),
    workload and slug."""

    kind: str
    workload: str | None = None  # None for workloads.json and the root CSV
    slug: str | None = None


def place(rel: str) -> Place | None:
    """What a build publishes (or removes, when its model is gone) at a path inside the data
    folder, or None."""
    if rel in (WORKLOAD_LIST, CSV, UNITS):
        return Place({WORKLOAD_LIST: "workload-list", CSV: "csv", UNITS: "units"}[rel])
    workload, rest = ROOT_WORKLOAD, rel
    head, _, tail = rel.partition("/")
    if head == WORKLOADS_DIR:
        workload, _, rest = tail.partition("/")
        if not _ID.fullmatch(workload) or workload == ROOT_WORKLOAD:
            return None
    generation = workload in GENERATION_WORKLOADS
    kinds = _GENERATION_KIND_OF_NAME if generation else _KIND_OF_NAME
    if rest in kinds:
        return Place(kinds[rest], workload)
    folder, _, name = rest.partition("/")
    if folder == MODELS_DIR and name.endswith(JSON) and _ID.fullmatch(slug := name[: -len(JSON)]):
        return Place("generation-model" if generation else "model", workload, slug)
    return None


def is_published(rel: str) -> bool:
    """Whether a path inside the data folder is a published file: the one rule of what validate
    checks and what ships.

    Anything else (a dotfile such as models/.x.json, an editor's foo.json~ or .swp, a stray file)
    is refused."""
    return place(rel) is not None


def is_model(rel: str) -> bool:
    """Whether a path inside the data folder is where a model document (of any workload) goes."""
    found = place(rel)
    return found is not None and found.kind == "model"


def workload_of(rel: str) -> str | None:
    """The workload of a published document's path; None for workloads.json, the CSV and any
    other path."""
    found = place(rel)
    return found.workload if found else None


def is_published_folder(rel: str) -> bool:
    """Whether a folder inside the data folder is one that published files live in."""
    return (
        rel == WORKLOADS_DIR
        or place(f"{rel}/{INDEX}") is not None
        or place(f"{rel}/x{JSON}") is not None
    )


def is_hidden(rel: str) -> bool:
    """Hidden files (`.gitkeep`, at any level) are not published (validate refuses them); a build
    keeps them."""
    return any(part.startswith(".") for part in rel.split("/"))


def schema_for(rel: str) -> str | None:
    """The schema file of a published document (`<kind>.schema.json`), or None for the root CSV
    and any other path."""
    found = place(rel)
    if found is None or found.kind == "csv":
        return None
    return GENERATION_ROW_SCHEMA if found.kind == "generation-csv" else f"{found.kind}.schema.json"


def is_schema_file(rel: str) -> bool:
    """Whether a path inside SCHEMAS is one of the package's schemas (published, or an input's)."""
    folder, _, name = rel.rpartition("/")
    if folder == INPUT_SCHEMAS_DIR:
        return bool(_SCHEMA_NAME.fullmatch(name))
    return not folder and name in PUBLISHED_SCHEMAS


def schema_id(rel: str) -> str:
    """The $id a schema file at a path inside SCHEMAS must carry: `v1/<name>` or `inputs/<name>`."""
    folder, _, name = rel.rpartition("/")
    return f"{SCHEMA_ID_BASE}{folder or 'v1'}/{name}"


def is_workload_id(text: str) -> bool:
    return bool(_ID.fullmatch(text))


def below(path: object, folder: str) -> str | None:
    """A descriptor path relative to `folder` (`data/models/x.json` -> `models/x.json`), or None
    if not below it."""
    return (
        path[len(folder) + 1 :] if isinstance(path, str) and path.startswith(f"{folder}/") else None
    )


# The configuration fields a row id is made of after the slug, by kind: how configurations sort.
LLM_ORDER = ("gpu", "num_gpus", "max_num_seqs")
GENERATION_ORDER = ("gpu", "num_gpus", "batch_size", "ulysses_degree", "ring_degree")


def row_id(slug: str, gpu: str, *numbers: int) -> str:
    """The natural key of a configuration: slug/gpu/numbers, with the numbers its kind sorts by
    after the GPU."""
    return "/".join(map(str, (slug, gpu, *numbers)))


def document_url(base_url: str, version: str, rel: str) -> str:
    """The public URL of a published document."""
    return f"{base_url}/api/v{version}/{rel}"


def page_url(base_url: str, slug: str, workload: str = ROOT_WORKLOAD) -> str:
    """The public web page of a model in a workload, for people."""
    return f"{base_url}/{workload_dir(workload)}{MODELS_DIR}/{slug}/"


def num_gpus_for(tensor_parallel: int, data_parallel: int, expert_parallel: int) -> int:
    """The GPUs a parallel layout occupies: tensor x data parallel, or the expert-parallel width."""
    return max(tensor_parallel * data_parallel, expert_parallel)


NUM_GPUS_RULE = "max(tensor_parallel x data_parallel, expert_parallel)"


def require_repo_root(*needed: Path, where: str = "the repository root") -> None:
    """Refuse to run outside the repository root, where the relative paths above hold."""
    if missing := [str(path) for path in (needed or (METADATA, LOCK)) if not path.exists()]:
        try:
            here = str(Path.cwd())
        except OSError:  # the current folder was removed
            here = "the current folder (removed)"
        raise InputError(
            f"{here}: expected {' and '.join(missing)} here, found none; run from {where}"
        )
