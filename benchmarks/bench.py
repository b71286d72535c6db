"""Benchmark the builder at 1x, 10x and 100x today's five task files, against check-jsonschema and json.loads.

Run from the repo root: `python benchmarks/bench.py [--scales 1 10 100] [--runs 5]` (or `nox -s bench`).
Whole-process times are medians of several runs; per-layer times are measured in process.
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


def timed(cmd: list[str], cwd: Path, runs: int) -> float:
    """Median wall time of a whole process, in seconds; fails loudly if the command fails."""
    times = []
    env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}"}
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


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


def layers(work: Path) -> dict[str, float]:
    """In-process split of `builder validate` (fresh interpreter, so imports are counted)."""
    code = """
import json, sys, time
t0 = time.perf_counter()
from pathlib import Path
from builder.validate.tree import load_tree
from builder.validate.schema import check_schemas
from builder.validate.tables import check_tables
from builder.validate import run
t1 = time.perf_counter(); tree = load_tree(Path("data"))
t2 = time.perf_counter(); problems, passed = check_schemas(tree)
t3 = time.perf_counter(); tables = check_tables(tree)
t4 = time.perf_counter(); rest = run.check_consistency(tree, {r: tree.docs[r] for r in sorted(passed)}, "https://leadgreen.ai")
t5 = time.perf_counter()
assert not problems and not tables and not rest, (problems, tables, rest)
print(json.dumps({"import": t1 - t0, "read+parse": t2 - t1, "schema": t3 - t2, "frictionless": t4 - t3,
                  "consistency": t5 - t4}))
"""
    run = subprocess.run([sys.executable, "-c", code], cwd=work, check=True, capture_output=True, text=True)
    return json.loads(run.stdout)


def bench(scale: int, root: Path, runs: int) -> dict[str, float]:
    work = workspace(scale, root)
    builder = str(BIN / "builder")
    result = {"build": timed([builder, "build", "--date", "2026-09-27"], work, runs)}
    result["validate"] = timed([builder, "validate"], work, runs)
    result["help"] = timed([builder, "--help"], work, runs)
    result["check-jsonschema"] = check_jsonschema(work, runs)
    result["json.loads floor"] = timed([sys.executable, "-c", FLOOR, "data"], work, runs)
    result.update({f"  validate: {k}": v for k, v in layers(work).items()})
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
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="leadgreen-bench-") as root:
        results = {s: bench(s, Path(root), args.runs if s < 100 else max(3, args.runs // 2)) for s in args.scales}
    print(table(results))


if __name__ == "__main__":
    main()
