"""`builder validate` refuses planted errors in the generation workloads' documents and CSVs, and
accepts the committed ones; the upstream parser refuses unsound generation rows and accepts every
letter in a name."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable

import pytest

from builder.errors import UpstreamError
from builder.metadata import generation_workloads, load_metadata
from builder.upstream import parse_generation
from builder.validate.run import check_built
from builder.validate.tree import Tree, load_tree
from helpers import REPO
from hostile import run_cli
from rules import built_problems, consistency_problems

DATA = REPO / "data"
# by kind
WORK = {work.kind: work for work in generation_workloads(load_metadata(REPO / "metadata.toml"))}
BASE_URL = "https://leadgreen.ai"
IMAGE = "workloads/text-to-image"
VIDEO = "workloads/text-to-video"
SD = f"{IMAGE}/models/stable-diffusion-3-5-medium.json"
WAN = f"{VIDEO}/models/wan-2-1-14b.json"
STRAY = f"{IMAGE}/models/wan-2-1-14b.json"  # a video model in the image workload


@pytest.fixture(scope="module")
def committed() -> Tree:
    return load_tree(DATA)


def problems_after(
    committed: Tree,
    edit: Callable[[Tree], None],
    check: Callable[[Tree, str], list[str]] = built_problems,
) -> list[str]:
    """The build's own checks (schemas, documents, physics, cross-file), or `check`, on the
    committed tree after `edit` (what is left as committed passes unchecked: tests/rules.py)."""
    tree = Tree(root=committed.root, data_dir=committed.data_dir, raw=dict(committed.raw))
    tree.docs = copy.deepcopy(committed.docs)
    tree.descriptor = committed.descriptor
    edit(tree)
    return check(tree, BASE_URL)


def conf_at(tree: Tree, rel: str, predicate: Callable[[dict], bool]) -> tuple[int, dict]:
    return next((i, c) for i, c in enumerate(tree.docs[rel]["configurations"]) if predicate(c))


def test_the_committed_package_passes(committed: Tree) -> None:
    """Every rule of the build's check, none skipped (problems_after skips what is as committed)."""
    assert check_built(committed, BASE_URL) == []


def test_an_image_energy_that_disagrees_with_power_times_latency_is_refused(
    committed: Tree,
) -> None:
    def edit(tree: Tree) -> None:
        i, conf = conf_at(tree, SD, lambda c: c["batch_size"] == 4)
        conf["joules_per_image"] = round(conf["joules_per_image"] * 1.01, 4)
        edit.at = i

    found = problems_after(committed, edit)
    want = (
        f"data/{SD}: /configurations/{edit.at}/joules_per_image: expected "
        f"gpu_power_watts_total x batch_latency_s"
    )
    assert any(p.startswith(want) for p in found), found


def test_a_video_energy_that_disagrees_is_refused_and_so_is_its_wh(committed: Tree) -> None:
    def edit(tree: Tree) -> None:
        conf = tree.docs[WAN]["configurations"][0]
        conf["joules_per_video"] = conf["joules_per_video"] / 2
        conf["wh_per_video"] = conf["wh_per_video"] + 1

    found = problems_after(committed, edit)
    assert any(
        p.startswith(f"data/{WAN}: /configurations/0/joules_per_video: expected") for p in found
    ), found
    assert any(
        p.startswith(f"data/{WAN}: /configurations/0/wh_per_video: expected") for p in found
    ), found


def test_a_wrong_throughput_is_refused(committed: Tree) -> None:
    def edit(tree: Tree) -> None:
        conf = tree.docs[SD]["configurations"][0]
        conf["images_per_second"] = round(conf["images_per_second"] * 1.05, 3)

    found = problems_after(committed, edit)
    assert any(
        p.startswith(f"data/{SD}: /configurations/0/images_per_second: expected") for p in found
    ), found


