"""builder site answers the questions people bring: which GPU at my latency, where a figure is
from, what a GPU runs."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from builder.errors import InputError
from builder.fields import RESPONSE_ENERGY
from builder.layout import MAX_GPUS_PER_TASK
from builder.site import catalog, charts, pages, targets, words
from builder.site.build import build_site
from builder.site.load import INDEX_SHOWN, load_package, parts
from builder.site.plan import plan_site
from sitehelp import BASE, REPO, bare, copy_package, page_link_target

TIMES = "\N{MULTIPLICATION SIGN}"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pages") / "site"
    build_site(out, REPO)
    return out


def written(files) -> dict:
    """The site's files by path, each page's parts joined as the writer joins them, in turn."""
    return {
        path: data if isinstance(data, bytes | bytearray | Path) else b"".join(data)
        for path, data in files
    }


def html(site: Path, path: str) -> str:
    return (site / path / "index.html").read_text(encoding="utf-8")


def target_cell(page: str, target: str, gpu: str) -> str:
    """A cell of a model page's latency target table, its links cut to their text."""
    row = bare(page).split(f'<tr id="target-{target}">', 1)[1].split("</tr>", 1)[0]
    return row.split(f'<td data-gpu="{gpu}">', 1)[1].split("</td>", 1)[0]


@pytest.mark.slow
def test_llama_3_1_70b_on_b200_under_100_ms_is_75_22(site) -> None:
    page = html(site, "models/llama-3-1-70b-instruct")
    cell = target_cell(page, "100", "B200")
    assert "<strong>75.22</strong>" in cell
    assert f"2 {TIMES} B200, 512 seqs, 63.7 ms" in cell
    assert "<strong>116.95</strong>" in target_cell(page, "100", "H100")
    assert "Llama 3.1 70B Instruct — Text Conversation · LeadGreen</title>" in page
    # read from it, not computed
    assert 'the <a href="../../api/v1/frontier.json">frontier document</a>' in page


@pytest.mark.slow
def test_the_video_chat_page_of_qwen_3_vl_235b_names_its_own_source(site) -> None:
    page = html(site, "workloads/video-chat/models/qwen-3-vl-235b-a22b-instruct")
    source = page.split('<section class="source"', 1)[1]
    assert ">video-chat.json</a>" in source
    assert "<dd><code>video-chat</code></dd>" in source
    assert "0cd52dab897c5d91a45f4d413038f3b8b4251b0f" in source
    assert "lm-arena-chat" not in page
    assert "<h1>Qwen 3 VL 235B A22B Instruct <span" in page
    assert "in Video Chat</span></h1>" in page
    # same model
    assert (
        '<a href="../../../image-chat/models/qwen-3-vl-235b-a22b-instruct/">Image Chat</a>' in page
    )
    image = html(site, "workloads/image-chat/models/qwen-3-vl-235b-a22b-instruct")
    assert ">image-chat.json</a>" in image.split('<section class="source"', 1)[1]


@pytest.mark.slow
def test_the_b200_page_lists_every_model_measured_on_b200(site) -> None:
    page = html(site, "gpus/b200")
    lists = [
        REPO / "data" / "models.json",
        *sorted((REPO / "data" / "workloads").glob("*/models.json")),
    ]
    assert len(lists) == 7  # five LLM workloads, text to image and text to video
    expected = 0
    for path in lists:
        workload = "text-conversation" if path.parent.name == "data" else path.parent.name
        section = page.split(f'<section id="workload-{workload}">', 1)[1].split("</section>", 1)[0]
        for entry in json.loads(path.read_bytes())["models"]:
            assert (f'data-slug="{entry["slug"]}"' in section) == ("B200" in entry["gpus"]), (
                workload,
                entry["slug"],
            )
            expected += "B200" in entry["gpus"]
    assert page.count("<tr data-slug=") == expected > 50


