"""Issue 37: energy per response in every LLM frontier, a frontier across GPU types, generation rows
a user can compare (resolution, steps, frames, Wh per video-second) and generation frontiers.

Expectations are recomputed here from the upstream task files with plain json (not the builder's
code),
or are literals; the negative corpus names the line `builder validate` gives for each planted fault.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from edits import edit
from helpers import REPO
from rules import rule_problems

DATA = REPO / "data"
GENERATION = {"text-to-image": ("image", 30), "text-to-video": ("video", 300)}


def load(rel: str) -> Any:
    return json.loads((DATA / rel).read_text(encoding="utf-8"))


def generation_rows(workload: str) -> list[tuple[str, int, dict[str, Any]]]:
    """(row_id, repeat, upstream row) of every configuration of a generation workload, repeats in
    file order."""
    rows = json.loads((REPO / "upstream" / f"{workload}.json").read_text(encoding="utf-8"))[
        "configurations"
    ]
    # PixArt-Σ's
    slugs = {m["model_id"]: m["slug"] for m in load(f"workloads/{workload}/models.json")["models"]}
    seen: Counter[str] = Counter()
    found = []
    for r in rows:
        rid = f"{slugs[r['model_id']]}/{r['gpu_model']}/{r['num_gpus']}/{r['batch_size']}/{r['ulysses_degree']}/{r['ring_degree']}"
        seen[rid] += 1
        found.append((rid, seen[rid], r))
    return found


def generation_entry(kind: str, rid: str, rep: int, r: dict[str, Any]) -> dict[str, Any]:
    energy = r[f"energy_per_{kind}_joules"]
    head = {"row_id": rid, "repeat": rep, "gpu": r["gpu_model"], "num_gpus": r["num_gpus"]}
    head |= {k: r[k] for k in ("batch_size", "ulysses_degree", "ring_degree")}
    head["batch_latency_s"] = round(r["batch_latency_s"], 3)
    if kind == "image":
        return head | {
            "joules_per_image": round(energy, 4),
            "wh_per_thousand_images": round(energy / 3.6, 2),
        }
    seconds = r["num_frames"] / r["fps"]
    return head | {
        "joules_per_video": round(energy, 4),
        "wh_per_video": round(energy / 3600, 2),
        "wh_per_video_second": round(energy / 3600 / seconds, 4),
    }


def expected_generation_frontier(workload: str) -> dict[str, Any]:
    kind, limit = GENERATION[workload]
    order = ("gpu_model", "num_gpus", "batch_size", "ulysses_degree", "ring_degree")
    by_model: dict[str, list] = defaultdict(list)
    for rid, rep, r in generation_rows(workload):
        by_model[rid.split("/")[0]].append((rid, rep, r))

    def part(confs: list, strict: bool) -> dict[str, Any]:
        point = {
            (c[0], c[1]): (c[2][f"energy_per_{kind}_joules"], c[2]["batch_latency_s"])
            for c in confs
        }

        def beaten(e: float, t: float) -> bool:
            if strict:
                return any(f < e and u < t for f, u in point.values())
            return any(f <= e and u <= t and (f, u) != (e, t) for f, u in point.values())

        front = [c for c in confs if not beaten(*point[(c[0], c[1])])]
        front.sort(key=lambda c: (point[(c[0], c[1])][::-1], *(c[2][k] for k in order), c[1]))
        best = {}
        for target in (limit // 2, limit):
            fast = [c for c in confs if c[2]["batch_latency_s"] <= target]
            pick = min(
                fast, key=lambda c: round(c[2][f"energy_per_{kind}_joules"], 4), default=None
            )
            best[str(target)] = generation_entry(kind, *pick) if pick else None
        return {"frontier": [generation_entry(kind, *c) for c in front], "best_under": best}

    models = []
    for name in sorted(by_model):
        # stable: repeats in order
        confs = sorted(by_model[name], key=lambda c: tuple(c[2][k] for k in order))
        gpus = sorted({c[2]["gpu_model"] for c in confs})
        per_gpu = {gpu: part([c for c in confs if c[2]["gpu_model"] == gpu], False) for gpu in gpus}
        models.append({"slug": name, "gpus": per_gpu, "across_gpus": part(confs, True)})
    return {"latency_limit_s": limit, "latency_targets_s": [limit // 2, limit], "models": models}


@pytest.mark.parametrize("workload", GENERATION)
def test_generation_frontier_equals_a_recomputation_from_upstream(workload: str) -> None:
    doc = load(f"workloads/{workload}/frontier.json")
    kind = GENERATION[workload][0]
    head = ["version", "workload", "data_version", "kind", "unit", "latency_metric", "definition"]
    assert list(doc) == [*head, "latency_limit_s", "latency_targets_s", "models"]
    assert (doc["version"], doc["workload"], doc["kind"], doc["latency_metric"]) == (
        "1",
        workload,
        kind,
        "batch_latency_s",
    )
    assert doc["unit"] == {"image": "Wh per 1,000 images", "video": "Wh per video"}[kind]
    assert list(doc["definition"]) == ["gpus", "across_gpus", "best_under"]
    assert {
        k: doc[k] for k in ("latency_limit_s", "latency_targets_s", "models")
    } == expected_generation_frontier(workload)


def test_frontiers_across_gpus_hold_the_leaderboards_points() -> None:
    """Strict dominance across GPU types: 233 of the 661 per-GPU frontier points of the LLM
    workloads are off it."""
    per_gpu = across = off = 0
    llm = ("problem-solving", "code-completion", "image-chat", "video-chat")
    for folder in ("", *(f"workloads/{w}/" for w in llm)):
        for model in load(f"{folder}frontier.json")["models"]:
            kept = {(e["row_id"], e["repeat"]) for e in model["across_gpus"]["frontier"]}
            listed = [
                (e["row_id"], e["repeat"]) for g in model["gpus"].values() for e in g["frontier"]
            ]
            per_gpu, across, off = (
                per_gpu + len(listed),
                across + len(kept),
                off + len(set(listed) - kept),
            )
    assert (per_gpu, across, off) == (661, 428, 233)


@pytest.mark.parametrize("workload", GENERATION)
def test_generation_index_rows_say_what_each_image_or_video_is(workload: str) -> None:
    """Resolution and steps (and for video frames, frame rate and Wh per video-second), as in the
    best configuration."""
    kind = GENERATION[workload][0]
    keys = ["width", "height", "inference_steps"] + (
        ["num_frames", "fps", "wh_per_video_second"] if kind == "video" else []
    )
    for row in load(f"workloads/{workload}/index.json")["rows"]:
        best = load(f"workloads/{workload}/models/{row['slug']}.json")["best"][row["gpu"]]
        assert {k: row[k] for k in keys} == {k: best[k] for k in keys}, row["row_id"]
    sizes = {
        (r["width"], r["height"], r.get("num_frames"), r.get("fps"))
        for r in load(f"workloads/{workload}/index.json")["rows"]
    }
    # the range: 720x480, 49 frames at 8 fps, to 1280x720, 129 frames at 15 fps
    if kind == "video":
        assert {(720, 480, 49, 8), (1280, 720, 129, 15)} <= sizes
    steps = {r["inference_steps"] for r in load(f"workloads/{workload}/index.json")["rows"]}
    assert steps == ({20, 28, 50} if kind == "image" else {50})


def test_wh_per_video_second_is_wh_per_video_over_its_length() -> None:
    rows = {(rid, rep): r for rid, rep, r in generation_rows("text-to-video")}
    for path in sorted((DATA / "workloads" / "text-to-video" / "models").glob("*.json")):
        for conf in json.loads(path.read_text())["configurations"]:
            r = rows[(conf["row_id"], conf["repeat"])]
            assert conf["wh_per_video_second"] == round(
                r["energy_per_video_joules"] / 3600 * r["fps"] / r["num_frames"], 4
            )
    row = next(
        r for r in load("workloads/text-to-video/index.json")["rows"] if r["slug"] == "cogvideox-2b"
    )
    assert (row["wh_per_video"], row["num_frames"], row["fps"], row["wh_per_video_second"]) == (
        7.36,
        49,
        8,
        1.2014,
    )


def test_units_say_the_unit_of_each_latency_limit_and_every_frontier_url() -> None:
    doc = load("units.json")
    assert list(doc) == ["version", "updated", "data_version", "definition", "workloads"]
    listed = load("workloads.json")["workloads"]
    assert [w["id"] for w in doc["workloads"]] == [w["id"] for w in listed]
    found = {w["id"]: (w["unit"], w["latency_limit"], w["latency_unit"]) for w in doc["workloads"]}
    llm = ("Wh per million output tokens", 500, "ms")
    assert found == {
        "text-conversation": llm,
        "problem-solving": llm,
        "code-completion": llm,
        "image-chat": llm,
        "video-chat": llm,
        "text-to-image": ("Wh per 1,000 images", 30, "s"),
        "text-to-video": ("Wh per video", 300, "s"),
    }
    for entry, row in zip(listed, doc["workloads"], strict=True):
        assert {k: row[k] for k in ("unit", "latency_metric", "latency_limit")} == {
            k: entry[k] for k in ("unit", "latency_metric", "latency_limit")
        }
        folder = "" if row["id"] == "text-conversation" else f"workloads/{row['id']}/"
        assert row["frontier_url"] == f"https://leadgreen.ai/api/v1/{folder}frontier.json"
        assert (DATA / folder / "frontier.json").is_file()
        assert entry.get("frontier_url", row["frontier_url"]) == row["frontier_url"]


# The negative corpus: each planted fault, and the line `builder validate` gives for it.

F, IMG, VID = "frontier.json", "workloads/text-to-image/", "workloads/text-to-video/"
Q8 = "/models/17"  # qwen-3-8b, in data/frontier.json
W14 = "/models/4"  # wan-2-1-14b, in the text-to-video frontier


def at(pointer: str, change: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Apply `change` to the object at a JSON pointer of the document."""

    def apply(doc: Any) -> None:
        node = doc
        for part in pointer.strip("/").split("/"):
            node = node[int(part)] if isinstance(node, list) else node[part]
        change(node)

    return apply


