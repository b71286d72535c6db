"""`python -m leadgreen_data`: the version and source of this data release, and each workload's
unit and counts."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import leadgreen_data as lg


def facts(workload: str | None = None) -> dict[str, Any]:
    """The release's version, source and folder, and per workload (every one, or the one named)
    its unit and counts."""
    head = lg.index()
    chosen = lg._workload_ids() if workload is None else [lg._workload_id(workload)]
    units = {entry["id"]: entry["unit"] for entry in lg.workloads()}
    return {
        "version": lg.__version__,
        "tag": lg.TAG,
        "data_version": lg.DATA_VERSION,
        "source": {"name": head["source"]["name"], "url": head["source"]["url"]},
        "files": str(lg.path()),
        "workloads": [
            {
                "id": w,
                "unit": units[w],
                "models": len(lg.models(w)["models"]),  # type: ignore[call-overload]  # an id from workloads.json
                "index_rows": len(lg.index(w)["rows"]),  # type: ignore[call-overload]
                "configurations": len(lg.configurations(w)),  # type: ignore[call-overload]
            }
            for w in chosen
        ],
    }


def summary(workload: str | None = None) -> str:
    found = facts(workload)
    lines = [
        f"leadgreen-data {found['version']} (tag {found['tag']}), data version "
        f"{found['data_version']}",
        f"source: {found['source']['name']} ({found['source']['url']})",
        f"files: {found['files']}",
    ]
    for w in found["workloads"]:
        counts = (
            f"{w['models']} models, {w['index_rows']} index rows, {w['configurations']} "
            f"configurations"
        )
        lines.append(f"workload {w['id']}: {counts}, in {w['unit']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m leadgreen_data",
        description="Print this data release's version, source, folder and, per workload, its "
        "unit and counts.",
        epilog="Exits 0, or 2 on a wrong option or an unknown workload.",
    )
    parser.add_argument(
        "--workload", metavar="ID", help="one workload, by id or upstream task name (e.g. gpqa)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    args = parser.parse_args(argv)
    try:
        text = json.dumps(facts(args.workload), indent=2) if args.json else summary(args.workload)
    except LookupError as exc:
        parser.error(str(exc))
    try:
        print(text, flush=True)
    except BrokenPipeError:  # the reader of our output (head, say) stopped: not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