@pytest.mark.slow
def test_the_workload_page_answers_at_50_100_and_200_ms_ranked_by_energy_per_response(site) -> None:
    page = html(site, "workloads/text-conversation")
    table = bare(
        page.split('<table class="compare" id="compare-table">', 1)[1].split("</table>", 1)[0]
    )
    assert (
        '<th scope="col">Under 50 ms</th><th scope="col">Under 100 ms</th><th scope="col">Under '
        "200 ms</th>" in table
    )
    rows = table.split("<tbody>", 1)[1].split("<tr ")[1:]
    assert len(rows) == len(json.loads((REPO / "data" / "models.json").read_bytes())["models"])
    at_100 = [row.split("<td>")[2] for row in rows]
    joules = [
        float(m.group(1).replace(",", ""))
        if (m := re.search(r"([\d,.]+) J per response", c))
        else math.inf
        for c in at_100
    ]
    assert joules == sorted(joules)
    assert 'Ranked by <strong id="rank-shown">energy per response under 100 ms</strong>' in page
    qwen = next(c for r, c in zip(rows, at_100, strict=True) if 'data-slug="qwen-3-32b"' in r)
    # Wh per million output tokens, the lowest of B200 and H100
    assert "<strong>39.05</strong>" in qwen
    assert "89.26 J per response, 24.80 Wh per 1,000" in qwen
    assert f"1 {TIMES} B200, 384 seqs, 50.2 ms" in qwen
    # the plain description from workloads.json
    assert "Chatbot conversations on LM Arena prompts" in page


@pytest.mark.slow
def test_a_listed_frontier_document_is_what_the_model_page_shows(tmp_path: Path) -> None:
    """A frontier.json the workload list names wins over the computation (here it names another
    row, to tell)."""
    root = copy_package(tmp_path / "pkg")
    doc = json.loads((root / "data" / "models" / "llama-3-1-70b-instruct.json").read_bytes())
    other = next(
        c for c in doc["configurations"] if c["gpu"] == "B200" and c["max_num_seqs"] == 1024
    )
    entry = {k: other[k] for k in ("row_id", "repeat", "num_gpus", "max_num_seqs", "median_itl_ms")}
    entry["wh_per_million_output_tokens"] = other["wh_per_million_output_tokens"]
    frontier = {
        "workload": "text-conversation",
        "data_version": "2026-11-29",
        "itl_targets_ms": [50, 100, 200],
        "models": [
            {
                "slug": doc["slug"],
                "gpus": {
                    "B200": {
                        "frontier": [entry],
                        "best_under": {"50": None, "100": entry, "200": entry},
                    }
                },
            }
        ],
    }
    workloads = json.loads((root / "data" / "workloads.json").read_bytes())
    workloads["workloads"][0]["frontier_url"] = f"{BASE}/api/v1/frontier.json"
    raw = json.dumps(frontier).encode()
    (root / "data" / "frontier.json").write_bytes(raw)
    (root / "data" / "workloads.json").write_text(json.dumps(workloads))
    files = written(plan_site(load_package(root)))
    page = files["models/llama-3-1-70b-instruct/index.html"].decode("utf-8")
    assert f"<strong>{other['wh_per_million_output_tokens']:,.2f}</strong>" in target_cell(
        page, "100", "B200"
    )
    assert "none this fast" in target_cell(page, "50", "B200")
    assert 'the <a href="../../api/v1/frontier.json">frontier document</a>' in page
    # not in the frontier: computed
    assert "<strong>116.95</strong>" in target_cell(page, "100", "H100")
    assert files["api/v1/frontier.json"].read_bytes() == raw


@pytest.mark.slow
def test_site_files_404_robots_sitemap_and_a_description_on_every_page(site) -> None:
    pages = sorted(site.rglob("*.html"))
    for path in pages:
        text = path.read_text(encoding="utf-8")
        assert re.search(r'<meta name="description" content="[^"]{20,}">', text), path
        assert text.count("LeadGreen</title>") + text.count("<title>LeadGreen:") == 1, path
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    assert sitemap.count("<loc>") == len(pages) - 1  # all but 404.html
    assert f"<loc>{BASE}/models/llama-3-1-70b-instruct/</loc>" in sitemap
    assert (
        site / "robots.txt"
    ).read_text() == f"User-agent: *\nAllow: /\nSitemap: {BASE}/sitemap.xml\n"
    missing = (site / "404.html").read_text(encoding="utf-8")
    assert 'href="/style.css"' in missing
    assert 'href="/models/"' in missing
    listing = html(site, "api/v1")
    assert '<a href="index.json">index.json</a> <span class="unit">' in listing
    assert '<a href="workloads/">workloads/</a>' in listing


