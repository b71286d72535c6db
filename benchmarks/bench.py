"""Benchmark `builder build` and `builder validate` at 1x, 10x and 100x today's upstream, against
the peers.

The peers are what a user without the builder runs for the same checks: check-jsonschema over every
published document (one run per schema), then `frictionless validate datapackage.json`. Commands
of one scale run in turn (build, validate, check-jsonschema, frictionless), so that all see the same
load; each figure is the median of --runs runs. Run from the repo root:
`python benchmarks/bench.py [--scales 1 10 100] [--runs 5]`, or `nox -s bench -- ...`.
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
    "import json, pathlib, sys\nfor p in pathlib.Path(sys.argv[1]).rglob('*.json'):\n    "
    "json.loads(p.read_bytes())\n"
)


def synthetic_upstream(task: str, scale: int) -> bytes:
    """A task's upstream `scale` times under new model names (alike in every task); copy 0 keeps
    the real ones."""
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
    lock.pop("models", None)  # the synthetic models have no per-model files (no output lengths)
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


def timed(commands: list[list[str]], cwd: Path) -> float:
    """Wall time of these processes, one after another, in seconds; fails loudly if one fails."""
    env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}"}
    start = time.perf_counter()
    for cmd in commands:
        subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, env=env)
    return time.perf_counter() - start


def check_jsonschema(work: Path) -> list[list[str]]:
    """One check-jsonschema process per schema, over every published document of that kind."""
    from builder.layout import schema_for

    groups: dict[str, list[str]] = {}
    for path in sorted((work / "data").rglob("*.json")):
        schema = schema_for(path.relative_to(work / "data").as_posix())
        if schema is not None:
            groups.setdefault(schema, []).append(str(path.relative_to(work)))
    return [
        ["./check-data-schema", f"schemas/{schema}", *files]
        for schema, files in sorted(groups.items())
    ]


PEERS = "check-jsonschema + frictionless"


def bench(scale: int, root: Path, runs: int) -> dict[str, float]:
    """Medians of each measure at this scale, every command taking its turn in each round."""
    progress(f"{scale}x: writing a package of {scale} x today's upstream")
    work = workspace(scale, root)
    builder = str(BIN / "builder")
    build = [[builder, "build", "--date", "2026-09-27"]]
    timed(build, work)  # data/, for the others to check
    measures = {
        "build": build,
        "validate": [[builder, "validate"]],
        "check-jsonschema": check_jsonschema(work),
        "frictionless validate": [[str(BIN / "frictionless"), "validate", "datapackage.json"]],
        "json.loads floor": [[sys.executable, "-c", FLOOR, "data"]],
    }
    seen: dict[str, list[float]] = {name: [] for name in measures}
    for round_ in range(runs):
        for name, commands in measures.items():
            seen[name].append(timed(commands, work))
            progress(f"{scale}x round {round_ + 1}: {name} {seen[name][-1]:.3f} s")
    result = {name: statistics.median(times) for name, times in seen.items()}
    result[PEERS] = result["check-jsonschema"] + result["frictionless validate"]
    result["files"] = len(list((work / "data").rglob("*.json")))
    result["configurations"] = sum(1 for _ in (work / "data" / "configurations.csv").open()) - 1
    return result


RATIOS = [("validate", PEERS), ("validate", "check-jsonschema"), ("build", "check-jsonschema")]


def table(results: dict[int, dict[str, float]]) -> str:
    scales = sorted(results)
    lines = [
        "| measure | " + " | ".join(f"{s}x (s)" for s in scales) + " |",
        "|" + " --- |" * (len(scales) + 1),
    ]
    for key in results[scales[0]]:
        if key not in ("files", "configurations"):
            lines.append(
                f"| {key} | " + " | ".join(f"{results[s][key]:.3f}" for s in scales) + " |"
            )
    for mine, peer in RATIOS:
        lines.append(
            f"| {mine} / {peer} | "
            + " | ".join(f"{results[s][mine] / results[s][peer]:.2f}" for s in scales)
            + " |"
        )
    sizes = ", ".join(
        f"{s}x: {results[s]['files']} JSON files, {results[s]['configurations']} configurations"
        for s in scales
    )
    return (
        "\n".join(lines)
        + f"\n\nSizes: {sizes}. Cores: {os.cpu_count()}. Python {sys.version.split()[0]}.\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--scales",
        type=int,
        nargs="+",
        default=[1, 10, 100],
        metavar="N",
        help="sizes to measure, as multiples of today's upstream (default: 1 10 100)",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=5,
        metavar="N",
        help="rounds, of which the median is kept; at 100x max(1, N // 3) (default: 5)",
    )
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="leadgreen-bench-") as root:
        results = {
            s: bench(s, Path(root), args.runs if s < 100 else max(1, args.runs // 3))
            for s in args.scales
        }
    progress(f"done in {time.perf_counter() - started:.0f} s")
    print(table(results))


if __name__ == "__main__":
    main()
