"""Benchmark the builder at 1x, 10x and 100x today's five task files, against check-jsonschema and json.loads.

Run from the repo root: `python benchmarks/bench.py [--scales 1 10 100] [--runs 5]`, or
`nox -s bench -- [--scales ...] [--runs ...]`. Each step is printed to stderr as it runs; the
table goes to stdout at the end. Whole-process times are medians of --runs runs (at least 3,
and half of --runs, at 100x); per-layer times are measured in a fresh interpreter.

Running time with the defaults, on 2 cores: about 5.5 minutes (5 min 8 s measured with --runs 3),
more while other jobs run; most of it is check-jsonschema at 100x (30 s or more a run).
`--scales 1 10 --runs 3`: 40 to 90 seconds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
FLOOR = (
    "import json, pathlib, sys\nfor p in pathlib.Path(sys.argv[1]).rglob('*.json'):\n    json.loads(p.read_bytes())\n"
)


def synthetic_upstream(task: str, scale: int) -> bytes:
    """A task's upstream `scale` times under new model names (alike in every task); copy 0 keeps the real ones."""
    doc = json.loads((REPO / "upstream" / f"{task}.json").read_bytes())
    confs = []
    for copy in range(scale):
        for conf in doc["configurations"]:
            if copy:
                conf = {
                    **conf,
                    "nickname": f"{conf['nickname']} r{copy:03d}",
                    "model_id": f"{conf['model_id']}-r{copy:03d}",
                }
            confs.append(conf)
    return json.dumps({**doc, "configurations": confs}, indent=1).encode()


def workspace(scale: int, root: Path) -> Path:
    """A package root holding a synthetic pin, its lock, the schemas and the metadata."""
    work = root / f"x{scale}"
    (work / "upstream").mkdir(parents=True)
    lock = json.loads((REPO / "upstream" / "lock.json").read_text())
    for task, entry in lock["tasks"].items():
        data = synthetic_upstream(task, scale)
        (work / "upstream" / entry["file"]).write_bytes(data)
        entry.update(sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    (work / "upstream" / "lock.json").write_text(json.dumps(lock, indent=2) + "\n")
    shutil.copytree(REPO / "schemas", work / "schemas")
    shutil.copy2(REPO / "metadata.toml", work / "metadata.toml")
    shutil.copy2(REPO / "scripts" / "check-data-schema", work / "check-data-schema")
    return work


def progress(message: str) -> None:
    """One step, as it runs: to stderr, so that the table on stdout stays clean."""
    print(message, file=sys.stderr, flush=True)


def timed(cmd: list[str], cwd: Path, runs: int) -> float:
    """Median wall time of a whole process, in seconds; fails loudly if the command fails."""
    times = []
    env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}"}
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def model_documents(work: Path) -> list[str]:
    found = [*(work / "data" / "models").glob("*.json"), *(work / "data" / "workloads").glob("*/models/*.json")]
    return sorted(str(p.relative_to(work)) for p in found)


def text_conversation_models(work: Path) -> list[str]:
    """The first workload's model documents (the 18 of the v1 package, at 1x)."""
    return sorted(str(p.relative_to(work)) for p in (work / "data" / "models").glob("*.json"))


def check_jsonschema(work: Path, runs: int) -> float:
    """The schema-only peer: one check-jsonschema process per schema, as a contributor would run it."""

    def found(*patterns: str) -> list[str]:
        return sorted(str(p.relative_to(work)) for pattern in patterns for p in (work / "data").glob(pattern))

    groups = [
        ("index", found("index.json", "workloads/*/index.json")),
        ("model-list", found("models.json", "workloads/*/models.json")),
        ("model", found("models/*.json", "workloads/*/models/*.json")),
        ("workload-list", found("workloads.json")),
    ]
    return sum(
        timed(["./check-data-schema", f"schemas/{schema}.schema.json", *files], work, runs) for schema, files in groups
    )


LAYERS = """
import json, sys, time
t0 = time.perf_counter()
from pathlib import Path
from builder.validate import tables
base = "https://leadgreen.ai"
# As builder validate runs them: the tables worker forked first (it imports frictionless meanwhile),
# the tree read and handed to it, the other checks here meanwhile, then its answer.
ta = time.perf_counter(); ahead = tables.worker_ahead()
tb = time.perf_counter()
from builder.validate.tree import load_tree
t1 = time.perf_counter(); tree = load_tree(Path("data"))
t2 = time.perf_counter(); pending = tables.start_tables(tree, ahead)
t3 = time.perf_counter()
from builder.validate.schema import check_schemas
from builder.validate import run
t4 = time.perf_counter(); problems, passed = check_schemas(tree)
t5 = time.perf_counter(); rest = run.check_consistency(tree, {r: tree.docs[r] for r in sorted(passed)}, base)
t6 = time.perf_counter(); found = pending.result()
t7 = time.perf_counter()
# The same frictionless check inline, in this process (which has not imported frictionless yet).
inline = tables.check_tables(tree)
t8 = time.perf_counter()
assert not problems and not found and not rest and not inline, (problems, found, rest, inline)
print(json.dumps({"import": (ta - t0) + (t1 - tb) + (t4 - t3), "read+parse": t2 - t1, "schema": t5 - t4,
                  "consistency": t6 - t5, "frictionless inline": t8 - t7,
                  "frictionless as seen": (tb - ta) + (t3 - t2) + (t7 - t6)}))
"""