@pytest.mark.slow
def test_glossary_explains_every_abbreviation_in_a_heading(site) -> None:
    glossary = html(site, "glossary")
    page = html(site, "models/llama-3-1-70b-instruct")
    for abbr in re.findall(r"<abbr title=\"[^\"]+\">([^<]+)</abbr>", page):
        assert all(word in glossary for word in abbr.split()), abbr
    for term in ("TP", "DP", "EP"):
        assert re.search(f'<abbr title="[^"]+">{term}</abbr>', page), term
    assert "itl_deadline_ms" not in page
    for path in ("", "workloads/text-to-image", "models/llama-3-1-70b-instruct", "glossary"):
        # never shown
        shown = re.sub(r"<script[^>]*>.*?</script>", " ", html(site, path), flags=re.S)
        text = re.sub(r"<[^>]*>", " ", shown)  # what a visitor reads, without tags and attributes
        assert not re.findall(r"\b[a-z]+(?:_[a-z0-9]+)+\b", text), path
    assert 'GPU power <span class="unit">(W, all GPUs)</span>' in page
    assert "<td>0.2708</td>" in bare(page)  # J per output token, 4 significant digits


def _contrast(colour: str) -> float:
    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(int(colour[i : i + 2], 16) / 255) for i in (1, 3, 5))
    return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05)


def test_chart_colours_have_3_to_1_contrast_on_white_and_markers_differ() -> None:
    assert min(_contrast(c) for c in charts.COLOURS) >= 3.0
    assert len(set(charts.MARKERS)) == len(charts.MARKERS)


def test_chart_text_is_never_parsed_as_math() -> None:
    doc = json.loads((REPO / "data" / "models" / "qwen-3-8b.json").read_bytes())
    doc["name"] = "Costs $5 and $x^2$"
    svg = charts.energy_latency(doc, ["B200", "H100"]).svg.decode("utf-8")
    assert "Costs $5 and $x^2$" in svg


def test_the_dot_chart_of_a_large_workload_draws_its_first_40_rows_and_says_so() -> None:
    index = json.loads((REPO / "data" / "index.json").read_bytes())
    rows = [{**row, "model": f"Model {i:03d}"} for i, row in enumerate(index["rows"] * 2)]
    chart = charts.energy_by_model({**index, "rows": rows}, ["B200", "H100"], "Big")
    svg = chart.svg.decode("utf-8")
    assert ">Model 039</text>" in svg
    assert ">Model 040</text>" not in svg
    assert (
        "for the lowest-energy configuration of 40 model and GPU pairs (the lowest of 64), lowest "
        "first" in chart.alt
    )
    assert chart.alt.endswith("The table below lists all 64.")


def test_a_model_chart_has_a_series_per_gpu_setup_in_batch_order() -> None:
    doc = json.loads((REPO / "data" / "models" / "llama-3-1-70b-instruct.json").read_bytes())
    found = charts.series(doc["configurations"], ["B200", "H100"])
    assert [(gpu, n) for gpu, n, _, _ in found] == [("B200", 2), ("H100", 4)]
    for _, _, line, _ in found:
        assert [r["max_num_seqs"] for r in line] == sorted({r["max_num_seqs"] for r in line})
    svg = charts.energy_latency(doc, ["B200", "H100"]).svg.decode("utf-8")
    assert f"2 {TIMES} B200" in svg
    assert f"4 {TIMES} H100" in svg
    assert "deadline" not in svg


