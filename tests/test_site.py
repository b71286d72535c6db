"""builder site: every published URL resolves in the site; pages show the data, escaped; builds
repeat byte for byte."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from builder.errors import BuilderError, ProblemsError
from builder.layout import schema_for
from builder.report import printable
from builder.site.build import build_site
from builder.site.load import load_package
from helpers import snapshot
from sitehelp import (
    BASE,
    REPO,
    WORKLOAD,
    WORKLOAD_MODELS,
    add_workload,
    bare,
    copy_package,
    page_link_target,
    parse_html,
    serve,
    strings,
    url_to_file,
)

TREES = ("today", "two-workloads")
# every script element of an LLM page: its Dataset markup, the latency control's data and its code
SCRIPTS = [
    '<script type="application/ld+json">',
    '<script type="application/json" id="latency-data">',
    '<script src="latency.js" defer>',
]


def scripts(html: str) -> list[str]:
    """A page's script start tags, a script's address cut to its file name."""
    return [re.sub(r'src="[./]*', 'src="', tag) for tag in re.findall(r"<script[^>]*>", html)]


# what base.html needs beyond a page's own values (plan.shared_context makes it for the real site)
SHARED = {
    "base_url": BASE,
    "commits": [],
    "papers": (),
    "changelog_page": "changelog/index.html",
    "changelog_entry": "",
    "download_page": "download/index.html",
    "download": "download/",
    "api_page": "api/v1/index.html",
    "dataset": {},
}


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    """(package root, built site) of the committed package, and of a copy with a second workload."""
    base = tmp_path_factory.mktemp("sites")
    two = add_workload(copy_package(base / "two-workloads"))
    built = {}
    for name, root in (("today", REPO), ("two-workloads", two)):
        built[name] = (root, base / f"site-{name}")
        build_site(built[name][1], root)
    return built


def published_json(site: Path) -> dict[Path, object]:
    return {p: json.loads(p.read_bytes()) for p in sorted(site.rglob("*.json"))}


def model_lists(root: Path) -> list[Path]:
    return sorted((root / "data").rglob("models.json"))


@pytest.mark.slow
@pytest.mark.parametrize("tree", TREES)
def test_every_url_in_every_published_document_resolves_in_the_site(sites, tree) -> None:
    _, site = sites[tree]
    checked, missing = 0, []
    for path, doc in published_json(site).items():
        schema_id = doc.get("$id") if isinstance(doc, dict) and "$schema" in doc else None
        for key, value in strings(doc):
            if key == "$ref" and schema_id and not value.startswith("#"):
                value = urljoin(schema_id, value)
            if value == BASE or value.startswith(BASE + "/"):
                checked += 1
                if not url_to_file(site, value).is_file():
                    missing.append(f"{path.relative_to(site)}: {key}: {value}")
    assert missing == []
    pages = sum(len(json.loads(p.read_bytes())["models"]) for p in model_lists(sites[tree][0]))
    # urls, pages, $ids and $refs of several documents were really checked
    assert checked > 3 * pages


@pytest.mark.slow
@pytest.mark.parametrize("tree", TREES)
def test_every_link_of_every_page_resolves_and_only_the_source_is_elsewhere(sites, tree) -> None:
    root, site = sites[tree]
    meta = tomllib.loads((root / "metadata.toml").read_text(encoding="utf-8"))
    source = meta["source"]
    licences = json.loads((root / "datapackage.json").read_bytes())["licenses"]
    data_urls = [w["data_url"] for w in meta["workload"]]
    allowed = {urlsplit(url).hostname for url in (source["url"], *data_urls, source["cite_url"])}
    allowed |= {urlsplit(item["path"]).hostname for item in licences}
    # upstream's files at their commit; each page's canonical URL
    allowed |= {
        "github.com",
        urlsplit(BASE).hostname,
    }
    hosts, missing, pages = set(), [], sorted(site.rglob("*.html"))
    for page in pages:
        links = parse_html(page)
        for tag, attribute, value in links.links:
            parts = urlsplit(value)
            if parts.scheme or parts.netloc:
                assert parts.scheme == "https", f"{page}: {value}"
                hosts.add(parts.hostname)
            elif value.startswith("#"):
                if value[1:] not in links.ids:
                    missing.append(
                        f"{page.relative_to(site)}: <{tag} {attribute}={value}>: no such id"
                    )
            elif not page_link_target(site, page, value).is_file():
                missing.append(f"{page.relative_to(site)}: <{tag} {attribute}={value}>")
    assert missing == []
    assert hosts == allowed
    expected = {
        url_to_file(site, m["page"])
        for p in model_lists(root)
        for m in json.loads(p.read_bytes())["models"]
    }
    workloads = [
        w["id"] for w in json.loads((root / "data" / "workloads.json").read_bytes())["workloads"]
    ]
    expected |= {site / "workloads" / w / "index.html" for w in workloads}
    expected |= {
        site / f for f in ("index.html", "404.html", "models/index.html", "glossary/index.html")
    }
    expected |= {
        site / f / "index.html" for f in ("api/v1", "schemas/v1", "gpus", "gpus/b200", "gpus/h100")
    }
    expected |= {
        site / "api/v1/workloads" / w / "index.html" for w in workloads if w != "text-conversation"
    }
    assert expected <= set(pages)
    linked = {
        page_link_target(site, page, v) for page in pages for _, _, v in parse_html(page).links
    }
    assert set(pages) - linked <= {site / "404.html"}  # every page is reached by a link


@pytest.mark.slow
def test_every_model_page_shows_its_document(sites) -> None:
    root, site = sites["today"]
    entries = json.loads((root / "data" / "models.json").read_bytes())["models"]
    for entry in entries:
        doc = json.loads(url_to_file(site, entry["url"]).read_bytes())
        html = url_to_file(site, entry["page"]).read_text(encoding="utf-8")
        assert doc["name"] in html
        assert doc["model_id"] in html
        assert doc["architecture"] in html
        body = (
            html.split('<table class="configurations">', 1)[1]
            .split("<tbody>", 1)[1]
            .split("</tbody>", 1)[0]
        )
        assert body.count("<tr") == len(doc["configurations"])
        assert body.count('<tr class="best">') == len(doc["best"])
        assert f'href="../../api/v1/models/{doc["slug"]}.json"' in html
        assert 'href="../../schemas/v1/model.schema.json"' in html
        assert '<img src="energy-latency.svg" alt="Dot chart' in html
        assert f"<title>{doc['name']} — Text Conversation · LeadGreen</title>" in html
        # breadcrumb
        assert '<li><a href="../../workloads/text-conversation/">Text Conversation</a></li>' in html
        assert "lm-arena-chat.json</a>" in html
        assert "<figcaption>" in html
        for text in (doc["caveat"], doc["source"]["cite"], doc["source"]["licence"]):
            assert text.replace("'", "&#39;") in html


@pytest.mark.slow
def test_lowest_configuration_per_gpu_leads_each_model_page(sites) -> None:
    root, site = sites["today"]
    for path in sorted((root / "data" / "models").glob("*.json")):
        doc = json.loads(path.read_bytes())
        html = bare((site / "models" / doc["slug"] / "index.html").read_text(encoding="utf-8"))
        row = html.split('<tr id="target-any">', 1)[1].split("</tr>", 1)[0]
        for gpu, best in doc["best"].items():
            cell = row.split(f'<td data-gpu="{gpu}">', 1)[1].split("</td>", 1)[0]
            assert f"<strong>{best['wh_per_million_output_tokens']:,.2f}</strong>" in cell, (
                path.name
            )
            assert (
                f"{best['num_gpus']} \N{MULTIPLICATION SIGN} {gpu}, {best['max_num_seqs']:,} seqs"
                in cell
            )


@pytest.mark.slow
def test_workload_page_has_the_index_in_energy_order_with_links(sites) -> None:
    root, site = sites["today"]
    index = json.loads((root / "data" / "index.json").read_bytes())
    html = (site / "workloads" / "text-conversation" / "index.html").read_text(encoding="utf-8")
    body = bare(
        html.split('<table class="index">', 1)[1].split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    )
    rows = body.split("<tr>")[1:]
    assert len(rows) == len(index["rows"])
    for html_row, row in zip(rows, index["rows"], strict=True):  # in the index's (energy) order
        assert f'<th scope="row">{row["model"]}</th>' in html_row
        assert f'<a href="../../models/{row["slug"]}/">{row["model"]}</a>' in html
        assert f"{row['num_gpus']} \N{MULTIPLICATION SIGN} {row['gpu']}" in html_row
        assert f"<td>{row['wh_per_million_output_tokens']:,.2f}</td>" in html_row
        # the column heads say the units; the cells hold numbers
        assert "J per response" not in html_row
    assert '<img src="energy-by-model.svg"' in html


@pytest.mark.slow
def test_home_page_is_an_overview_with_data_pin_cite_and_download(sites) -> None:
    root, site = sites["today"]
    html = (site / "index.html").read_text(encoding="utf-8")
    version = max(
        json.loads(p.read_bytes())["data_version"] for p in (root / "data").rglob("*.json")
    )
    assert f"Data version <strong>{version}</strong>" in html
    assert f"<code>v{version.replace('-', '.')}</code>" in html
    assert "git clone --branch v" in html
    assert "https://github.com/leadgreen/leadgreen-data</code>" in html
    for download in ("data/configurations.csv", "datapackage.json", "CITATION.cff"):
        assert f'href="download/{download}"' in html
    # the two papers that describe the measurements, each cited once
    cite = html.split("<h3>Cite</h3>", 1)[1].split("</section>", 1)[0]
    assert cite.count(", arXiv 2505.06371") == 1 and cite.count(", arXiv 2601.22076") == 1  # noqa: PT018
    # each workload's lowest energy is shown with its unit, the language models' too
    lows = re.findall(
        r'data-label="Lowest energy"><strong>[0-9.,]+</strong> <span class="unit">([^<]+)<', html
    )
    assert lows == 5 * ["Wh per million output tokens"] + ["Wh per 1,000 images", "Wh per video"]
    # the language models' method is said to be theirs (the page covers image and video too)
    assert "For the language models: Energy per output token is" in html
    # the opening names every workload's unit, not only the language models' one
    lede = html.split('<p class="lede">', 1)[1].split("</p>", 1)[0]
    assert [u for u in re.findall(r"<strong>([^<]+)</strong>", lede) if u.startswith("Wh")] == [
        "Wh per million output tokens",
        "Wh per 1,000 images",
        "Wh per video",
    ]
    # one brand in the title
    assert html.split("<title>", 1)[1].split("</title>", 1)[0].count("LeadGreen") == 1
    assert html.split("<body>", 1)[1].count("LeadGreen") == 1  # the brand link
    for workload in (
        "text-conversation",
        "problem-solving",
        "code-completion",
        "image-chat",
        "video-chat",
    ):
        assert f'href="workloads/{workload}/"' in html
    assert (site / "download" / "datapackage.json").read_bytes() == (
        root / "datapackage.json"
    ).read_bytes()


@pytest.mark.slow
def test_the_downloaded_descriptor_finds_every_file_it_names(sites) -> None:
    """download/ is the package as datapackage.json lays it out: every path it names is there,
    byte for byte."""
    root, site = sites["today"]
    descriptor = json.loads((site / "download" / "datapackage.json").read_bytes())
    named = {r["path"] for r in descriptor["resources"]} | {
        r["jsonSchema"] for r in descriptor["resources"] if "jsonSchema" in r
    }
    assert len(named) > 20
    for path in named:
        assert (site / "download" / path).read_bytes() == (root / path).read_bytes(), path


@pytest.mark.slow
def test_published_files_are_copied_byte_for_byte(sites) -> None:
    root, site = sites["today"]
    for path in sorted((root / "data").rglob("*")):
        if path.is_file():
            assert (
                site / "api" / "v1" / path.relative_to(root / "data")
            ).read_bytes() == path.read_bytes()
    for path in sorted((root / "schemas").glob("*.schema.json")):
        schema_id = json.loads(path.read_bytes())["$id"]
        assert url_to_file(site, schema_id).read_bytes() == path.read_bytes()


@pytest.mark.slow
def test_a_second_workload_gets_its_pages_without_code(sites) -> None:
    _root, site = sites["two-workloads"]
    for slug in WORKLOAD_MODELS:
        page = site / "workloads" / WORKLOAD / "models" / slug / "index.html"
        html = page.read_text(encoding="utf-8")
        assert '(long context) <span class="sub">in Long context</span></h1>' in html
        assert f'href="../../../../api/v1/workloads/{WORKLOAD}/models/{slug}.json"' in html
        assert (page.parent / "energy-latency.svg").is_file()
    home = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="workloads/text-conversation/"' in home
    assert f'href="workloads/{WORKLOAD}/"' in home
    page = (site / "workloads" / WORKLOAD / "index.html").read_text(encoding="utf-8")
    assert '<img src="energy-by-model.svg"' in page
    assert 'href="models/qwen-3-8b/">Qwen 3 8B (long context)</a>' in page
    assert (site / "api" / "v1" / "workloads.json").is_file()


@pytest.mark.slow
def test_every_document_has_a_schema(sites) -> None:
    pkg = load_package(REPO)
    names = list(pkg.schemas)
    assert [
        rel for rel in pkg.files if rel.endswith(".json") and schema_for(rel) not in names
    ] == []


@pytest.mark.slow
def test_check_jsonschema_validates_every_document_against_the_served_schemas(
    sites, tmp_path
) -> None:
    _, site = sites["today"]
    pkg = load_package(REPO)
    by_schema: dict[str, list[str]] = {}
    for rel in pkg.files:
        if rel.endswith(".json"):
            by_schema.setdefault(schema_for(rel), []).append(str(site / "api" / "v1" / rel))
    bad = json.loads((site / "api" / "v1" / "models" / "qwen-3-8b.json").read_bytes())
    bad["configurations"][0]["num_gpus"] = 0
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    checker = Path(sys.executable).with_name("check-jsonschema")
    env = {**os.environ, "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}
    with serve(site) as (url, requested):
        schemas = f"{url}schemas/v1/"

        def check(schema: str, files: list[str]) -> subprocess.CompletedProcess:
            args = [
                checker,
                "--no-cache",
                "--base-uri",
                schemas,
                "--schemafile",
                schemas + schema,
                *files,
            ]
            return subprocess.run(args, capture_output=True, text=True, env=env, timeout=120)

        for schema, files in sorted(by_schema.items()):
            run = check(schema, files)
            assert run.returncode == 0, run.stdout + run.stderr
        refused = check("model.schema.json", [str(tmp_path / "bad.json")])
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "num_gpus" in refused.stdout + refused.stderr
    assert {f"/schemas/v1/{name}" for name in (*by_schema, "defs.schema.json")} <= set(requested)
    assert sum(len(files) for files in by_schema.values()) == sum(
        rel.endswith(".json") for rel in pkg.files
    )


@pytest.mark.slow
def test_two_builds_give_the_same_bytes(sites, tmp_path) -> None:
    _, first = sites["today"]
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    builder = Path(sys.executable).with_name("builder")
    run = subprocess.run(
        [builder, "site", "--out", str(tmp_path / "again")], cwd=REPO, env=env, capture_output=True
    )
    assert run.returncode == 0, run.stderr
    assert snapshot(tmp_path / "again") == snapshot(first)
    build_site(tmp_path / "again", REPO)  # over the previous build: the same again
    assert snapshot(tmp_path / "again") == snapshot(first)


def test_help_imports_neither_matplotlib_nor_jinja2() -> None:
    code = (
        "import sys\nfrom click.testing import CliRunner\nfrom builder.cli import main\n"
        "assert CliRunner().invoke(main, ['--help']).exit_code == 0\n"
        "print(sorted(m for m in ('matplotlib', 'jinja2', 'builder.site.plan') if m in "
        "sys.modules))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"


@pytest.mark.slow
def test_cli_builds_the_site_into_site_by_default(repo_copy, cli) -> None:
    result = cli("site")
    assert result.exit_code == 0, result.output
    site = repo_copy / "site"
    files = [p for p in site.rglob("*") if p.is_file()]
    pages = [p for p in files if p.suffix == ".html"]
    version = max(
        json.loads(p.read_bytes())["data_version"] for p in (repo_copy / "data").rglob("*.json")
    )
    assert (
        result.output == f"site: {len(files)} files, {len(pages)} pages, data version {version}\n"
    )
    lists = [
        repo_copy / "data" / "models.json",
        *(repo_copy / "data" / "workloads").glob("*/models.json"),
    ]
    assert len(lists) == 7  # five LLM workloads, text to image and text to video
    models = sum(len(json.loads(p.read_bytes())["models"]) for p in lists)
    assert models < len(pages) < models + 60  # model, workload, GPU, listing and site pages
    assert (repo_copy / "site" / "index.html").is_file()
    assert (repo_copy / "site" / ".leadgreen-site").is_file()


MARKUP = "<script>alert(1)</script>"


def _hostile_doc() -> dict:
    """A model document whose upstream strings carry markup; built directly, past every upstream
    check."""
    doc = json.loads((REPO / "data" / "models" / "qwen-3-8b.json").read_bytes())
    doc["name"] = f"Evil {MARKUP} & Co"
    doc["architecture"] = '"><img src=x onerror=alert(2)>'
    doc["caveat"] = MARKUP
    doc["source"] = {**doc["source"], "cite": MARKUP, "url": "javascript:alert(3)"}
    return doc


def test_markup_from_upstream_comes_out_escaped_in_pages_and_charts() -> None:
    from builder.site import catalog, charts, pages, plan, targets, views

    doc = _hostile_doc()
    chart = charts.energy_latency(doc, ["B200", "H100"])
    svg = chart.svg.decode("utf-8")
    assert "<script" not in svg
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co" in svg
    links = {
        "page": "models/evil/index.html",
        "doc": "api/v1/models/evil.json",
        "schema": "schemas/v1/m.json",
    }
    work = catalog.SiteWorkload(
        MARKUP, MARKUP, MARKUP, "llm", "i.json", None, None, doc["source"], MARKUP, "w/index.html"
    )
    common = {
        **SHARED,
        "source": views.source_view(doc["source"]),
        "data_version": "2026-10-19",
        "workload": work,
        "licences": [],
    }
    view = views.model_view(
        doc, links, {"src": "c.svg", "alt": chart.alt}, {**common, "others": [(MARKUP, "x")]}
    )
    view["doc"]["best"]["B200"]["gpu"] = MARKUP  # shown by the pick macro
    html = b"".join(plan.render_template("model.html", view)).decode("utf-8")
    assert scripts(html) == SCRIPTS  # the page's own, no other
    assert "<img src=x" not in html
    assert "javascript:" not in html.split("<main>")[1]
    assert "Evil &lt;script&gt;alert(1)&lt;/script&gt; &amp; Co" in html
    assert "&#34;&gt;&lt;img src=x onerror=alert(2)&gt;" in html
    row = {**json.loads((REPO / "data" / "index.json").read_bytes())["rows"][0], "model": MARKUP}
    index = {
        **json.loads((REPO / "data" / "index.json").read_bytes()),
        "rows": [row],
        "workload": "x",
    }
    models = [catalog.Model(row["slug"], MARKUP, "m.json", "api/m.json", "m/index.html")]
    context = {**common, "source": views.source_view(doc["source"], work), "json": []}
    sums = {"m.json": targets.summarize(doc, targets.best_under(doc, None))}
    view = pages.workload_view(work, models, index, sums, None, context)
    page = b"".join(plan.render_template("workload.html", view)).decode("utf-8")
    assert scripts(page) == SCRIPTS
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 3


def test_templates_never_turn_autoescaping_off() -> None:
    folder = REPO / "src" / "builder" / "site" / "templates"
    for template in folder.glob("*.html"):
        text = template.read_text(encoding="utf-8")
        for unsafe in ("|safe", "autoescape", "Markup"):
            assert unsafe not in text.replace(" ", ""), template


@pytest.mark.slow
def test_charts_are_svg_with_a_title_and_a_description(sites) -> None:
    _, site = sites["today"]
    for path in [
        *site.glob("workloads/*/energy-by-model.svg"),
        *sorted(site.glob("models/*/energy-latency.svg")),
    ]:
        head = path.read_text(encoding="utf-8")[:3000]
        for present in ("<svg ", 'viewBox="', "\n <title>", "\n <desc>"):
            assert present in head, (path, present)
        for absent in ("<dc:date>", "Matplotlib v"):  # no build date, no version stamp
            assert absent not in head, (path, absent)


def test_pages_workflow_pins_every_action_and_keeps_least_privilege() -> None:
    import re

    path = REPO / ".github" / "workflows" / "pages.yml"
    text = path.read_text(encoding="utf-8")
    uses = re.findall(r"^\s*(?:- )?uses: (\S+)(.*)$", text, re.MULTILINE)
    assert {action.split("@")[0] for action, _ in uses} == {
        "actions/checkout",
        "actions/setup-python",
        "actions/upload-pages-artifact",
        "actions/deploy-pages",
    }
    for action, comment in uses:
        assert re.fullmatch(r"[\w-]+/[\w-]+@[0-9a-f]{40}", action), action
        assert re.fullmatch(r" # v\d+(\.\d+)*", comment), (action, comment)
    assert "\npermissions: {}\n" in text
    build, deploy = text.split("\n  deploy:\n")
    assert "pages: write" not in build
    assert "id-token: write" not in build
    assert "pages: write" in deploy
    assert "id-token: write" in deploy
    assert "contents:" not in deploy
    assert "builder site --out _site" in build
    assert "rm -f _site/.leadgreen-site" in build  # the file list is not published
    # the schema check: test_workflows.py (slow, an outside tool)
    assert 'python-version: "3.11"' in build


def _edit(path: Path, change) -> None:
    doc = json.loads(path.read_bytes())
    change(doc)
    path.write_text(json.dumps(doc, indent=2) + "\n")


UNSOUND = "data: expected a sound package (run builder validate), found "
BROKEN = [
    (
        "no data folder",
        lambda root: shutil.rmtree(root / "data"),
        "data: expected the package's folder, found none",
    ),
    (
        "a page elsewhere",
        lambda root: _edit(
            root / "data" / "models.json",
            lambda d: d["models"][0].update(page="https://example.org/x/"),
        ),
        "data/models.json: /models/0/page: expected a URL under https://leadgreen.ai/, found "
        "'https://example.org/x/'",
    ),
    (
        "a url to nothing",
        lambda root: _edit(
            root / "data" / "models.json",
            lambda d: d["models"][0].update(url="https://leadgreen.ai/api/v1/models/nothing.json"),
        ),
        "data/models.json: /models/0/url: expected a published document at "
        "https://leadgreen.ai/api/v1/models/",
    ),
    (
        "a workload list url to nothing",
        lambda root: _edit(
            root / "data" / "workloads.json",
            lambda d: d["workloads"][0].update(
                index_url="https://leadgreen.ai/api/v1/nothing.json"
            ),
        ),
        "data/workloads.json: /workloads/0/index_url: expected a published document at "
        "https://leadgreen.ai/api/v1/nothing.json, found none",
    ),
    (
        "a model list url naming the frontier",
        lambda root: _edit(
            root / "data" / "workloads.json",
            lambda d: d["workloads"][0].update(models_url=d["workloads"][0]["frontier_url"]),
        ),
        "data/workloads.json: /workloads/0/models_url: expected the URL of a models.json, found "
        "https://leadgreen.ai/api/v1/frontier.json",
    ),
    (
        "a frontier entry without a slug",
        lambda root: _edit(root / "data" / "frontier.json", lambda d: d["models"][1].pop("slug")),
        f"{UNSOUND}data/frontier.json: /models/1/slug: expected a string, found null",
    ),
    (
        "a document without a name",
        lambda root: _edit(
            root / "data" / "models" / "deepseek-v3-1.json", lambda d: d.pop("name")
        ),
        "data/models/deepseek-v3-1.json: expected a valid v1 document (`builder validate` says "
        "what is wrong), "
        "found KeyError: 'name'",
    ),
    (
        "a frontier entry no configuration matches",
        lambda root: _edit(
            root / "data" / "frontier.json",
            lambda d: d["models"][0]["gpus"]["B200"]["best_under"]["100"].update(row_id="nothing"),
        ),
        "data/frontier.json: /models/0/gpus/B200/best_under/100: expected a configuration of "
        '"deepseek-v3-1" on this '
        'GPU, found no "nothing" repeat 1 (run builder validate)',
    ),
    (
        "a fault among a frontier's points, which no page reads",
        lambda root: _edit(
            root / "data" / "frontier.json",
            lambda d: d["models"][0]["gpus"]["B200"]["frontier"][0].update(
                median_itl_ms=float("nan")
            ),
        ),
        f"{UNSOUND}data/frontier.json: /models/0/gpus/B200/frontier/0/median_itl_ms: expected a "
        f"finite number, found NaN",
    ),
    (
        "an escape among a frontier's points, which no page reads",
        lambda root: _edit(
            root / "data" / "frontier.json",
            lambda d: d["models"][0]["gpus"]["B200"]["frontier"][0].update(
                row_id="x\x1b]0;pwned\x07"
            ),
        ),
        f"{UNSOUND}data/frontier.json: /models/0/gpus/B200/frontier/0/row_id: expected no control "
        f"or format characters, "
        "found ['U+001B', 'U+0007']",
    ),
    (
        "a format character in the descriptor's file list",
        lambda root: _edit(
            root / "datapackage.json", lambda d: d["resources"][0].update(name="index\u202erows")
        ),
        "datapackage.json: /resources/0/name: expected no control or format characters, found "
        "['U+202E']",
    ),
    (
        "a GPU a model lists with no configuration on it",
        lambda root: _edit(
            root / "data" / "models" / "qwen-3-8b.json", lambda d: d.update(gpus=[*d["gpus"], "X1"])
        ),
        "data/: expected a valid v1 document (`builder validate` says what is wrong), found "
        "UndefinedError: ",
    ),
    (
        "an unknown kind",
        lambda root: _edit(
            root / "data" / "workloads.json", lambda d: d["workloads"][0].update(kind="audio")
        ),
        "data/workloads.json: /workloads/0/kind: expected one of llm, image, video, found 'audio'",
    ),
    (
        "two pages at one path",
        lambda root: _edit(
            root / "data" / "models.json",
            lambda d: d["models"][1].update(page=d["models"][0]["page"]),
        ),
        "site: two files would be written at models/deepseek-v3-1/",
    ),
    (
        "a page at a document's API path",
        lambda root: _edit(
            root / "data" / "models.json",
            lambda d: d["models"][0].update(
                page="https://leadgreen.ai/api/v1/models/qwen-3-8b.json"
            ),
        ),
        "site: two files would be written at api/v1/models/qwen-3-8b.json",
    ),
    (
        "a list where a model's slug belongs",
        lambda root: _edit(
            root / "data" / "models" / "deepseek-v3-1.json", lambda d: d.update(slug=["x"])
        ),
        "data/models/deepseek-v3-1.json: expected a valid v1 document (`builder validate` says "
        "what is wrong), "
        "found TypeError: ",
    ),
    (
        "an escape in a name",
        lambda root: _edit(
            root / "data" / "models" / "deepseek-v3-1.json",
            lambda d: d.update(name="DeepSeek\x1b]0;pwned\x07 V3.1"),
        ),
        f"{UNSOUND}data/models/deepseek-v3-1.json: /name: expected no control or format "
        f"characters, "
        "found ['U+001B', 'U+0007']",
    ),
    (
        "a format character in a small document",
        lambda root: _edit(
            root / "data" / "models.json", lambda d: d["models"][0].update(name="Deep\u202eSeek")
        ),
        f"{UNSOUND}data/models.json: /models/0/name: expected no control or format characters, "
        f"found ['U+202E']",
    ),
    (
        "not JSON",
        lambda root: (root / "data" / "index.json").write_text("{"),
        f"{UNSOUND}data/index.json: line 1 column 2: expected valid JSON",
    ),
    (
        "a link in data/",
        lambda root: (root / "data" / "models" / "leak.json").symlink_to("/etc/hostname"),
        f"{UNSOUND}data/models/leak.json: /: expected a regular file, found a symbolic link",
    ),
]


def site_refusal() -> str:
    """What `builder site` prints refusing the package in the working folder, found in process: the
    package read and every file of the site planned and made, as the CLI does, but none written."""
    from builder import write
    from builder.site import quiet

    quiet.matplotlib_home()  # as build_site does, before the plan imports matplotlib
    from builder.site.plan import plan_site

    def made() -> None:
        for _path, content in plan_site(load_package(Path("."))):
            for _part in write._parts(content):  # the parts of a file, as the writer takes them
                pass

    with pytest.raises(BuilderError) as refused:
        made()
    exc = refused.value
    assert exc.exit_code == 1
    problems = exc.problems if isinstance(exc, ProblemsError) else []
    return "".join(f"{printable(str(p))}\n" for p in problems) + printable(f"error: {exc}")


@pytest.mark.parametrize(
    ("change", "message"), [case[1:] for case in BROKEN], ids=[case[0] for case in BROKEN]
)
def test_a_broken_package_is_one_clear_error(reused_copy, monkeypatch, change, message) -> None:
    """A fault found late (the gathering pages) comes after every chart is drawn: each chart is
    drawn, but not exported to SVG (most of such a case's time)."""
    from builder.site import charts

    monkeypatch.setattr(charts, "_chart", lambda _fig, title, alt: charts.Chart(b"", title, alt))
    change(reused_copy)
    said = site_refusal()
    assert said.startswith(f"error: {message}"), said
    assert "\n" not in said


# the CLI, once a class: a fault found as the package is read, and one found as the site is written
CLI_CASES = {"not JSON": "found-reading", "two pages at one path": "found-writing"}


@pytest.mark.parametrize(
    ("change", "message"),
    [pytest.param(*case[1:], id=CLI_CASES[case[0]]) for case in BROKEN if case[0] in CLI_CASES],
)
def test_a_broken_package_is_one_clear_error_and_no_site(
    reused_copy, cli, monkeypatch, change, message
) -> None:
    from builder.site import charts

    monkeypatch.setattr(charts, "_chart", lambda _fig, title, alt: charts.Chart(b"", title, alt))
    change(reused_copy)
    result = cli("site")
    assert result.exit_code == 1
    assert result.output.startswith(f"error: {message}"), result.output
    assert result.output.count("\n") == 1
    assert not (reused_copy / "site").exists()


def test_a_package_file_gone_before_its_copy_is_one_input_error(
    repo_copy, cli, monkeypatch
) -> None:
    """The data files are copied from the package as the pages are written: one that is gone by
    then is named."""
    from builder.site import build

    real = build.load_package

    def load_then_remove(root: Path):
        pkg = real(root)
        (root / "data" / "configurations.csv").unlink()
        return pkg

    monkeypatch.setattr(build, "load_package", load_then_remove)
    result = cli("site")
    assert result.exit_code == 1
    assert result.output == (
        "error: data/configurations.csv: expected a readable file, found an error (No such file "
        "or directory)\n"
    )
    assert not (repo_copy / "site").exists()
