"""The site's scratch store hands later pages what earlier ones left, in the order the pages show it."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator

import pytest

from builder.site.catalog import Model
from builder.site.store import Store
from builder.site.targets import Summary


@pytest.fixture
def store() -> Iterator[Store]:
    with Store() as made:
        yield made


def model(slug: str, name: str, work: str = "w") -> Model:
    rel = f"workloads/{work}/models/{slug}.json"
    return Model(slug, name, rel, "api/v1/" + rel, f"workloads/{work}/models/{slug}/index.html")


def summary(gpus: list[str], energy: float = 1.5) -> Summary:
    pick = {"gpu": gpus[0], "num_gpus": 1, "max_num_seqs": 8, "median_itl_ms": 20.25, "energy": energy}
    return Summary(
        gpus, 3, "8B", "Dense", dict.fromkeys(gpus, pick), (50, 100), {g: {"50": None, "100": pick} for g in gpus}
    )


def test_a_summary_comes_back_equal(store: Store) -> None:
    made = summary(["B200", "H100"], 0.1 + 0.2)  # a float that only its repr carries exactly
    store.add_summary("m.json", made)
    store.add_summary("m.json", summary(["A100"]))  # the first made of a document is kept
    assert store.summary("m.json") == made
    with pytest.raises(KeyError):
        store.summary("other.json")


def test_models_by_name_as_python_orders_them_first_listing_of_each_slug(store: Store) -> None:
    names = {
        "b": "beta",
        "a": "Alpha",
        "e": "Éclair",
        "z": "zeta",
        "p": "PixArt-Σ",
        "p2": "pixart-\N{GREEK SMALL LETTER ALPHA}",  # capital sigma sorts before alpha, small sigma after
        "u": "Ünïcode",
    }
    first = [model(slug, name) for slug, name in names.items()]
    second = [model("a", "Alpha again", "v"), model("n", "new", "v")]
    store.add_models(0, first)
    store.add_models(1, second)
    for m in first + second:
        store.add_summary(m.doc_rel, summary(["B200"]))
    found = [(m.slug, m.name) for m, _ in store.by_name()]
    expected = sorted({m.slug: m for m in reversed(first + second)}.values(), key=lambda m: (m.name.lower(), m.slug))
    assert found == [(m.slug, m.name) for m in expected]
    assert ("a", "Alpha") in found  # the first listing of the slug, not the second workload's
    assert store.slugs() == 8
    assert store.listings("a") == [(0, first[1].page), (1, second[0].page)]
    assert list(store.models(1)) == second


def test_gpu_pages_read_each_workload_in_list_order(store: Store) -> None:
    store.add_models(0, [model("x", "X"), model("y", "Y")])
    store.add_models(1, [model("y", "Y", "v")])
    for rel, gpus in {"workloads/w/models/x.json": ["H100"], "workloads/w/models/y.json": ["B200", "H100"],
                      "workloads/v/models/y.json": ["H100"]}.items():  # fmt: skip
        store.add_summary(rel, summary(gpus))
    assert store.gpus() == [("B200", 1), ("H100", 2)]  # models by slug
    assert store.on_gpu("H100") == [(0, 2), (1, 1)]
    assert [m.slug for m, _ in store.measured("H100", 0)] == ["x", "y"]
    assert [s.gpus for _, s in store.measured("B200", 0)] == [["B200", "H100"]]


def test_files_under_a_prefix_and_in_a_folder(store: Store) -> None:
    for path in ("a[1]/x.json", "a1/y.json", "a*/z.json", "a[1]/sub/w.json", "top.html", "a[1]/b.json"):
        assert store.add_file(path, len(path))
    assert not store.add_file("a1/y.json", 0)  # one file a path
    assert [p for p, _ in store.files("a[1]/")] == ["a[1]/b.json", "a[1]/sub/w.json", "a[1]/x.json"]
    assert [p for p, _ in store.files("a*")] == ["a*/z.json"]
    assert list(store.in_folder("a[1]/")) == [
        ("a[1]/sub/", "a[1]/sub/index.html", None),
        ("a[1]/b.json", "a[1]/b.json", 11),
        ("a[1]/x.json", "a[1]/x.json", 11),
    ]
    assert store.unlisted() == ["a*/", "a1/", "a[1]/", "a[1]/sub/"]
    store.add_file("a1/index.html", 1)
    assert store.unlisted() == ["a*/", "a[1]/", "a[1]/sub/"]
    assert store.has_file("top.html")
    assert not store.has_file("a1/")


def test_the_store_is_one_file_in_tmpdir_removed_on_close(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with Store() as store:
        store.add_file("index.html", 1)
        assert [p.name for p in tmp_path.glob("builder-site-*/*")] == ["store.sqlite"]
    assert list(tmp_path.iterdir()) == []


def test_a_documents_rows_are_read_again_each_time_they_are_walked(store: Store) -> None:
    rows = [{"gpu": "B200", "e": i} for i in range(5)]
    store.add_parts("index.json", [("", json.dumps(row)) for row in rows])
    found = store.rows("index.json")
    assert len(found) == 5
    assert found[:2] == rows[:2]
    assert list(found) == list(found) == rows
    assert not store.rows("other.json")
