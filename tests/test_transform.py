import json
import tomllib
from pathlib import Path

import pytest

from builder.configurations import keyed_rows, llm_configuration
from builder.csvview import configurations_csv, response_energies
from builder.metadata import llm_workloads
from builder.transform import build_documents
from builder.upstream import parse_upstream
from builder.validate.csvrows import rows as csv_rows
from builder.validate.csvrows import stated_energy
from factory import row, upstream

REPO = Path(__file__).resolve().parent.parent
META = tomllib.loads((REPO / "metadata.toml").read_text())
CHAT = llm_workloads(META)[0]  # the root workload, whose task the factory's rows are of


def rows(*raw: dict) -> list:
    return parse_upstream(json.dumps(upstream(list(raw))).encode(), "test.json", "lm-arena-chat")[0]


def test_rounding_of_every_field() -> None:
    raw = row(
        avg_batch_size=63.45678,
        energy_per_token_joules=600.5
        / 4864.04,  # avg_power_watts / output_throughput_tokens_per_sec
        energy_per_request_joules=600.5 / 4864.04 * 512.51,  # x avg_output_len
        median_itl_ms=20.04999,
        p90_itl_ms=30.15,
        p95_itl_ms=35.251,
        p99_itl_ms=50.96,
        output_throughput_tokens_per_sec=4864.04,
        avg_power_watts=600.5,
        avg_output_len=512.51,
        total_params_billions=7,
    )
    conf = llm_configuration(rows(raw)[0], "test-model-7b", 500)
    assert conf == {
        "gpu": "H100",
        "num_gpus": 1,
        "tensor_parallel": 1,
        "data_parallel": 1,
        "expert_parallel": 1,
        "precision": "BF16",
        "max_num_seqs": 64,
        "avg_requests_in_flight": 63.5,
        "wh_per_million_output_tokens": 34.29,
        "joules_per_output_token": 0.123457,
        "median_itl_ms": 20.0,
        "p90_itl_ms": 30.1,  # 30.15 is 30.14999... as a float
        "p99_itl_ms": 51.0,
        "tokens_per_second": 4864.0,
        "gpu_power_watts_total": 600,  # Python's round: half to even
        "avg_output_tokens": 513,
        "under_itl_deadline": True,
        "avg_running_batch": 63.5,
        "p95_itl_ms": 35.3,
        "row_id": "test-model-7b/H100/1/64",
        "repeat": 1,  # until the model's configurations are numbered
    }
    assert isinstance(conf["gpu_power_watts_total"], int)
    assert isinstance(conf["avg_output_tokens"], int)


# nvidia/NVIDIA-Nemotron-Nano-9B-v2 on one H100 at max_num_seqs 256, as in
# upstream/lm-arena-chat.json
NEMOTRON_H100_ROW = {
    "activated_params_billions": 9.0,
    "architecture": "Mamba-Transformer Hybrid",
    "avg_batch_size": 255.34883720930233,
    "avg_output_len": 510.1044921875,
    "avg_power_watts": 692.9838955224471,
    "data_parallel": 1,
    "energy_per_request_joules": 79.17199580690063,
    "energy_per_token_joules": 0.1552074075399423,
    "expert_parallel": 1,
    "gpu_model": "H100",
    "max_num_seqs": 256,
    "median_itl_ms": 43.37812401354313,
    "model_id": "nvidia/NVIDIA-Nemotron-Nano-9B-v2",
    "nickname": "NVIDIA Nemotron Nano 9B V2",
    "num_gpus": 1,
    "output_throughput_tokens_per_sec": 4464.889314925959,
    "p90_itl_ms": 86.51775121688843,
    "p95_itl_ms": 97.61630296707153,
    "p99_itl_ms": 242.5210145488381,
    "tensor_parallel": 1,
    "total_params_billions": 9.0,
    "weight_precision": "bfloat16",
}