@pytest.mark.parametrize(
    ("rel", "over"), [(SD, False), (WAN, True)], ids=["image-under", "video-over"]
)
def test_a_wrong_under_latency_limit_is_refused(committed: Tree, rel: str, over: bool) -> None:
    limit = committed.docs[rel]["latency_limit_s"]

    def edit(tree: Tree) -> None:
        i, conf = conf_at(tree, rel, lambda c: (c["batch_latency_s"] > limit + 1) is over)
        conf["under_latency_limit"] = not conf["under_latency_limit"]
        edit.at = i

    found = problems_after(committed, edit)
    want = f"data/{rel}: /configurations/{edit.at}/under_latency_limit: expected"
    assert any(p.startswith(want) for p in found), found


@pytest.mark.parametrize("rel", [SD, WAN], ids=["image", "video"])
def test_a_wrong_best_is_refused(committed: Tree, rel: str) -> None:
    def edit(tree: Tree) -> None:
        doc = tree.docs[rel]
        gpu, best = next(iter(doc["best"].items()))
        other = next(
            c
            for c in doc["configurations"]
            if c["gpu"] == gpu and c["under_latency_limit"] and c != best
        )
        doc["best"][gpu] = dict(other)
        edit.gpu = gpu

    found = problems_after(committed, edit)
    want = (
        f"data/{rel}: /best/{edit.gpu}: expected the lowest-energy configuration under the deadline"
    )
    assert any(p.startswith(want) for p in found), found


def test_a_best_over_the_limit_is_refused(committed: Tree) -> None:
    def edit(tree: Tree) -> None:
        doc = tree.docs[WAN]
        cheapest = min(doc["configurations"], key=lambda c: c["joules_per_video"])
        assert not cheapest["under_latency_limit"]  # the unlimited minimum is over 300 s
        doc["best"][cheapest["gpu"]] = dict(cheapest)
        edit.gpu = cheapest["gpu"]

    found = problems_after(committed, edit)
    assert any(p.startswith(f"data/{WAN}: /best/{edit.gpu}: expected") for p in found), found


def test_an_index_row_that_is_not_the_best_is_refused(committed: Tree) -> None:
    def edit(tree: Tree) -> None:
        tree.docs[f"{IMAGE}/index.json"]["rows"][0]["wh_per_thousand_images"] += 1

    found = problems_after(committed, edit)
    want = (
        f"data/{IMAGE}/index.json: /rows/0/wh_per_thousand_images: expected 93.87 as in "
        f"{IMAGE}/models/"
    )
    assert any(p.startswith(want) and p.endswith(", found 94.87") for p in found), found


def test_a_model_list_entry_that_disagrees_is_refused(committed: Tree) -> None:
    def edit(tree: Tree) -> None:
        tree.docs[f"{VIDEO}/models.json"]["models"][0]["gpus"] = ["H100"]

    found = problems_after(committed, edit)
    want = f'data/{VIDEO}/models.json: /models/0/gpus/0: expected "B200" as in {VIDEO}/models/'
    assert any(p.startswith(want) and p.endswith(', found "H100"') for p in found), found


@pytest.mark.parametrize("workload", [IMAGE, VIDEO])
def test_a_csv_cell_that_disagrees_with_the_documents_is_refused(
    committed: Tree, workload: str
) -> None:
    rel = f"{workload}/configurations.csv"

    def edit(tree: Tree) -> None:
        lines = tree.raw[rel].decode().splitlines(keepends=True)
        cells = lines[5].split(",")
        column = 15 if workload == IMAGE else 17  # joules_per_image, joules_per_video
        cells[column] = str(float(cells[column]) * 1.1)
        lines[5] = ",".join(cells)
        tree.raw[rel] = "".join(lines).encode()

    # validate's rule: the build makes the tables from the documents itself
    found = problems_after(committed, edit, consistency_problems)
    assert any(p.startswith(f"data/{rel}: line 6: expected") for p in found), found


def test_a_wrong_latency_rule_in_the_workload_list_is_refused(committed: Tree) -> None:
    def edit(tree: Tree) -> None:
        tree.docs["workloads.json"]["workloads"][6]["latency_limit"] = 600
        tree.docs["workloads.json"]["workloads"][0]["kind"] = "video"

    found = problems_after(committed, edit)
    assert "data/workloads.json: /workloads/6/latency_limit: expected 300, found 600" in found
    assert 'data/workloads.json: /workloads/0/kind: expected "llm", found "video"' in found


