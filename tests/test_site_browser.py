"""The built site in a real headless browser (Debian's chromium, driven over the DevTools pipe).

Screenshots are saved in tests/.artifacts/ (git-ignored) for a person to look at.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from builder.site.build import build_site
from cdp import Browser, Page
from sitehelp import REPO, serve

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = REPO / "tests" / ".artifacts"
MODELS = json.loads((REPO / "data" / "models.json").read_bytes())["models"]
MODEL = max(MODELS, key=lambda m: len(m["gpus"]))["slug"]  # the first with the most GPU types
IMAGES = "[...document.images].map(i => [i.complete, i.naturalWidth, i.naturalHeight, i.getBoundingClientRect().width])"
OVERFLOW = "document.documentElement.scrollWidth - window.innerWidth"

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")


@pytest.fixture(scope="module")
def browsed(tmp_path_factory: pytest.TempPathFactory):
    """The committed package's site, served on 127.0.0.1, and a browser."""
    base = tmp_path_factory.mktemp("browser")
    build_site(base / "site", REPO)
    ARTIFACTS.mkdir(exist_ok=True)
    with serve(base / "site") as (url, _):
        browser = Browser(CHROMIUM, base / "profile")
        try:
            yield url, browser
        finally:
            browser.close()


@pytest.mark.parametrize(("width", "label"), [(1280, "wide"), (390, "narrow")])
def test_index_and_a_model_page_render_without_errors(browsed, width, label) -> None:
    url, browser = browsed
    page = Page(browser, width, 900)
    indexes = [REPO / "data" / "index.json", *sorted((REPO / "data" / "workloads").glob("*/index.json"))]
    rows = sum(len(json.loads(p.read_bytes())["rows"]) for p in indexes)  # one table a workload
    doc = json.loads((REPO / "data" / "models" / f"{MODEL}.json").read_bytes())

    page.load(url)
    assert page.evaluate("document.querySelectorAll('table.index').length") == len(indexes) == 7
    assert page.evaluate("document.querySelectorAll('table.index tbody tr').length") == rows
    charts = page.evaluate(IMAGES)
    assert len(charts) == len(indexes) - 2  # a chart a workload; the two generation workloads have none yet
    assert all(done and w > 0 and h > 0 and shown > 0 for done, w, h, shown in charts), charts
    assert page.evaluate(OVERFLOW) <= 0, "the page scrolls sideways"
    shot = page.screenshot(ARTIFACTS / f"index-{label}.png")

    page.load(f"{url}models/{MODEL}/")
    assert page.evaluate("document.querySelectorAll('table.configurations tbody tr').length") == len(
        doc["configurations"]
    )
    assert page.evaluate("document.querySelectorAll('table.configurations tbody tr.best').length") == len(doc["best"])
    charts = page.evaluate(IMAGES)
    assert len(charts) == 1
    assert all(done and w > 0 and h > 0 and shown > 0 for done, w, h, shown in charts), charts
    assert page.evaluate(OVERFLOW) <= 0, "the page scrolls sideways"
    assert page.evaluate("document.querySelector('h1').textContent") == doc["name"]
    page.screenshot(ARTIFACTS / f"model-{label}.png")

    assert page.errors() == []
    print(f"screenshots: {shot.parent}")
    assert Path(shot).stat().st_size > 10_000


def test_the_error_check_sees_console_errors(browsed) -> None:
    url, browser = browsed
    page = Page(browser, 800, 600)
    page.load(url)
    page.evaluate("console.error('probe from the test'); 1")
    page.evaluate("setTimeout(() => { throw new Error('thrown from the test') }, 0); 1")
    page.evaluate("new Promise(done => setTimeout(done, 200))")  # the timer has fired by then
    errors = " | ".join(page.errors())
    assert "probe from the test" in errors
    assert "thrown from the test" in errors