def test_a_real_row_becomes_the_published_configuration() -> None:
    """Expected: best["H100"] of tests/reference/v1/models/nvidia-nemotron-nano-9b-v2.json,
    copied."""
    published = {
        "gpu": "H100",
        "num_gpus": 1,
        "tensor_parallel": 1,
        "data_parallel": 1,
        "expert_parallel": 1,
        "precision": "BF16",
        "max_num_seqs": 256,
        "avg_requests_in_flight": 255.3,
        "wh_per_million_output_tokens": 43.11,
        "joules_per_output_token": 0.1552074,
        "median_itl_ms": 43.4,
        "p90_itl_ms": 86.5,
        "p99_itl_ms": 242.5,
        "tokens_per_second": 4464.9,
        "gpu_power_watts_total": 693,
        "avg_output_tokens": 510,
        "under_itl_deadline": True,
        "avg_running_batch": 255.3,
        "p95_itl_ms": 97.6,
        "row_id": "nvidia-nemotron-nano-9b-v2/H100/1/256",
        "repeat": 1,
    }
    conf = llm_configuration(rows(NEMOTRON_H100_ROW)[0], "nvidia-nemotron-nano-9b-v2", 500)
    assert conf == published
    assert list(conf) == list(published)


def test_rounding_matches_every_published_value() -> None:
    data = (REPO / "upstream" / "lm-arena-chat.json").read_bytes()
    docs = build_documents(
        parse_upstream(data, "pin", "lm-arena-chat")[0], META, "2026-09-27", CHAT
    )
    published = json.loads((REPO / "data" / "models" / "qwen-3-14b.json").read_text())
    assert docs["models/qwen-3-14b.json"]["configurations"] == published["configurations"]


def test_fp8_precision_and_params_as_floats() -> None:
    (r,) = rows(row(weight_precision="fp8", total_params_billions=8, activated_params_billions=8))
    assert llm_configuration(r, "x", 500)["precision"] == "FP8"
    doc = build_documents([r], META, "2026-01-01", CHAT)["models/test-model-7b.json"]
    assert doc["params_b"] == 8.0
    assert isinstance(doc["params_b"], float)


def test_mxfp4_precision_is_published_as_mxfp4() -> None:
    (r,) = rows(row(weight_precision="mxfp4"))
    assert llm_configuration(r, "x", 500)["precision"] == "MXFP4"


def test_repeat_numbers_real_duplicate_runs() -> None:
    data = (REPO / "upstream" / "lm-arena-chat.json").read_bytes()
    docs = build_documents(
        parse_upstream(data, "pin", "lm-arena-chat")[0], META, "2026-09-27", CHAT
    )
    confs = docs["models/qwen-3-30b-a3b-instruct.json"]["configurations"]
    repeated = sorted((c["row_id"], c["repeat"]) for c in confs if c["repeat"] > 1)
    assert repeated == [
        ("qwen-3-30b-a3b-instruct/H100/2/256", 2),
        ("qwen-3-30b-a3b-instruct/H100/2/512", 2),
    ]
    keys = [(c["row_id"], c["repeat"]) for c in confs]
    assert len(keys) == len(set(keys))


def test_repeats_keep_upstream_order_and_configurations_sort() -> None:
    raw = [
        row(gpu_model="H100", max_num_seqs=128, energy_per_token_joules=0.3),
        row(gpu_model="B200", max_num_seqs=64),
        row(gpu_model="H100", max_num_seqs=64, energy_per_token_joules=0.25),
        row(gpu_model="H100", max_num_seqs=64, energy_per_token_joules=0.21),
    ]
    confs = build_documents(rows(*raw), META, "2026-01-01", CHAT)["models/test-model-7b.json"][
        "configurations"
    ]
    assert [
        (c["gpu"], c["max_num_seqs"], c["repeat"], c["joules_per_output_token"]) for c in confs
    ] == [
        ("B200", 64, 1, 0.2),
        ("H100", 64, 1, 0.25),
        ("H100", 64, 2, 0.21),
        ("H100", 128, 1, 0.3),
    ]