# `builder validate` with the tables step answered at once: the whole process without frictionless.
NO_TABLES = """
import sys
from builder.validate import tables
class Answered:
    def __init__(self, tree, ahead=None): pass
    def result(self): return []
tables.worker_ahead = lambda: None
tables.start_tables = Answered
from builder.cli import run
sys.argv = ["builder", "validate"]
run()
"""


def layers(work: Path, runs: int) -> dict[str, float]:
    """In-process split of `builder validate` (fresh interpreters, so imports are counted): the
    median of each layer over `runs` interpreters.

    "frictionless inline" is what the tables check costs when run alone (import included);
    "frictionless as seen" is what it adds to `builder validate`, where it runs in a forked worker
    beside the other checks: starting the worker, handing it the tables, and waiting for its
    answer after them.
    """
    seen: dict[str, list[float]] = {}
    for _ in range(runs):
        run = subprocess.run([sys.executable, "-c", LAYERS], cwd=work, check=True, capture_output=True, text=True)
        for layer, took in json.loads(run.stdout).items():
            seen.setdefault(layer, []).append(took)
    return {layer: statistics.median(took) for layer, took in seen.items()}


def in_turns(commands: list[list[str]], cwd: Path, runs: int) -> list[float]:
    """Median wall times of whole processes, each run taking its turn, so that all see the same load."""
    times: list[list[float]] = [[] for _ in commands]
    for _ in range(runs):
        for cmd, kept in zip(commands, times, strict=True):
            kept.append(timed(cmd, cwd, 1))
    return [statistics.median(kept) for kept in times]


def bench(scale: int, root: Path, runs: int) -> dict[str, float]:
    progress(f"{scale}x: writing a package of {scale} x today's upstream")
    work = workspace(scale, root)
    builder = str(BIN / "builder")
    result: dict[str, float] = {}

    def measure(name: str, what) -> None:
        progress(f"{scale}x: {name} ...")
        result[name] = what()
        progress(f"{scale}x: {name} {result[name]:.3f} s")

    measure("build", lambda: timed([builder, "build", "--date", "2026-09-27"], work, runs))
    progress(f"{scale}x: validate, validate without its tables step, and check-jsonschema, in turn ...")
    no_tables = [sys.executable, "-c", NO_TABLES]
    text = ["./check-data-schema", "schemas/model.schema.json", *text_conversation_models(work)]
    validate, without, peer = in_turns([[builder, "validate"], no_tables, text], work, runs)
    result["validate"], result["validate without frictionless"] = validate, without
    result["  frictionless as seen, whole process"] = validate - without
    progress(f"{scale}x: validate {validate:.3f} s, without frictionless {without:.3f} s, peer {peer:.3f} s")
    measure("help", lambda: timed([builder, "--help"], work, runs))
    measure("check-jsonschema", lambda: check_jsonschema(work, runs))
    models = ["./check-data-schema", "schemas/model.schema.json", *model_documents(work)]
    measure("check-jsonschema, model documents only", lambda: timed(models, work, runs))
    result["check-jsonschema, text-conversation model documents (in turn with validate)"] = peer
    measure("json.loads floor", lambda: timed([sys.executable, "-c", FLOOR, "data"], work, runs))
    progress(f"{scale}x: validate by layer ...")
    result.update({f"  validate: {k}": v for k, v in layers(work, runs).items()})
    result["files"] = len(list((work / "data").rglob("*.json")))
    result["configurations"] = sum(1 for _ in (work / "data" / "configurations.csv").open()) - 1
    return result


def table(results: dict[int, dict[str, float]]) -> str:
    scales = sorted(results)
    head = "| measure | " + " | ".join(f"{s}x (s)" for s in scales) + " | vs check-jsonschema at " + f"{scales[-1]}x"
    head += f" | growth {scales[0]}x->{scales[-1]}x |"
    if len(scales) > 2:
        head += f" growth {scales[-2]}x->{scales[-1]}x |"
    lines = [head, "|" + " --- |" * (head.count("|") - 1)]
    for key in results[scales[0]]:
        if key in ("files", "configurations"):
            continue
        values = [results[s][key] for s in scales]
        ratio = results[scales[-1]][key] / results[scales[-1]]["check-jsonschema"]
        row = (
            f"| {key} | " + " | ".join(f"{v:.3f}" for v in values) + f" | {ratio:.2f} | {values[-1] / values[0]:.1f}x |"
        )
        if len(scales) > 2:
            row += f" {values[-1] / values[-2]:.1f}x |"
        lines.append(row)
    sizes = ", ".join(
        f"{s}x: {results[s]['files']} JSON files, {results[s]['configurations']} configurations" for s in scales
    )
    return "\n".join(lines) + f"\n\nSizes: {sizes}. Cores: {os.cpu_count()}. Python {sys.version.split()[0]}.\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--scales", type=int, nargs="+", default=[1, 10, 100], metavar="N",
        help="sizes to measure, as multiples of today's upstream (default: 1 10 100)",
    )  # fmt: skip
    parser.add_argument(
        "--runs", type=int, default=5, metavar="N",
        help="runs per whole-process measure, of which the median is kept; at 100x max(3, N // 2) (default: 5)",
    )  # fmt: skip
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="leadgreen-bench-") as root:
        results = {s: bench(s, Path(root), args.runs if s < 100 else max(3, args.runs // 2)) for s in args.scales}
    progress(f"done in {time.perf_counter() - started:.0f} s")
    print(table(results))


if __name__ == "__main__":
    main()