def test_a_generation_model_chart_joins_the_lowest_energy_layout_of_each_batch_size() -> None:
    """Four configurations of one setup: the line takes the lower of the two at batch 1, the
    other stays a dot."""
    conf = {"gpu": "H100", "num_gpus": 2, "wh_per_thousand_images": 300.0, "batch_latency_s": 2.0}
    configs = [
        {
            **conf,
            "batch_size": 2,
            "ulysses_degree": 2,
            "wh_per_thousand_images": 250.0,
            "batch_latency_s": 3.0,
        },
        {**conf, "batch_size": 1, "ulysses_degree": 2},
        {**conf, "batch_size": 1, "ulysses_degree": 1, "wh_per_thousand_images": 280.0},
        {**conf, "gpu": "B200", "batch_size": 1, "ulysses_degree": 1},
    ]
    found = charts.series(configs, ["B200", "H100"], charts.AXES["image"])
    assert [(gpu, n, [c["batch_size"] for c in line], rest) for gpu, n, line, rest in found] == [
        ("B200", 2, [1], []),
        ("H100", 2, [1, 2], [configs[1]]),
    ]
    assert found[1][2][0] is configs[2]
    doc = {"name": "PixArt-Σ $x$", "unit": "Wh per 1,000 images", "configurations": configs}
    svg = charts.energy_latency(doc, ["B200", "H100"], charts.AXES["image"]).svg.decode("utf-8")
    assert "batch latency (s, log scale)" in svg
    assert "Wh per 1,000 images (log scale)" in svg
    assert "PixArt-Σ $x$: energy against latency" in svg
    assert f"2 {TIMES} H100" in svg


@pytest.mark.slow
def test_a_generation_workload_gets_its_index_charts_and_no_llm_parts(site) -> None:
    """text-to-image (kind image): its index and its chart, model pages with every field and a
    chart, no targets."""
    folder = "workloads/text-to-image"
    index = json.loads((REPO / "data" / folder / "index.json").read_bytes())
    doc = json.loads((REPO / "data" / folder / "models" / "pixart-sigma.json").read_bytes())
    page = bare(html(site, f"{folder}/models/pixart-sigma"))
    assert "in Text to Image</span></h1>" in page
    for heading in (
        'Energy <span class="unit">(Wh per 1,000 images)</span>',
        'Batch latency <span class="unit">(s)</span>',
        'GPU power <span class="unit">(W, all GPUs)</span>',
        'Energy <span class="unit">(J per image)</span>',
        '<abbr title="Ulysses sequence parallelism: GPUs that split the attention '
        'heads">Ulysses</abbr>',
    ):
        assert f'<th scope="col">{heading}' in page, heading
    # tables, text
    assert "batch_latency_s" not in page.split("<main", 1)[1].split('<section class="source"', 1)[0]
    every = page.split('<table class="configurations">', 1)[1].split("</table>", 1)[0]
    assert every.count('<th scope="row">') == len(doc["configurations"])
    first = doc["configurations"][0]
    assert (
        f"<td>{first['wh_per_thousand_images']:,.2f}</td><td>{first['batch_latency_s']:,.3f}</td>"
        in every
    )
    lowest = page.split('<table class="lowest">', 1)[1].split("</table>", 1)[0]
    assert lowest.count('<th scope="row">') == len(doc["gpus"]) == 2
    assert f"<td>{doc['best']['B200']['wh_per_thousand_images']:,.2f}</td>" in lowest
    assert ">text-to-image.json" in page
    assert "latency target" not in page
    assert (
        '<img src="energy-latency.svg" alt="Dot chart, logarithmic axes: Wh per 1,000 images '
        "(vertical) against "
        f"batch latency (s) (horizontal) for {len(doc['configurations'])} configurations of "
        f"PixArt-Σ" in page
    )
    workload = html(site, folder)
    assert 'href="models/pixart-sigma/"' in workload
    assert "latency target" not in workload
    assert (
        "Wh per 1,000 images of the lowest-energy configuration per model and GPU setup, batch "
        "latency within 30 s." in workload
    )
    chart = (site / folder / "energy-by-model.svg").read_text(encoding="utf-8")
    assert "Wh per 1,000 images (log scale, lower is better)" in chart
    assert ">PixArt-Σ</text>" in chart
    assert f">1 {TIMES} B200: " in chart
    table = workload.split('<table class="index">', 1)[1].split("</table>", 1)[0]
    assert "Batch latency" in table
    assert "Wh per 1,000 images" in table
    assert table.count('<tr><th scope="row">') == len(index["rows"])
    first = index["rows"][0]
    assert f"{first['wh_per_thousand_images']:.2f}" in table.split("</tr>", 2)[1]
    assert "Text to Image" in html(site, "")
    for gpu in ("h100", "b200"):
        section = html(site, f"gpus/{gpu}").split('<section id="workload-text-to-image">', 1)[1]
        assert (
            'href="../../workloads/text-to-image/models/pixart-sigma/"'
            in section.split("</section>", 1)[0]
        )
    video = html(site, "workloads/text-to-video")
    assert "Wh per video" in video.split('<table class="index">', 1)[1].split("</table>", 1)[0]
    assert (site / "workloads/text-to-video/energy-by-model.svg").is_file()
    assert (
        "Wh per video (log scale)"
        in (site / "workloads/text-to-video/models/wan-2-1-14b/energy-latency.svg").read_text()
    )


