"""The pages that gather models and files list them in the order a reader expects."""

from __future__ import annotations

from builder.site import pages
from builder.site.catalog import Model, SiteWorkload
from builder.site.listing import Listing
from builder.site.targets import Summary


def model(slug: str, name: str, work: str = "w") -> Model:
    rel = f"workloads/{work}/models/{slug}.json"
    return Model(slug, name, rel, "api/v1/" + rel, f"workloads/{work}/models/{slug}/index.html")


def workload(wid: str, models: list[Model]) -> SiteWorkload:
    page = f"workloads/{wid}/index.html"
    return SiteWorkload(wid, wid, "", "llm", None, None, None, {}, "", page, models=models)


def summary(gpus: list[str]) -> Summary:
    return Summary(gpus, 3, "8B", "Dense", {}, (50, 100), {})


def test_models_by_name_in_lower_case_then_slug_first_listing_of_each_slug() -> None:
    names = {
        "b": "beta",
        "a": "Alpha",
        "e": "Éclair",
        "z": "zeta",
        "p": "PixArt-Σ",
        "p2": "pixart-\N{GREEK SMALL LETTER ALPHA}",  # small alpha sorts before small sigma
        "u": "Ünïcode",
    }
    first = [model(slug, name) for slug, name in names.items()]
    second = [model("a", "Alpha again", "v"), model("n", "new", "v")]
    works = [workload("w", first), workload("v", second)]
    found = [(m.slug, m.name) for m in pages.by_name(works)]
    assert found == [
        ("a", "Alpha"),  # the first listing of the slug, not the second workload's
        ("b", "beta"),
        ("n", "new"),
        ("p2", "pixart-\N{GREEK SMALL LETTER ALPHA}"),
        ("p", "PixArt-Σ"),
        ("z", "zeta"),
        ("e", "Éclair"),  # é sorts after every ASCII letter, and before ü
        ("u", "Ünïcode"),
    ]
    assert pages.listings(works)["a"] == [(works[0], first[1].page), (works[1], second[0].page)]


def test_gpu_pages_list_each_workloads_models_in_list_order() -> None:
    x, y, y2 = model("x", "X"), model("y", "Y"), model("y", "Y", "v")
    works = [workload("w", [x, y]), workload("v", [y2])]
    sums = {
        x.doc_rel: summary(["H100"]),
        y.doc_rel: summary(["H100", "B200", "H100"]),  # a GPU type named twice counts once
        y2.doc_rel: summary(["H100"]),
    }
    found = pages.measured(works, sums)
    assert list(found) == ["B200", "H100"]
    assert found["H100"] == [[x, y], [y2]]
    assert found["B200"] == [[y], []]


def test_files_in_path_order_and_each_folders_listing() -> None:
    made = Listing()
    for path in ["a[1]/x.json", "a1/y.json", "a*/z.json", "a[1]/sub/w.json", "top.html"]:
        assert made.add(path, len(path), "copied.json" if path == "top.html" else None)
    assert not made.add("a1/y.json", 0)  # one file a path
    assert [p for p, _ in made.files()] == [
        "a*/z.json",
        "a1/y.json",
        "a[1]/sub/w.json",
        "a[1]/x.json",
        "top.html",
    ]
    assert made.add("a[1]/index.html", 0)  # the folder's own listing page, not listed in it
    made.sizes["a[1]/index.html"] = 5
    assert list(made.in_folder("a[1]/")) == [
        ("a[1]/sub/", "a[1]/sub/index.html", None),
        ("a[1]/x.json", "a[1]/x.json", 11),
    ]
    assert dict(made.files())["a[1]/index.html"] == 5
    assert made.unlisted() == ["a*/", "a1/", "a[1]/sub/"]
    assert made.copy_of("top.html") == "copied.json"
    assert made.copy_of("a1/y.json") is None