def test_a_name_with_a_format_character_is_refused_by_the_schema(committed: Tree) -> None:
    def edit(tree: Tree) -> None:
        tree.docs[SD]["name"] = "Stable Diffusion\u200b 3.5 Medium"

    found = problems_after(committed, edit)
    assert any(p.startswith(f"data/{SD}: /name:") for p in found), found


# a whole `builder validate`; test_a_video_energy_that_disagrees_... runs its checks
@pytest.mark.slow
def test_validate_refuses_a_planted_energy_in_a_package_copy(repo_copy) -> None:
    path = repo_copy / "data" / WAN
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["configurations"][3]["joules_per_video"] *= 1.5
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    outcome = run_cli("validate")
    assert outcome.exit_code != 0, outcome.output
    assert f"data/{WAN}: /configurations/3/joules_per_video: expected" in outcome.output


@pytest.mark.slow  # the fast tier runs drift on the committed package in test_validate.py
def test_drift_passes_on_the_committed_package(in_repo) -> None:
    outcome = run_cli("drift")
    assert outcome.exit_code == 0, outcome.output


def _task(kind: str) -> dict:
    return json.loads((REPO / "upstream" / f"text-to-{kind}.json").read_text(encoding="utf-8"))


def test_the_parser_accepts_every_letter_in_a_name() -> None:
    rows, warnings = parse_generation(
        (REPO / "upstream" / "text-to-image.json").read_bytes(), "x", WORK["image"]
    )
    assert len(rows) == 638
    assert warnings == []
    assert "PixArt-\u03a3" in {r.nickname for r in rows}


@pytest.mark.parametrize(
    ("kind", "change", "message"),
    [
        pytest.param(
            "image",
            {"energy_per_image_joules": 1.0},
            "B200, 1 GPU(s), batch_size 1): expected avg_power_watts x batch_latency_s / "
            "batch_size = 341.98237500339746, found 1.0",
            id="energy",
        ),
        pytest.param(
            "video",
            {"throughput_videos_per_sec": 9.0},
            "B200, 1 GPU(s), batch_size 1): expected batch_size / batch_latency_s = "
            "0.013509188750235488, found 9.0",
            id="throughput",
        ),
        pytest.param(
            "image",
            {"num_gpus": 3},
            "B200, 3 GPU(s), batch_size 1): expected ulysses_degree x ring_degree = 1, found 3",
            id="layout",
        ),
        pytest.param(
            "image",
            {"nickname": "SANA\u202e 1.5"},
            "/configurations/0/nickname",
            id="format-character",
        ),
        pytest.param("video", {"fps": float("nan")}, "/configurations/0/fps", id="nan"),
        pytest.param("image", {"batch_size": 0}, "/configurations/0/batch_size", id="zero-batch"),
    ],
)
def test_the_parser_refuses_an_unsound_row(kind: str, change: dict, message: str) -> None:
    doc = _task(kind)
    doc["configurations"][0].update(change)
    with pytest.raises(UpstreamError) as refused:
        parse_generation(json.dumps(doc).encode(), "x", WORK[kind])
    assert any(message in str(p) for p in refused.value.problems), refused.value.problems


@pytest.mark.slow  # two whole builds and a diff; test_diff.py's text diff is the diff smoke case
def test_diff_and_the_release_guard_see_a_generation_change(repo_copy, tmp_path) -> None:
    from builder.diff import diff_trees, load_docs

    doc = _task("video")
    for conf in doc["configurations"]:
        if conf["model_id"] == "Wan-AI/Wan2.1-T2V-14B-Diffusers":
            conf["avg_power_watts"] *= 1.3
            conf["energy_per_video_joules"] *= 1.3
    changed = tmp_path / "t2v.json"
    changed.write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "new" / "data"
    built = run_cli(
        "build", "--upstream", f"text-to-video={changed}", "--out", str(out), "--date", "2026-12-02"
    )
    assert built.exit_code == 0, built.output
    shown = run_cli("diff", "data", str(out))
    assert "best changed: text-to-video:wan-2-1-14b B200 wh_per_video: " in shown.output, (
        shown.output
    )
    large = diff_trees(load_docs("data"), load_docs(str(out))).large_changes(10.0)
    assert any(
        line.startswith("text-to-video:wan-2-1-14b H100 joules_per_video: ") for line in large
    ), large