def test_a_small_document_keeps_its_rows_or_entries_and_a_model_finds_its_frontier_entry() -> None:
    kept = {
        "slug": "b",
        "gpus": {"B200": {"best_under": {"50": {"row_id": "b/B200/1/8", "repeat": 1}}}},
    }
    again = {"slug": "b", "gpus": {}}
    frontier = {"itl_targets_ms": [50], "models": [{"slug": "a", "gpus": {}}, kept, again]}
    found = parts("frontier.json", frontier)
    assert found == [{"slug": "a", "gpus": {}}, kept, again]
    assert parts("index.json", {"rows": [{"gpu": "B200"}, 3]}) == [{"gpu": "B200"}, 3]
    assert parts("workloads.json", {"workloads": []}) is None
    by_slug = pages.first_by_slug(found)
    assert by_slug["b"] == (1, kept)  # the first entry of a slug, with its place
    assert "c" not in by_slug
    assert pages.first_by_slug([3, {"slug": 4}]) == {"": (0, 3)}  # no slug: under "", first kept


@pytest.mark.parametrize(
    ("models", "message"),
    [
        ("x", "data/frontier.json: /models: expected an array, found a string"),
        ([{"slug": "a"}, "x"], "data/frontier.json: /models/1: expected an object, found a string"),
        (
            [{"slug": ["a"]}],
            "data/frontier.json: /models/0/slug: expected a string, found an array",
        ),
        ([{"gpus": {}}], "data/frontier.json: /models/0/slug: expected a string, found null"),
    ],
)
def test_a_frontier_whose_entries_are_not_objects_with_a_slug_is_one_input_error(
    models, message
) -> None:
    with pytest.raises(InputError) as caught:
        parts("frontier.json", {"models": models})
    assert str(caught.value).endswith(message)


@pytest.mark.parametrize("kind", catalog.KINDS)
def test_an_index_row_keeps_every_field_its_page_and_chart_show(kind: str) -> None:
    # the row heading and the dot chart
    shown = {
        "model",
        "slug",
        "gpu",
        "num_gpus",
        charts.AXES[kind].energy,
    }
    # from the CSV
    columns = {column.key for column in pages.index_columns(kind, "")} - set(RESPONSE_ENERGY)
    columns -= {"resolution"}  # made of width and height
    assert shown | columns <= INDEX_SHOWN
    assert {"row_id", "repeat"} <= INDEX_SHOWN  # what finds a row's energy per response in the CSV


@pytest.mark.slow  # plans the whole site: a full site build
def test_the_site_is_written_page_by_page_each_model_document_read_once(monkeypatch) -> None:
    """Each model document is read just before its page is handed on, never ahead, and never
    twice."""
    from builder.site.load import Package

    reads: list[str] = []
    real = Package.read

    def read(self: Package, rel: str):
        if rel.endswith(".json"):
            reads.append(rel)
        return real(self, rel)

    monkeypatch.setattr(Package, "read", read)
    done = 0
    pkg = load_package(REPO)
    lists = [rel for rel in pkg.heads if rel.rsplit("/", 1)[-1] == "models.json"]
    model_pages = {
        catalog.require_path(e["page"], BASE, "") for rel in lists for e in pkg.parts[rel]
    }
    for path, data in plan_site(pkg):
        written([(path, data)])
        if path in model_pages:
            done += 1
            assert len(reads) == done, path
    assert done == len(model_pages) == 62  # the pages of 46 models across seven workloads
    assert len(reads) == len(set(reads)) == done


def test_curated_method_text_reads_without_field_names() -> None:
    text = (
        "power is upstream's avg_power_watts x batch_latency_s / batch_size on num_gpus GPUs, "
        "some_new_field"
    )
    assert words.plain(text) == (
        f"power is upstream's average power {TIMES} batch latency / batch size on all its GPUs, "
        f"some new field"
    )


