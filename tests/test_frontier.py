"""Issue 21, items 1 and 2: energy per response and the model's size in the CSV, and the energy-latency frontier.

Expectations are recomputed here from the upstream task files with plain json (not the builder's
code), or are literals; the negative corpus names each fault `builder validate` must report.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from builder.validate.run import check_rules
from builder.validate.tree import load_tree
from builder.verify import _provenance
from conftest import REPO
from edits import edit

TASKS = {
    "text-conversation": ("lm-arena-chat", ""),
    "problem-solving": ("gpqa", "workloads/problem-solving/"),
    "code-completion": ("sourcegraph-fim", "workloads/code-completion/"),
    "image-chat": ("image-chat", "workloads/image-chat/"),
    "video-chat": ("video-chat", "workloads/video-chat/"),
}
TARGETS = [50, 100, 200]

# sha256 of every document published before the frontier (all but workloads.json and the CSV), as committed.
BEFORE = {
    "index.json": "5032783fc8e7980aee8ee8b4e65ea4bb4170dc811aee1b7f686f2750ee851736",
    "models.json": "f4fad1362e7ccfaaa81eac3e37c9e1bb78b074c5ca6ffd93a2d6a79c53756f14",
    "models/deepseek-v3-1.json": "5d08e5d92a006835df8b455cea902d54dfd8ccf43d5c7f0b49b4263bcb0e28cc",
    "models/gemma-3-12b.json": "8652939041a9673714f9bea7c9ab6615be0cbb342579f1167cfac640a1f8f482",
    "models/gemma-3-27b.json": "58bffff76a31f48b0c78cde4e7f1b97707c44512a07b0e222deed76087fa812a",
    "models/llama-3-1-405b-instruct-fp8.json": "296ab2685062a29f4000ad003bbb55ef5a07ea7dd0cddc522c30059dcd48909b",
    "models/llama-3-1-405b-instruct.json": "fb3f34b272530f519f151f4c98a459768b41e639d9f064ddd07c8a38d3a39d7e",
    "models/llama-3-1-70b-instruct.json": "02be19afaa3fed9c6a6e802585e38addd966aa6af7e26b10c8502cb47fb8df7c",
    "models/llama-3-1-8b-instruct.json": "dc55ca384be313fec284a645e42373aac080bcb23a83815edec04a9b591f7bdf",
    "models/llama-3-3-70b-instruct.json": "f9d7d53651b083880c08f1b6a66151846060536cb5c5a76fb044324efa1bcd3a",
    "models/llama-4-maverick-17b-128e-instruct-fp8.json": "41b270cf166e5ecfd5ad7b9c9197a97730c843e87ae127dcfa5019d071ed3641",
    "models/llama-4-scout-17b-16e-instruct.json": "9b0c1db9e1c4d7f26f75f0251a9a2873a4611f8a0b45cfc42f48adf58bf38407",
    "models/nvidia-nemotron-nano-12b-v2.json": "faf7fbd404d4c2d6ea20bf025eee7e76f2c35ed97fd7a8d3009b99b69a1a6b18",
    "models/nvidia-nemotron-nano-9b-v2.json": "1a2a75c4368ec174ca1cc5e7f820b098c241d1eee51c0ac739150ce508ea2ca8",
    "models/qwen-3-14b.json": "67738bb193a454c3a7b5e4f9797eb6a9cc0725570ab42a299b02164ed39e4a62",
    "models/qwen-3-235b-a22b-instruct-fp8.json": "87bfacb9d2e940884b50c83956273ec67a4ea8cdcfb593fd0b677cd14c1d6491",
    "models/qwen-3-235b-a22b-instruct.json": "26859416c1eaaf99a5886875c52c76a4301acd6dbbd85b448acb4339ed28b470",
    "models/qwen-3-30b-a3b-instruct.json": "1d8492c5fed81358e9961c7f715c7d269cce650387d692f71b8e99db2edb0cad",
    "models/qwen-3-32b.json": "dab23cfdf9ddeea2bde6a0ca724c11e11f12194840b76bafa1f482036cfdc83e",
    "models/qwen-3-8b.json": "99e3b771b07b19a4b3c79241c92d6b13057894165862f2a4f8a2c3124f4a7c7a",
    "workloads/code-completion/index.json": "b0dae380c1ba4428e8fac47a1dc9a0f0a362e7d92b3d7eb7f14e99d049657fd6",
    "workloads/code-completion/models.json": "d09019f290bd9a1597d7d7de864ed8c653875de7574517a9501fa1994ba37f13",
    "workloads/code-completion/models/qwen-3-coder-30b-a3b.json": "ca4c98c7e59ed5a1430c65d5f8226287d373111be23571dbd5a0c8c3f7a0dcd3",
    "workloads/code-completion/models/qwen-3-coder-480b-a35b-fp8.json": "1a0292c454761385b1737aa5a928d85c8ac26c533ad137f22329205f6cbc2cb1",
    "workloads/code-completion/models/qwen-3-coder-480b-a35b.json": "f68a2f39b24fb4fd98eb10ca965a81686aa214422f923049a9ce39c7f28bbfc8",
    "workloads/image-chat/index.json": "677df1d46d85a5b86a7b488ba560eb131ee6462f4afd032e22c8b9d7c9492891",
    "workloads/image-chat/models.json": "04e2cae9a129d66991403e549bad27bd4ed45f5be90afad6b09a893e8346f554",
    "workloads/image-chat/models/gemma-3-12b.json": "3c41af9907dc33c91be148f5bcc7e4cc8951d5b1244d6944be2b8217743d5cee",
    "workloads/image-chat/models/gemma-3-27b.json": "ed49472a6b5932e7965596c1e5beff3f9ab452f68e9dc501e6374db6533d197b",
    "workloads/image-chat/models/llama-4-maverick-17b-128e-instruct-fp8.json": "972d35bcd034bf1eba5980e7ca385e2d96bcfd478fdb5b9ead4e0f3dcbb8c710",
    "workloads/image-chat/models/llama-4-scout-17b-16e-instruct.json": "6107729ea350eb3b8fce46ae4d9c6f3ee1e5e3f98e50a903b162d92580215daf",
    "workloads/image-chat/models/nvidia-nemotron-nano-12b-v2-vl.json": "58503c9501ea2b8852c5137d3e412522b5bf7f304b8daeaa93673c755cc3ebb1",
    "workloads/image-chat/models/qwen-3-omni-30b-a3b-instruct.json": "fc3f349df866bcebd1da575dfcc1b307b385d4ed023b5d39d6c0fe4ee09f164a",
    "workloads/image-chat/models/qwen-3-vl-235b-a22b-instruct-fp8.json": "e43e11f889344b8817a43ad7ab045ec2607c31c05b87be5b6d99bdbd0650d380",
    "workloads/image-chat/models/qwen-3-vl-235b-a22b-instruct.json": "585b570d686ab231e0a4239d7b2d850c1ff6e4a11354bafbf4d11ac306e89512",
    "workloads/image-chat/models/qwen-3-vl-30b-a3b-instruct.json": "106036e65f2f9c44a7c25f67022d3089a08ee19a878bb8761b1876ed8dffdb3a",
    "workloads/image-chat/models/qwen-3-vl-32b-instruct.json": "b55e014ff16b8cde97a5d4aee84a1a3168615e5ece6f905d76bb2d74b0815e3a",
    "workloads/image-chat/models/qwen-3-vl-8b-instruct.json": "bda01d641b25832352c68c8bf0de17221d2197f691bdfbb720cf2140ea28fda7",
    "workloads/problem-solving/index.json": "59e4b0e86b1c9ab53eb2eac651644d760f5b8192c1d4f6c89ebba0e88a5de5dd",
    "workloads/problem-solving/models.json": "f95f71a767fb44f07938996a0f70d189ad345f01bb280ddbc62348f68c515a30",
    "workloads/problem-solving/models/deepseek-r1.json": "ee155f0e4782aa0a10b619faed93a4b669e9d236c1c3117538a61e4cc59eb69d",
    "workloads/problem-solving/models/deepseek-v3-1.json": "864af1a17c11d0b0fbcdb033af1252adc300d6e8c07d94cd62318562fe8a3843",
    "workloads/problem-solving/models/gpt-oss-120b.json": "fbc0d64fcdfe096e84f8c3929a31c90fa6217b5ed900ec0749ac206791980329",
    "workloads/problem-solving/models/gpt-oss-20b.json": "9b864be7140173b2216a40166229a3cdf99f98a827d43b0c34e8568dc80d9afb",
    "workloads/problem-solving/models/nvidia-nemotron-nano-12b-v2.json": "5ba283efe8dd3a5c85d1d2b1f8a38e5b4fe0afbf22065b94cb3bbb8354994f38",
    "workloads/problem-solving/models/nvidia-nemotron-nano-9b-v2.json": "72c33710fec807ef9fd2aa3826601c8192d0d770889b2e3010dc6cb245911d02",
    "workloads/problem-solving/models/qwen-3-14b.json": "9799df0515a768d390c9c76432bfd047b849f6fe941b3fd5e207aeda875d9897",
    "workloads/problem-solving/models/qwen-3-235b-a22b-thinking-fp8.json": "e0e76a36b7d8395c94f8e4e8b1205bd5278a24d8425e25cab88e84506b8ef6ab",
    "workloads/problem-solving/models/qwen-3-235b-a22b-thinking.json": "d500995d2aaa428b3518be89157b5e3aac04d743e007c792872b048828306791",
    "workloads/problem-solving/models/qwen-3-30b-a3b-thinking.json": "86d0e93b9d55566b9481436d255bb5a83b7e93ee934f37d22c380f03059f6f5c",
    "workloads/problem-solving/models/qwen-3-32b.json": "957ad05db4e4ca56ffb80d3c7d4ab2edced2137039c0d2efddec462acd45d997",
    "workloads/problem-solving/models/qwen-3-8b.json": "18b8a597ba56f060b06d8518e1a01f88468cc161d52f66843b297d66fbf30324",
    "workloads/video-chat/index.json": "fcc509c93aad993f1b68c314e05c62d356d891f8f301db7450c6a43ffd33e8e3",
    "workloads/video-chat/models.json": "9364ab4ee4b95dfbb26ee0de09ccc34973ef858d1668210a35be4294fbaadcef",
    "workloads/video-chat/models/qwen-3-omni-30b-a3b-instruct.json": "f96d3fe2609a79848cc21933ce25e5300818eb410c7d408f8088b0a7388ed2b3",
    "workloads/video-chat/models/qwen-3-vl-235b-a22b-instruct-fp8.json": "9ee577f772a59fec07ca9a14ae1082803e1463b521d3f17a30bdd98a08f38876",
    "workloads/video-chat/models/qwen-3-vl-235b-a22b-instruct.json": "7ebcdfbd1e31787e9314d689fb885b9d90d92de9a005331c34b224f6332a5713",
    "workloads/video-chat/models/qwen-3-vl-30b-a3b-instruct.json": "4717982527ccc0d0e47e4a6e7a173abf113cd1623ba0f3fd31ea1ccdb824d6a1",
    "workloads/video-chat/models/qwen-3-vl-32b-instruct.json": "044462ac8e29ee110497e7e03d8a656c7b7f6601cd02a2103104c7c95548fe36",
    "workloads/video-chat/models/qwen-3-vl-8b-instruct.json": "1a4358510a0fe3c0d301ad1b137de855e1ccfd00d72833e51f0bbb8d12d9b47f",
}


def test_every_earlier_document_is_byte_identical() -> None:
    data = REPO / "data"
    found = {p.relative_to(data).as_posix() for p in data.rglob("*.json") if p.name != "frontier.json"}
    generation = {rel for rel in found if rel.startswith(("workloads/text-to-image/", "workloads/text-to-video/"))}
    assert found - generation - {"workloads.json"} == set(BEFORE)  # the new workloads: tests/test_generation.py
    for rel, digest in BEFORE.items():
        assert hashlib.sha256((data / rel).read_bytes()).hexdigest() == digest, rel


# The recomputation, from upstream/<task>.json alone.


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def upstream_rows(task: str) -> dict[tuple[str, int], dict[str, Any]]:
    """Every upstream row by (row_id, repeat): <slug>/<gpu>/<num_gpus>/<max_num_seqs>, repeats in file order."""
    rows = json.loads((REPO / "upstream" / f"{task}.json").read_text())["configurations"]
    seen: Counter[str] = Counter()
    keyed = {}
    for row in rows:
        rid = f"{slug(row['nickname'])}/{row['gpu_model']}/{row['num_gpus']}/{row['max_num_seqs']}"
        seen[rid] += 1
        keyed[(rid, seen[rid])] = row
    return keyed


def expected_frontier(task: str) -> dict[str, Any]:
    by_model: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for (rid, repeat), row in upstream_rows(task).items():
        by_model[rid.split("/")[0]][row["gpu_model"]].append((rid, repeat, row))
    models = []
    for name in sorted(by_model):
        gpus = {}
        for gpu in sorted(by_model[name]):
            confs = sorted(by_model[name][gpu], key=lambda c: (c[2]["num_gpus"], c[2]["max_num_seqs"]))  # stable
            point = {(rid, rep): (row["energy_per_token_joules"], row["median_itl_ms"]) for rid, rep, row in confs}

            def beaten(key: tuple[str, int], point: dict = point) -> bool:
                e, t = point[key]
                return any(f <= e and u <= t and (f, u) != (e, t) for f, u in point.values())

            def entry(rid: str, rep: int, row: dict) -> dict[str, Any]:
                return {
                    "row_id": rid,
                    "repeat": rep,
                    "num_gpus": row["num_gpus"],
                    "max_num_seqs": row["max_num_seqs"],
                    "median_itl_ms": round(row["median_itl_ms"], 1),
                    "wh_per_million_output_tokens": round(row["energy_per_token_joules"] * 1e6 / 3600, 2),
                }

            front = [c for c in confs if not beaten((c[0], c[1]))]
            front.sort(
                key=lambda c: (
                    c[2]["median_itl_ms"],
                    c[2]["energy_per_token_joules"],
                    c[2]["num_gpus"],
                    c[2]["max_num_seqs"],
                    c[1],
                )
            )
            best_under = {}
            for target in TARGETS:
                fast = [c for c in confs if c[2]["median_itl_ms"] <= target]
                best = min(
                    fast, key=lambda c: round(c[2]["energy_per_token_joules"], 7), default=None
                )  # first on a tie
                best_under[str(target)] = entry(*best) if best else None
            gpus[gpu] = {"frontier": [entry(*c) for c in front], "best_under": best_under}
        models.append({"slug": name, "gpus": gpus})
    return {"itl_targets_ms": TARGETS, "models": models}


@pytest.mark.parametrize("workload", TASKS)
def test_frontier_equals_a_recomputation_from_upstream(workload: str) -> None:
    task, folder = TASKS[workload]
    doc = json.loads((REPO / "data" / folder / "frontier.json").read_text())
    assert list(doc) == ["workload", "data_version", "itl_targets_ms", "models"]
    assert doc["workload"] == workload
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", doc["data_version"])
    assert {k: doc[k] for k in ("itl_targets_ms", "models")} == expected_frontier(task)
    listed = json.loads((REPO / "data" / folder / "models.json").read_text())["models"]
    assert [m["slug"] for m in doc["models"]] == [m["slug"] for m in listed]


def test_llama_70b_under_100_ms_on_b200_is_two_gpus_at_512_sequences() -> None:
    doc = json.loads((REPO / "data" / "frontier.json").read_text())
    llama = next(m for m in doc["models"] if m["slug"] == "llama-3-1-70b-instruct")
    assert llama["gpus"]["B200"]["best_under"]["100"] == {
        "row_id": "llama-3-1-70b-instruct/B200/2/512",
        "repeat": 1,
        "num_gpus": 2,
        "max_num_seqs": 512,
        "median_itl_ms": 63.7,
        "wh_per_million_output_tokens": 75.22,
    }


def test_frontier_sizes() -> None:
    """Entries, models and GPU types per workload, and the best_under that are null (no configuration that fast)."""
    sizes = {}
    for workload, (_, folder) in TASKS.items():
        doc = json.loads((REPO / "data" / folder / "frontier.json").read_text())
        held = [g for m in doc["models"] for g in m["gpus"].values()]
        nulls = sum(v is None for g in held for v in g["best_under"].values())
        sizes[workload] = (sum(len(g["frontier"]) for g in held), len(doc["models"]), len(held), nulls)
    assert sizes == {
        "text-conversation": (282, 18, 32, 0),
        "problem-solving": (149, 12, 22, 0),
        "code-completion": (37, 3, 4, 0),
        "image-chat": (123, 11, 19, 0),
        "video-chat": (70, 6, 12, 0),
    }


def test_csv_new_columns_equal_a_recomputation_from_upstream() -> None:
    keyed = {w: upstream_rows(task) for w, (task, _) in TASKS.items()}
    with (REPO / "data" / "configurations.csv").open(newline="") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
    assert reader.fieldnames[-5:] == [
        "joules_per_response",
        "wh_per_thousand_responses",
        "params_b",
        "active_params_b",
        "architecture",
    ]
    assert len(rows) == sum(len(k) for k in keyed.values()) == 838
    for line in rows:
        up = keyed[line["workload"]][(line["row_id"], int(line["repeat"]))]
        assert float(line["joules_per_response"]) == round(up["energy_per_request_joules"], 4), line["row_id"]
        assert float(line["wh_per_thousand_responses"]) == round(up["energy_per_request_joules"] / 3.6, 2)
        assert float(line["params_b"]) == up["total_params_billions"]
        assert float(line["active_params_b"]) == up["activated_params_billions"]
        assert line["architecture"] == up["architecture"]


def test_workload_list_gives_each_frontier_url() -> None:
    entries = json.loads((REPO / "data" / "workloads.json").read_text())["workloads"]
    llm = [e for e in entries if e["kind"] == "llm"]
    base = "https://leadgreen.ai/api/v1/"
    assert [e["frontier_url"] for e in llm] == [f"{base}{TASKS[e['id']][1]}frontier.json" for e in llm]
    assert [e["id"] for e in entries if "frontier_url" not in e] == ["text-to-image", "text-to-video"]


def test_built_package_validates_and_does_not_drift(in_repo, cli) -> None:
    assert cli("validate").exit_code == 0
    assert cli("drift").exit_code == 0


# The pure rule, on configurations built by hand.


def test_equal_points_both_stay_and_best_under_takes_the_first_on_a_tie() -> None:
    """Dominance is on the unrounded points; best_under on the published energy, the first on a tie."""
    from builder.frontier import gpu_frontier

    points = {8: (0.2, 10.0), 16: (0.1, 20.0), 32: (0.1, 30.0)}  # 32 is as costly as 16, and slower
    confs = [
        {"gpu": "H100", "row_id": f"m/H100/1/{seqs}", "repeat": repeat, "num_gpus": 1, "max_num_seqs": seqs,
         "median_itl_ms": points[seqs][1], "wh_per_million_output_tokens": 0.0, "joules_per_output_token": points[seqs][0]}
        for seqs, repeat in ((8, 1), (16, 1), (16, 2), (32, 1))
    ]  # fmt: skip
    keyed = {(c["row_id"], c["repeat"]): points[c["max_num_seqs"]] for c in confs}
    found = gpu_frontier(confs, "H100", keyed, [15, 25, 5])
    assert [(e["max_num_seqs"], e["repeat"]) for e in found["frontier"]] == [(8, 1), (16, 1), (16, 2)]
    assert found["best_under"]["15"]["max_num_seqs"] == 8
    assert (found["best_under"]["25"]["max_num_seqs"], found["best_under"]["25"]["repeat"]) == (16, 1)
    assert found["best_under"]["5"] is None


# The negative corpus: each planted fault, and the line `builder validate` gives for it.

F = "frontier.json"
Q8 = "/models/17/gpus/B200"  # qwen-3-8b on B200, in data/frontier.json


def at(pointer: str, change: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Apply `change` to the object at a JSON pointer of the document."""

    def apply(doc: Any) -> None:
        node = doc
        for part in pointer.strip("/").split("/"):
            node = node[int(part)] if isinstance(node, list) else node[part]
        change(node)

    return apply