METADATA_CASES = [  # (what metadata.toml says, what it says instead, the message)
    (
        'unit = "Wh per video"\nlatency_limit_s = 300',
        'unit = "Wh per 1,000 images"\nlatency_limit_s = 300',
        'metadata.toml: /workload/6/unit: expected const "Wh per video", found "Wh per 1,000 '
        'images"',
        "unit-of-another-kind",
    ),
    (
        "latency_limit_s = 30 ",
        "latency_limit_s = 0 ",
        "metadata.toml: /workload/5/latency_limit_s: expected a number of seconds > 0, the "
        "batch-latency limit",
        "limit-zero",
    ),
    (
        'task = "gpqa"\nkind = "llm"',
        'task = "gpqa"\nkind = "image"',
        "metadata.toml: /workload/1: expected required properties 'unit', 'latency_limit_s', "
        "'latency_limit_source', 'method', 'selection', 'used_for', found them missing",
        "llm-table-as-image",
    ),
    (
        'task = "gpqa"\nkind = "llm"\n',
        'task = "gpqa"\n',
        "metadata.toml: /workload/1: expected required property 'kind', found it missing",
        "kind-missing",
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "message"), [pytest.param(*case[:3], id=case[3]) for case in METADATA_CASES]
)
def test_a_wrong_generation_table_in_the_metadata_is_refused(
    repo_copy, old: str, new: str, message: str
) -> None:
    text = (repo_copy / "metadata.toml").read_text(encoding="utf-8")
    assert old in text
    (repo_copy / "metadata.toml").write_text(text.replace(old, new, 1), encoding="utf-8")
    outcome = run_cli("build", "--date", "2026-12-01")
    assert outcome.exit_code == 1, outcome.output
    assert message in outcome.output, outcome.output


def test_a_model_listed_twice_is_refused(committed: Tree) -> None:
    def edit(tree: Tree) -> None:
        models = tree.docs[f"{VIDEO}/models.json"]["models"]
        models.insert(1, copy.deepcopy(models[0]))

    found = problems_after(committed, edit)
    want = (
        f"data/{VIDEO}/models.json: /models/1/slug: expected each model once, found "
        f'"cogvideox-1-5-5b" again'
    )
    assert want in found, found


def test_a_layout_that_is_not_ulysses_times_ring_is_refused(committed: Tree) -> None:
    def edit(tree: Tree) -> None:
        tree.docs[SD]["configurations"][0]["num_gpus"] = 3

    found = problems_after(committed, edit)
    want = (
        f"data/{SD}: /configurations/0/num_gpus: expected ulysses_degree x ring_degree = 1, found 3"
    )
    assert want in found, found


def test_a_document_of_the_other_kind_is_refused(committed: Tree) -> None:
    def edit(tree: Tree) -> None:
        tree.docs[STRAY], tree.raw[STRAY] = copy.deepcopy(tree.docs[WAN]), tree.raw[WAN]

    found = problems_after(committed, edit)
    assert f'data/{STRAY}: /kind: expected "image", found "video"' in found, found
    # reported once, not as a header
    assert not any("/kind: expected" in p and " as in " in p for p in found), found


def test_a_latency_limit_that_differs_within_a_workload_is_refused(committed: Tree) -> None:
    def edit(tree: Tree) -> None:
        tree.docs[SD]["latency_limit_s"] = 60

    found = problems_after(committed, edit)
    assert (
        f"data/{SD}: /latency_limit_s: expected 30 as in data/{IMAGE}/index.json, found 60" in found
    ), found