def test_a_workload_past_the_cap_on_gpu_types_is_one_input_error() -> None:
    """A column per GPU type and a row per model: past the cap the comparison would grow as their
    product."""
    work = catalog.SiteWorkload(
        "w",
        "W",
        "",
        catalog.LLM,
        "workloads/w/index.json",
        "workloads/w/models.json",
        None,
        {},
        "",
        "workloads/w/index.html",
    )
    models, sums = [], {}
    for i in range(MAX_GPUS_PER_TASK + 1):
        rel = f"workloads/w/models/m{i}.json"
        models.append(
            catalog.Model(
                f"m{i}", f"M{i}", rel, "api/v1/" + rel, f"workloads/w/models/m{i}/index.html"
            )
        )
        sums[rel] = targets.Summary([f"G{i}"], 1, "", "", {}, (100,), {f"G{i}": {"100": None}})
    with pytest.raises(InputError) as caught:
        pages.comparison(work, models, sums, 100)
    assert str(caught.value) == (
        "data/workloads/w/models.json: /models: expected at most 32 GPU types in a workload, "
        "found 33"
        " (run builder validate)"
    )
    models.pop()
    # at the cap: a column each
    assert len(pages.comparison(work, models, sums, 100)["gpus"]) == MAX_GPUS_PER_TASK


@pytest.mark.slow
@pytest.mark.parametrize("folder", ["api/v1/", "download/data/", "schemas/v1/"])
def test_a_folder_listing_lists_its_folders_then_its_files_with_their_sizes(
    site, folder: str
) -> None:
    page = (site / folder / "index.html").read_text(encoding="utf-8")
    found = re.findall(
        r'<li><a href="([^"]*)">([^<]*)</a> <span class="unit">([^<]*)</span></li>', page
    )
    here = sorted(site.joinpath(folder).iterdir())
    folders = [p.name + "/" for p in here if p.is_dir()]
    # the listing does not list itself
    files = [p.name for p in here if p.is_file() and p.name != "index.html"]
    assert [label for _, label, _ in found] == folders + files
    assert [size for _, _, size in found] == ["folder"] * len(folders) + [
        words.size((site / folder / name).stat().st_size) for name in files
    ]


@pytest.mark.slow
def test_the_home_page_offers_the_package_files_and_every_csv_for_download(site) -> None:
    page = (site / "index.html").read_text(encoding="utf-8")
    found = re.findall(
        r'<li><a href="([^"]*)" download>[^<]*</a> <span class="unit">\(([^)]*)\)</span>', page
    )
    below = [
        p.relative_to(site).as_posix()
        for p in sorted((site / "download").rglob("*"))
        if p.is_file()
    ]
    offered = [
        p for p in below if (p.count("/") == 1 or p.endswith(".csv")) and p != "download/index.html"
    ]
    assert [(p, words.size((site / p).stat().st_size)) for p in offered] == found
    assert "download/datapackage.json" in dict(found)
    assert "download/data/configurations.csv" in dict(found)


@pytest.mark.slow
def test_every_page_says_where_its_figures_come_from_and_links_the_changelog_and_the_data(
    site,
) -> None:
    commit = "0cd52dab897c5d91a45f4d413038f3b8b4251b0f"
    pages = sorted(p for p in site.rglob("*.html") if p.name != "404.html")
    for path in pages:
        page = path.read_text(encoding="utf-8")
        footer = page.split('<footer class="site">', 1)[1]
        where = path.relative_to(site)
        assert "Data version 2026-11-29 (" in footer, where
        entry = re.search(r'<a href="([^"#]*)(#[\w.-]+)?">its changelog entry</a>', footer)
        assert entry is not None, where
        assert page_link_target(site, path, entry.group(1)) == site / "changelog" / "index.html", (
            where
        )
        download = re.search(r'<a href="([^"]*)">Download the data</a>', footer)
        assert download is not None, where
        assert (
            page_link_target(site, path, download.group(1)) == site / "download" / "index.html"
        ), where
        assert (
            f'<a href="https://github.com/ml-energy/leaderboard/tree/{commit}/public/data/tasks">'
            in footer
        ), where
        assert footer.count(f"<code>{commit[:12]}</code>") == 1, where  # one commit, named once
        assert 'rel="license">Apache-2.0</a>' in footer, where
        assert ">arXiv 2505.06371</a>" in footer and ">arXiv 2601.22076</a>" in footer, where  # noqa: PT018
        assert '<meta property="og:title" content="' in page, where
        url = BASE + "/" + where.as_posix().removesuffix("index.html")
        assert f'<meta property="og:url" content="{url}">' in page, where
        markup = json.loads(
            page.split('<script type="application/ld+json">', 1)[1].split("</script>", 1)[0]
        )
        assert markup["@type"] == "Dataset"
        assert markup["version"] == "2026-11-29"
    source = html(site, "workloads/problem-solving").split('<section class="source"', 1)[1]
    assert (
        f'href="https://raw.githubusercontent.com/ml-energy/leaderboard/{commit}/public/data/tasks/gpqa.json"'
        in source
    )
    assert "/master/" not in source


