"""The built site in a real headless browser (Debian's chromium, driven over the DevTools pipe).

Every page kind, at a phone's width and a laptop's: no sideways scroll, no console error, and
axe-core (installed from the npm registry into a cache folder, never vendored) finds nothing; no
chart text outside its SVG. Screenshots are saved in tests/.artifacts/ (git-ignored).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from builder.site.build import build_site
from cdp import Browser, Page
from sitehelp import REPO, serve

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = REPO / "tests" / ".artifacts"
AXE_VERSION = "4.14.1"
AXE_HOME = Path(os.environ.get("LEADGREEN_AXE_DIR", Path.home() / ".cache" / "leadgreen-tests"))
AXE = AXE_HOME / "node_modules" / "axe-core" / "axe.min.js"
MODELS = json.loads((REPO / "data" / "models.json").read_bytes())["models"]
MODEL = max(MODELS, key=lambda m: len(m["gpus"]))["slug"]  # the first with the most GPU types
IMAGES = "[...document.images].map(i => [i.complete, i.naturalWidth, i.naturalHeight, i.getBoundingClientRect().width])"
OVERFLOW = "document.documentElement.scrollWidth - window.innerWidth"
PAGES = {  # one page of each kind
    "home": "",
    "workload": "workloads/text-conversation/",
    "model": f"models/{MODEL}/",
    "model-other-workload": "workloads/video-chat/models/qwen-3-vl-235b-a22b-instruct/",
    "generation-workload": "workloads/text-to-image/",
    "generation-model": "workloads/text-to-video/models/wan-2-1-14b/",
    "gpu": "gpus/b200/",
    "gpus": "gpus/",
    "workloads": "workloads/",
    "models": "models/",
    "glossary": "glossary/",
    "listing": "api/v1/",
    "not-found": "404.html",
}
CHARTS = (
    "workloads/text-conversation/energy-by-model.svg",
    f"models/{MODEL}/energy-latency.svg",
    "workloads/text-to-image/energy-by-model.svg",
    "workloads/text-to-video/models/wan-2-1-14b/energy-latency.svg",
)
AXE_RUN = (
    "axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map("
    "v => v.id + ': ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')))"
)
# Every <text> of an SVG opened on its own, measured against the SVG's own box (its viewBox, scaled).
TEXT_OUTSIDE = """(() => {
  const box = document.documentElement.getBoundingClientRect();
  return [...document.querySelectorAll('text')].map(t => [t.textContent, t.getBoundingClientRect()])
    .filter(([, r]) => r.width > 0 && (r.left < box.left - 0.5 || r.top < box.top - 0.5
                                       || r.right > box.right + 0.5 || r.bottom > box.bottom + 0.5))
    .map(([text]) => text);
})()"""

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
]


def axe_source() -> str | None:
    """axe-core's script, installed with npm into AXE_HOME on first use; None when that cannot be done."""
    if not AXE.is_file() and shutil.which("npm"):
        args = ["npm", "install", "--prefix", str(AXE_HOME), "--no-audit", "--no-fund", f"axe-core@{AXE_VERSION}"]
        subprocess.run(args, capture_output=True, timeout=300, check=False)
    return AXE.read_text(encoding="utf-8") if AXE.is_file() else None


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


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1366, 900)])
def test_every_page_kind_fits_the_window_and_loads_its_charts(browsed, width, height) -> None:
    url, browser = browsed
    page = Page(browser, width, height)
    for kind, path in PAGES.items():
        page.load(url + path)
        assert page.evaluate(OVERFLOW) <= 0, f"{kind} ({path}) scrolls sideways at {width} px"
        charts = page.evaluate(IMAGES)
        assert all(done and w > 0 and h > 0 and shown > 0 for done, w, h, shown in charts), (kind, charts)
        if kind in ("home", "workload", "model", "gpu"):
            page.screenshot(ARTIFACTS / f"{kind}-{width}.png")
    page.load(url + PAGES["model"])
    doc = json.loads((REPO / "data" / "models" / f"{MODEL}.json").read_bytes())
    assert page.evaluate("document.querySelectorAll('table.configurations tbody tr').length") == len(
        doc["configurations"]
    )
    assert page.evaluate("document.querySelector('h1').textContent") == f"{doc['name']} in Text Conversation"
    assert page.evaluate("document.querySelectorAll('img').length") == 1
    assert page.errors() == []


def test_axe_core_finds_no_violation_on_any_page_kind(browsed) -> None:
    source = axe_source()
    if source is None:
        pytest.skip(f"axe-core is not in {AXE_HOME} and npm could not install it")
    url, browser = browsed
    found = {}
    for width in (390, 1366):
        page = Page(browser, width, 900)
        for kind, path in PAGES.items():
            page.load(url + path)
            page.evaluate(source + "\n;1")
            violations = page.evaluate(AXE_RUN)
            if violations:
                found[f"{kind} at {width}"] = violations
    assert found == {}
    page.load(url + PAGES["listing"])
    page.evaluate(source + "\n;1")
    page.evaluate("document.querySelector('main').insertAdjacentHTML('beforeend', '<img src=\"x.svg\">'); 1")
    assert any(v.startswith("image-alt: ") for v in page.evaluate(AXE_RUN))  # the check can fail


def test_no_chart_text_overflows_its_svg(browsed) -> None:
    url, browser = browsed
    page = Page(browser, 1366, 900)
    for chart in CHARTS:
        page.load(url + chart)
        assert page.evaluate("document.querySelectorAll('text').length") > 5, chart
        assert page.evaluate(TEXT_OUTSIDE) == [], chart


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
