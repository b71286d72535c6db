"""The site's scratch store hands later pages what earlier ones left, in the order the pages show
it."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from builder.errors import OutputError
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
    pick = {
        "gpu": gpus[0],
        "num_gpus": 1,
        "max_num_seqs": 8,
        "median_itl_ms": 20.25,
        "energy": energy,
    }
    return Summary(
        gpus,
        3,
        "8B",
        "Dense",
        dict.fromkeys(gpus, pick),
        (50, 100),
        {g: {"50": None, "100": pick} for g in gpus},
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
        # capital sigma sorts before alpha, small sigma after
        "p2": "pixart-\N{GREEK SMALL LETTER ALPHA}",
        "u": "Ünïcode",
    }
    first = [model(slug, name) for slug, name in names.items()]
    second = [model("a", "Alpha again", "v"), model("n", "new", "v")]
    store.add_models(0, first)
    store.add_models(1, second)
    for m in first + second:
        store.add_summary(m.doc_rel, summary(["B200"]))
    found = [(m.slug, m.name) for m, _ in store.by_name()]
    expected = sorted(
        {m.slug: m for m in reversed(first + second)}.values(),
        key=lambda m: (m.name.lower(), m.slug),
    )
    assert found == [(m.slug, m.name) for m in expected]
    assert ("a", "Alpha") in found  # the first listing of the slug, not the second workload's
    assert store.slug_count() == 8
    assert store.listings("a") == [(0, first[1].page), (1, second[0].page)]
    assert list(store.models(1)) == second


def test_gpu_pages_read_each_workload_in_list_order(store: Store) -> None:
    store.add_models(0, [model("x", "X"), model("y", "Y")])
    store.add_models(1, [model("y", "Y", "v")])
    for rel, gpus in {
        "workloads/w/models/x.json": ["H100"],
        "workloads/w/models/y.json": ["B200", "H100"],
        "workloads/v/models/y.json": ["H100"],
    }.items():
        store.add_summary(rel, summary(gpus))
    assert store.gpus() == [("B200", 1), ("H100", 2)]  # models by slug
    assert store.on_gpu("H100") == [(0, 2), (1, 1)]
    assert [m.slug for m, _ in store.measured("H100", 0)] == ["x", "y"]
    assert [s.gpus for _, s in store.measured("B200", 0)] == [["B200", "H100"]]


def test_files_in_path_order_and_each_folders_listing(store: Store) -> None:
    for path in (
        "a[1]/x.json",
        "a1/y.json",
        "a*/z.json",
        "a[1]/sub/w.json",
        "top.html",
        "a[1]/b.json",
    ):
        assert store.add_file(path, len(path), "copied.json" if path == "top.html" else None)
    assert not store.add_file("a1/y.json", 0)  # one file a path
    assert [p for p, _ in store.files()] == sorted(
        ["a[1]/x.json", "a1/y.json", "a*/z.json", "a[1]/sub/w.json", "top.html", "a[1]/b.json"]
    )
    assert store.add_file("a[1]/index.html", 0)  # the folder's own listing page, not listed in it
    store.set_size("a[1]/index.html", 5)
    assert list(store.in_folder("a[1]/")) == [
        ("a[1]/sub/", "a[1]/sub/index.html", None),
        ("a[1]/b.json", "a[1]/b.json", 11),
        ("a[1]/x.json", "a[1]/x.json", 11),
    ]
    assert dict(store.files())["a[1]/index.html"] == 5
    assert store.unlisted() == ["a*/", "a1/", "a[1]/sub/"]
    assert store.copy_of("top.html") == "copied.json"
    assert store.copy_of("a1/y.json") is None
    assert store.has_file("top.html")
    assert not store.has_file("a1/")


SPILL = """
import json, os, sys
from pathlib import Path
from builder.site.store import Store
with Store() as store:
    store.add_parts("index.json", (("", json.dumps("x" * 1000)) for _ in range(5000)))  # 5 MB
    links = [os.readlink(fd) for fd in Path("/proc/self/fd").iterdir() if fd.is_symlink()]
    rows = len(store.parts("index.json"))
    print(json.dumps({"links": links, "left": os.listdir(sys.argv[1]), "rows": rows}))
"""


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads the open files from /proc")
def test_the_store_spills_past_its_cache_into_a_deleted_file_in_tmpdir(tmp_path) -> None:
    """What SQLite cannot keep in its 2 MB of cache goes to a file in TMPDIR that no one else can
    see or leave behind. SQLite reads TMPDIR once a process: a process of its own."""
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    env.pop("SQLITE_TMPDIR", None)
    run = subprocess.run(
        [sys.executable, "-c", SPILL, str(tmp_path)], env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert any(
        link.startswith(f"{tmp_path}/") and link.endswith(" (deleted)") for link in seen["links"]
    ), seen
    assert seen["left"] == []
    assert seen["rows"] == 5000
    assert list(tmp_path.iterdir()) == []


class Failing:
    """A connection whose every statement fails as SQLite's do on a full disk."""

    def execute(self, *_args: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    executemany = execute

    def close(self) -> None:
        pass


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.add_parts("r", [("", "1")]),
        lambda s: list(s.parts("r")),
        lambda s: len(s.parts("r")),
        lambda s: s.part("r", "a"),
        lambda s: s.add_models(0, [model("a", "A")]),
        lambda s: list(s.models(0)),
        lambda s: s.listings("a"),
        lambda s: s.slug_count(),
        lambda s: list(s.by_name()),
        lambda s: s.add_summary("m.json", summary(["B200"])),
        lambda s: s.summary("m.json"),
        lambda s: s.gpus(),
        lambda s: s.on_gpu("B200"),
        lambda s: list(s.measured("B200", 0)),
        lambda s: s.add_file("a/b", 1),
        lambda s: s.set_size("a/b", 1),
        lambda s: s.copy_of("a/b"),
        lambda s: s.has_file("a/b"),
        lambda s: list(s.files()),
        lambda s: s.unlisted(),
        lambda s: list(s.in_folder("a/")),
    ],
)
def test_every_call_on_a_failing_store_is_one_line_naming_tmpdir(
    store: Store, monkeypatch, call
) -> None:
    monkeypatch.setenv("TMPDIR", "/tmp")
    monkeypatch.delenv("SQLITE_TMPDIR", raising=False)
    store.db = Failing()  # type: ignore[assignment]
    with pytest.raises(OutputError) as caught:
        call(store)
    assert str(caught.value) == (
        "TMPDIR (/tmp): expected a writable folder with free space for the site's temporary "
        "database, "
        "found database or disk is full; set TMPDIR to another folder"
    )


def test_a_value_sqlite_cannot_hold_is_a_type_error_the_page_names(store: Store) -> None:
    with pytest.raises(TypeError, match="expected text or a number"):
        store.part("frontier.json", ["a list where a slug belongs"])  # type: ignore[arg-type]


def test_a_documents_rows_are_read_again_each_time_they_are_walked(store: Store) -> None:
    rows = [{"gpu": "B200", "e": i} for i in range(5)]
    store.add_parts("index.json", [("", json.dumps(row)) for row in rows])
    found = store.parts("index.json")
    assert len(found) == 5
    assert found[:2] == rows[:2]
    assert list(found) == list(found) == rows
    assert not store.parts("other.json")