@pytest.mark.slow
def test_the_sitemap_dates_each_page_by_its_own_document(site) -> None:
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    assert (
        f"<loc>{BASE}/models/llama-3-1-70b-instruct/</loc><lastmod>2026-09-27</lastmod>" in sitemap
    )
    assert f"<loc>{BASE}/workloads/text-to-video/</loc><lastmod>2026-11-29</lastmod>" in sitemap


@pytest.mark.slow
def test_names_are_links_and_generation_tables_say_what_they_compare(site) -> None:
    models = html(site, "models")
    assert (
        '<th scope="row"><a href="llama-3-1-70b-instruct/">Llama 3.1 70B Instruct</a></th>'
        in models
    )
    llama = html(site, "models/llama-3-1-70b-instruct")
    assert (
        '<dt>GPUs measured</dt><dd><a href="../../gpus/b200/">B200</a>, <a '
        'href="../../gpus/h100/">H100</a></dd>' in llama
    )
    workload = html(site, "workloads/text-to-video")
    gpus = '<a href="../../gpus/b200/">B200</a>, <a href="../../gpus/h100/">H100</a>'
    assert f"GPU types measured: {gpus}." in workload
    sizes = f"720 {TIMES} 480 px, 49 frames; 832 {TIMES} 480 px, 81 frames;"
    assert f'<p class="warning">These rows mix video sizes ({sizes}' in workload
    wan = bare(html(site, "workloads/text-to-video/models/wan-2-1-14b"))
    for heading in ("Steps", "Resolution", "Frames", "Frame rate"):
        assert (
            f'<th scope="col">{heading} <span class="unit">'
            in wan.split('<table class="configurations">')[1]
        )
    assert f"<td>832 {TIMES} 480</td><td>81</td><td>15</td>" in wan


@pytest.mark.slow
def test_the_changelog_page_and_the_croissant_card_come_from_the_repository_files(
    tmp_path: Path,
) -> None:
    root = copy_package(tmp_path / "pkg")
    log = (
        "# Changelog\n\n## 2026-11-29\n\n- Image and video workloads, with "
        "`frontier.json`.\n\n## 2026-09-27\n"
    )
    (root / "CHANGELOG.md").write_text(log, encoding="utf-8")
    card = b'{"@type": "sc:Dataset", "distribution": [{"contentUrl": "data/configurations.csv"}]}\n'
    (root / "croissant.json").write_bytes(card)
    out = tmp_path / "site"
    build_site(out, root)
    assert (out / "download" / "croissant.json").read_bytes() == card  # beside data/, byte for byte
    # at the site root, its files where the site has them
    root_card = json.loads((out / "croissant.json").read_bytes())
    assert root_card["distribution"] == [{"contentUrl": "download/data/configurations.csv"}]
    assert (out / "download" / "data" / "configurations.csv").is_file()
    assert (out / "download" / "CHANGELOG.md").read_text(encoding="utf-8") == log
    page = html(out, "changelog")
    assert '<h2 id="2026-11-29">2026-11-29</h2>' in page
    assert "<li>Image and video workloads, with <code>frontier.json</code>.</li>" in page
    assert '<a href="./#2026-11-29">its changelog entry</a>' in page
    assert '<a href="../changelog/#2026-11-29">its changelog entry</a>' in html(out, "models")