def entry_of(seqs: int) -> dict[str, Any]:
    conf = next(
        c
        for c in json.loads((REPO / "data" / "models" / "qwen-3-8b.json").read_text())["configurations"]
        if c["row_id"] == f"qwen-3-8b/B200/1/{seqs}"
    )
    keys = ("row_id", "repeat", "num_gpus", "max_num_seqs", "median_itl_ms", "wh_per_million_output_tokens")
    return {k: conf[k] for k in keys}


def csv_cell(column: str, value: str) -> Callable[[Path], None]:
    def apply(data: Path) -> None:
        path = data / "configurations.csv"
        lines = path.read_text().splitlines()
        head = lines[0].split(",")
        cells = lines[1].split(",")
        cells[head.index(column)] = value
        lines[1] = ",".join(cells)
        path.write_text("\n".join(lines) + "\n")

    return apply


CORPUS = [
    ("dominated-entry", edit(F, at(Q8, lambda g: g["frontier"].insert(3, entry_of(64)))), f"data/frontier.json: {Q8}/frontier/3: expected a configuration no other dominates, found qwen-3-8b/B200/1/64 repeat 1 dominated by qwen-3-8b/B200/1/128 repeat 1"),
    ("undominated-missing", edit(F, at(Q8, lambda g: g["frontier"].pop(0))), f"data/frontier.json: {Q8}/frontier: expected every undominated configuration, found qwen-3-8b/B200/1/8 repeat 1 (models/qwen-3-8b.json) missing"),
    ("best-under-not-lowest", edit(F, at(Q8, lambda g: g["best_under"].update({"50": entry_of(256)}))), f"data/frontier.json: {Q8}/best_under/50: expected qwen-3-8b/B200/1/512 repeat 1 (the lowest energy under 50 ms), found qwen-3-8b/B200/1/256 repeat 1"),
    ("best-under-null", edit(F, at(Q8, lambda g: g["best_under"].update({"50": None}))), f"data/frontier.json: {Q8}/best_under/50: expected qwen-3-8b/B200/1/512 repeat 1 (the lowest energy under 50 ms), found null"),
    ("best-under-too-slow", edit(F, at(Q8, lambda g: g["best_under"].update({"50": entry_of(1024)}))), f"data/frontier.json: {Q8}/best_under/50: expected a configuration with median_itl_ms <= 50, found qwen-3-8b/B200/1/1024 repeat 1 at 79.6"),
    ("best-under-target-missing", edit(F, at(Q8, lambda g: g["best_under"].pop("200"))), f"data/frontier.json: {Q8}/best_under: expected best_under keys ['50', '100', '200'] (itl_targets_ms), found ['50', '100']"),
    ("entry-value-differs", edit(F, at(f"{Q8}/frontier/0", lambda e: e.update(wh_per_million_output_tokens=100.0))), f"data/frontier.json: {Q8}/frontier/0/wh_per_million_output_tokens: expected 119.55 as in models/qwen-3-8b.json qwen-3-8b/B200/1/8 repeat 1, found 100.0"),
    ("entry-not-a-configuration", edit(F, at(f"{Q8}/frontier/0", lambda e: e.update(repeat=2))), f"data/frontier.json: {Q8}/frontier/0: expected a configuration of models/qwen-3-8b.json on this GPU, found no qwen-3-8b/B200/1/8 repeat 2"),
    ("gpu-missing", edit(F, at("/models/17/gpus", lambda g: g.pop("H100"))), "data/frontier.json: /models/17/gpus: expected the GPUs of models/qwen-3-8b.json ['B200', 'H100'], found ['B200']"),
    ("extra-field", edit(F, at(f"{Q8}/frontier/0", lambda e: e.update(note="x"))), f"data/frontier.json: {Q8}/frontier/0: expected no properties beyond the schema's, found 'note'"),
    ("entry-twice", edit(F, at(Q8, lambda g: g["frontier"].insert(1, dict(g["frontier"][0])))), f"data/frontier.json: {Q8}/frontier/1: expected each configuration once, found qwen-3-8b/B200/1/8 repeat 1 again"),
    ("out-of-order", edit(F, at(Q8, lambda g: g["frontier"].insert(0, g["frontier"].pop(1)))), f"data/frontier.json: {Q8}/frontier/1: expected median_itl_ms ascending, found 5.0 after 5.8"),
    ("file-missing", lambda data: (data / "workloads" / "problem-solving" / F).unlink(), "data/workloads/problem-solving/frontier.json: /: expected this file, found it missing"),
    ("csv-wh-not-joules-over-3-6", csv_cell("wh_per_thousand_responses", "2000.0"), "data/configurations.csv: line 2, column wh_per_thousand_responses: expected joules_per_response / 3.6 = 2013.82 (deepseek-v3-1/B200/8/8 repeat 1 of text-conversation), found 2000.0"),
]  # fmt: skip


@pytest.mark.parametrize(("apply", "expected"), [pytest.param(a, e, id=n) for n, a, e in CORPUS])
def test_the_checks_refuse_a_planted_fault(repo_copy, apply, expected) -> None:
    """Each fault through validate's checks (frictionless aside: these faults are in JSON documents)."""
    apply(repo_copy / "data")
    tree = load_tree(repo_copy / "data")
    curated, base_url = _provenance(repo_copy, tree.descriptor)
    found = [str(p) for p in check_rules(tree, base_url, curated)[0]]
    assert expected in found, found


def test_validate_refuses_a_dominated_entry(repo_copy, cli) -> None:
    """One fault through the whole command: exit 1 and its line."""
    _name, apply, expected = CORPUS[0]
    apply(repo_copy / "data")
    result = cli("validate")
    assert result.exit_code == 1, result.output
    assert expected in result.output.splitlines(), result.output