def copied(rel: str, pointer: str) -> Callable[[Any], Any]:
    """The entry at a pointer of a committed frontier document, to plant elsewhere."""
    node = load(rel)
    for part in pointer.strip("/").split("/"):
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def scaled(key: str, factor: float) -> Callable[[dict[str, Any]], None]:
    return lambda entry: entry.update({key: round(entry[key] * factor, 4)})


def csv_cell(row_id: str, column: str, value: str) -> Callable[[Path], None]:
    def apply(data: Path) -> None:
        path = data / "configurations.csv"
        lines = path.read_text().splitlines()
        head = lines[0].split(",")
        i = next(
            n
            for n, line in enumerate(lines)
            if f",{row_id}," in line and line.startswith("text-conversation,")
        )
        cells = lines[i].split(",")
        cells[head.index(column)] = value
        lines[i] = ",".join(cells)
        path.write_text("\n".join(lines) + "\n")

    return apply


B200_8 = "qwen-3-8b/B200/1/8 repeat 1"
CORPUS = [
    (
        "across-dominated",
        edit(
            F,
            at(
                f"{Q8}/across_gpus",
                lambda g: g["frontier"].append(copied(F, f"{Q8}/gpus/H100/frontier/0")),
            ),
        ),
        f"data/frontier.json: {Q8}/across_gpus/frontier/9: expected a configuration no other "
        f"dominates, found qwen-3-8b/H100/1/8 repeat 1 dominated by qwen-3-8b/B200/1/16 repeat 1",
    ),
    (
        "across-missing",
        edit(F, at(f"{Q8}/across_gpus", lambda g: g["frontier"].pop(0))),
        f"data/frontier.json: {Q8}/across_gpus/frontier: expected every undominated "
        f"configuration, found {B200_8} (models/qwen-3-8b.json) missing",
    ),
    (
        "across-best-not-lowest",
        edit(
            F,
            at(
                f"{Q8}/across_gpus/best_under",
                lambda b: b.update({"200": copied(F, f"{Q8}/gpus/H100/best_under/200")}),
            ),
        ),
        f"data/frontier.json: {Q8}/across_gpus/best_under/200: expected qwen-3-8b/B200/1/1536 "
        f"repeat 1 (the lowest energy under 200 ms), found qwen-3-8b/H100/1/512 repeat 1",
    ),
    (
        "across-not-a-configuration",
        edit(F, at(f"{Q8}/across_gpus/frontier/0", lambda e: e.update(repeat=2))),
        f"data/frontier.json: {Q8}/across_gpus/frontier/0: expected a configuration of "
        f"models/qwen-3-8b.json, found no qwen-3-8b/B200/1/8 repeat 2",
    ),
    (
        "across-gpu-differs",
        edit(F, at(f"{Q8}/across_gpus/frontier/0", lambda e: e.update(gpu="H100"))),
        f'data/frontier.json: {Q8}/across_gpus/frontier/0/gpu: expected "B200" as in '
        f'models/qwen-3-8b.json {B200_8}, found "H100"',
    ),
    (
        "across-missing-in-schema",
        edit(F, at(Q8, lambda m: m.pop("across_gpus"))),
        f"data/frontier.json: {Q8}: expected required property 'across_gpus', found it missing",
    ),
    (
        "response-not-per-token-times-mean",
        edit(F, at(f"{Q8}/gpus/B200/frontier/0", scaled("joules_per_response", 1.01))),
        f"data/frontier.json: {Q8}/gpus/B200/frontier/0/joules_per_response: expected "
        f"joules_per_output_token x mean_output_tokens = 274.8804 (models/qwen-3-8b.json "
        f"{B200_8}), found 277.6305",
    ),
    (
        "response-not-the-csv",
        csv_cell("qwen-3-8b/B200/1/8", "joules_per_response", "1228.5"),
        f"data/frontier.json: {Q8}/gpus/B200/frontier/0/joules_per_response: expected 1228.5 as "
        f"in configurations.csv ({B200_8}), found 274.8817",
    ),
    (
        "response-median-not-per-token-times-median",
        edit(F, at(f"{Q8}/gpus/B200/frontier/0", scaled("joules_per_response_median", 1.01))),
        f"data/frontier.json: {Q8}/gpus/B200/frontier/0/joules_per_response_median: expected "
        f"joules_per_output_token x median_output_tokens = 0.4303951 x 521.0 = 224.2358 "
        f"(models/qwen-3-8b.json, output-lengths.json, {B200_8}), found 226.4783",
    ),
    (
        "response-p90-missing",
        edit(
            F,
            at(
                f"{Q8}/across_gpus/best_under/100", lambda e: e.update(joules_per_response_p90=None)
            ),
        ),
        f"data/frontier.json: {Q8}/across_gpus/best_under/100/joules_per_response_p90: expected "
        f"joules_per_output_token x p90_output_tokens = 0.0530581 x 1407.7 = 74.6899 "
        f"(models/qwen-3-8b.json, output-lengths.json, qwen-3-8b/B200/1/1536 repeat 1), found null",
    ),
    (
        "response-quantile-without-histogram",
        edit("output-lengths.json", at(Q8, lambda m: m["configurations"].pop(0))),
        f"data/frontier.json: {Q8}/gpus/B200/frontier/0/joules_per_response_median: expected null "
        f"({B200_8} has no histogram in output-lengths.json), found 224.2359",
    ),
    (
        "mean-not-avg-output-tokens",
        edit(
            F,
            at(
                f"{Q8}/across_gpus/frontier/0",
                lambda e: e.update(mean_output_tokens=e["mean_output_tokens"] + 1),
            ),
        ),
        f"data/frontier.json: {Q8}/across_gpus/frontier/0/mean_output_tokens: expected within 0.5 "
        f"of avg_output_tokens 639 (models/qwen-3-8b.json {B200_8}), found 639.67",
    ),
    (
        "definition-changed",
        edit(F, at("/definition", lambda d: d.update(across_gpus="weak dominance"))),
        "data/frontier.json: /definition/across_gpus: expected \"Over all the model's GPU types, "
        "every configuration that no other strictly dominates: none has both strictly lower "
        "energy and strictly lower latency (unrounded upstream values), the ML.ENERGY Lead..., "
        'found "weak dominance"',
    ),
    (
        "generation-frontier-missing",
        lambda data: (data / IMG / F).unlink(),
        "data/workloads/text-to-image/frontier.json: /: expected this file, found it missing",
    ),
    (
        "generation-targets-not-half-and-limit",
        edit(IMG + F, lambda d: d.update(latency_targets_s=[10, 30])),
        "data/workloads/text-to-image/frontier.json: /latency_targets_s/0: expected 15 as in half "
        "latency_limit_s, then latency_limit_s, found 10",
    ),
    (
        "generation-best-not-lowest",
        edit(
            VID + F,
            at(
                f"{W14}/across_gpus/best_under",
                lambda b: b.update({"150": copied(VID + F, f"{W14}/across_gpus/frontier/0")}),
            ),
        ),
        f"data/workloads/text-to-video/frontier.json: {W14}/across_gpus/best_under/150: expected "
        f"wan-2-1-14b/B200/4/1/4/1 repeat 1 (the lowest energy under 150 s), found "
        f"wan-2-1-14b/B200/8/1/8/1 repeat 1",
    ),
    (
        "generation-best-too-slow",
        edit(
            VID + F,
            at(
                f"{W14}/across_gpus/best_under",
                lambda b: b.update({"150": copied(VID + F, f"{W14}/across_gpus/best_under/300")}),
            ),
        ),
        f"data/workloads/text-to-video/frontier.json: {W14}/across_gpus/best_under/150: expected "
        f"a configuration with batch_latency_s <= 150, found wan-2-1-14b/B200/2/1/1/2 repeat 1 at "
        f"185.238",
    ),
    (
        "generation-entry-differs",
        edit(
            VID + F,
            at(f"{W14}/across_gpus/frontier/0", lambda e: e.update(wh_per_video_second=1.0)),
        ),
        f"data/workloads/text-to-video/frontier.json: "
        f"{W14}/across_gpus/frontier/0/wh_per_video_second: expected 18.7877 as in "
        f"workloads/text-to-video/models/wan-2-1-14b.json wan-2-1-14b/B200/8/1/8/1 repeat 1, "
        f"found 1.0",
    ),
    (
        "generation-missing-undominated",
        edit(VID + F, at(f"{W14}/gpus/B200", lambda g: g["frontier"].pop(0))),
        f"data/workloads/text-to-video/frontier.json: {W14}/gpus/B200/frontier: expected every "
        f"undominated configuration, found wan-2-1-14b/B200/8/1/8/1 repeat 1 "
        f"(workloads/text-to-video/models/wan-2-1-14b.json) missing",
    ),
    (
        "wh-per-video-second-not-over-length",
        edit(
            VID + "models/cogvideox-2b.json",
            at("/configurations/0", lambda c: c.update(wh_per_video_second=2.0)),
        ),
        "data/workloads/text-to-video/models/cogvideox-2b.json: "
        "/configurations/0/wh_per_video_second: expected joules_per_video / 3600 / (num_frames / "
        "fps) = 1.2262, found 2.0",
    ),
    (
        "index-width-not-the-best",
        edit(VID + "index.json", at("/rows/0", lambda r: r.update(width=1280))),
        "data/workloads/text-to-video/index.json: /rows/0/width: expected 720 as in "
        "workloads/text-to-video/models/cogvideox-2b.json best[B200], found 1280",
    ),
    (
        "index-fps-missing",
        edit(VID + "index.json", at("/rows/0", lambda r: r.pop("fps"))),
        "data/workloads/text-to-video/index.json: /rows/0: expected required property 'fps', "
        "found it missing",
    ),
    (
        "generation-architecture",
        edit(IMG + "models/flux-1-dev.json", lambda d: d.update(architecture="diffusion")),
        "data/workloads/text-to-image/models/flux-1-dev.json: /: expected no properties beyond "
        "the schema's, found 'architecture'",
    ),
    (
        "units-wrong-unit",
        edit("units.json", at("/workloads/5", lambda w: w.update(latency_unit="ms"))),
        'data/units.json: /workloads/5/latency_unit: expected "s" as in data/workloads.json, '
        'found "ms"',
    ),
    (
        "units-limit-differs",
        edit("units.json", at("/workloads/0", lambda w: w.update(latency_limit=0.5))),
        "data/units.json: /workloads/0/latency_limit: expected 500 as in data/workloads.json, "
        "found 0.5",
    ),
    (
        "units-workload-missing",
        edit("units.json", lambda d: d["workloads"].pop()),
        "data/units.json: /workloads: expected 7 items as in data/workloads.json, found 6",
    ),
    (
        "units-file-missing",
        lambda data: (data / "units.json").unlink(),
        "data/units.json: /: expected this file, found it missing",
    ),
    (
        "units-unknown-unit",
        edit("units.json", at("/workloads/0", lambda w: w.update(latency_unit="min"))),
        'data/units.json: /workloads/0/latency_unit: expected enum ["ms", "s"], found "min"',
    ),
]


@pytest.mark.parametrize(("apply", "expected"), [pytest.param(a, e, id=n) for n, a, e in CORPUS])
def test_the_checks_refuse_a_planted_fault(reused_copy, apply, expected) -> None:
    """Each fault through validate's checks (tests/rules.py)."""
    apply(reused_copy / "data")
    found = rule_problems(reused_copy / "data")
    assert expected in found, found


@pytest.mark.slow  # a whole `builder validate`; the cases above run its checks
def test_validate_refuses_a_response_energy_that_is_not_per_token_times_length(
    repo_copy, cli
) -> None:
    _name, apply, expected = next(
        case for case in CORPUS if case[0] == "response-not-per-token-times-mean"
    )
    apply(repo_copy / "data")
    result = cli("validate")
    assert result.exit_code == 1, result.output
    assert expected in result.output.splitlines(), result.output