def test_gpu_with_nothing_under_the_deadline_gets_no_best_and_no_index_row() -> None:
    raw = [
        row(gpu_model="H100", median_itl_ms=20.0, energy_per_token_joules=0.3),
        row(gpu_model="H100", max_num_seqs=128, median_itl_ms=20.0, energy_per_token_joules=0.2),
        row(gpu_model="B200", median_itl_ms=500.04, p90_itl_ms=600, p95_itl_ms=700, p99_itl_ms=800),
    ]
    docs = build_documents(rows(*raw), META, "2026-01-01", CHAT)
    model = docs["models/test-model-7b.json"]
    assert model["gpus"] == ["B200", "H100"]
    assert list(model["best"]) == ["H100"]
    assert model["best"]["H100"]["max_num_seqs"] == 128
    # 500.04 rounds to 500.0 but the deadline applies to the unrounded median
    assert model["configurations"][0]["median_itl_ms"] == 500.0
    assert model["configurations"][0]["under_itl_deadline"] is False
    assert [(r["slug"], r["gpu"]) for r in docs["index.json"]["rows"]] == [
        ("test-model-7b", "H100")
    ]


def test_best_takes_the_first_on_a_tie() -> None:
    raw = [row(max_num_seqs=64), row(max_num_seqs=128)]
    model = build_documents(rows(*raw), META, "2026-01-01", CHAT)["models/test-model-7b.json"]
    assert model["best"]["H100"]["max_num_seqs"] == 64


def test_model_without_any_best_has_no_index_rows_but_keeps_its_document() -> None:
    slow = {"median_itl_ms": 900.0, "p90_itl_ms": 901.0, "p95_itl_ms": 902.0, "p99_itl_ms": 903.0}
    docs = build_documents(rows(row(**slow)), META, "2026-01-01", CHAT)
    assert docs["models/test-model-7b.json"]["best"] == {}
    assert docs["index.json"]["rows"] == []
    assert [m["slug"] for m in docs["models.json"]["models"]] == ["test-model-7b"]


def test_key_orders_follow_the_spec() -> None:
    docs = build_documents(rows(row()), META, "2026-01-01", CHAT)
    assert list(docs["models/test-model-7b.json"])[:9] == [
        "version",
        "updated",
        "data_version",
        "unit",
        "itl_deadline_ms",
        "source",
        "caveat",
        "boundary",
        "slug",
    ]
    assert list(docs["index.json"])[-2:] == ["boundary", "rows"]
    assert list(docs["index.json"]["rows"][0])[:3] == ["model", "slug", "model_id"]
    assert list(docs["models.json"]) == ["version", "updated", "data_version", "source", "models"]


@pytest.mark.parametrize("date", ["2026-09-27", "2031-02-03"])
def test_dates_are_the_build_date(date: str) -> None:
    docs = build_documents(rows(row()), META, date, CHAT)
    assert {(d["updated"], d["data_version"]) for d in docs.values()} == {(date, date)}


def test_the_root_csv_rebuilt_from_its_own_energies_is_the_csv_written() -> None:
    """validate rebuilds the root CSV from the documents and the energies it reads back from the
    CSV; build leaves that comparison to it because the result is what build wrote, an integral
    upstream energy (1000, not 1000.0) included."""
    raw = [row(energy_per_token_joules=2.0, avg_output_len=500.0, energy_per_request_joules=1000)]
    found = rows(*raw, row(model_id="test-org/Other-7B", nickname="Other 7B"))
    assert type(found[0].energy_per_request_joules) is int  # as strict JSON reads 1000
    docs = build_documents(found, META, "2026-12-06", CHAT)
    keyed = {work.task: {} for work in llm_workloads(META)} | {CHAT.task: keyed_rows(found)}
    written = configurations_csv(docs, response_energies(keyed, META))
    stated = [stated_energy(line, cells) for line, cells in csv_rows(written)]
    read_back = {key: energy for _, key, energy in filter(None, stated)}
    assert len(read_back) == 2
    assert configurations_csv(docs, read_back) == written
