"""`python -m leadgreen_data`: the version, the source and the counts of this data release."""

from __future__ import annotations

import leadgreen_data as lg


def summary() -> str:
    head = lg.index()
    source = head.get("source", {})
    lines = [
        f"leadgreen-data {lg.__version__} (tag {lg.TAG}), data version {lg.DATA_VERSION}",
        f"source: {source.get('name', 'unknown')} ({source.get('url', 'no URL')})",
        f"unit: {head.get('unit', 'unknown')}",
        f"files: {lg.path()}",
    ]
    others = [w for w in lg._workload_ids() if w != lg.DEFAULT_WORKLOAD]
    for workload in [lg.DEFAULT_WORKLOAD, *others]:
        count = len(lg.configurations(workload))
        lines.append(
            f"workload {workload}: {len(lg.models(workload)['models'])} models, "
            f"{len(lg.index(workload)['rows'])} index rows, {count} configurations"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(summary())
