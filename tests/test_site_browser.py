"""The built site in a real headless browser (Debian's chromium, driven over the DevTools pipe).

Every page kind, at a phone's width and a laptop's: no sideways scroll, no element wider than its
box, every table column visible, text and chart text large enough, no console error, and axe-core
(installed from the npm registry into a cache folder, never vendored) finds nothing; no chart text
outside its SVG; the latency control answers any target, and without JavaScript the pages still
answer at 50, 100 and 200 ms. Screenshots are saved in tests/.artifacts/ (git-ignored).
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

TIMES = "\N{MULTIPLICATION SIGN}"
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
    "changelog": "changelog/",
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
# Every <text> of an SVG opened on its own, measured against the SVG's own box (its viewBox,
# scaled).
TEXT_OUTSIDE = """(() => {
  const box = document.documentElement.getBoundingClientRect();
  return [...document.querySelectorAll('text')].map(t => [t.textContent, t.getBoundingClientRect()])
    .filter(([, r]) => r.width > 0 && (r.left < box.left - 0.5 || r.top < box.top - 0.5
                                       || r.right > box.right + 0.5 || r.bottom > box.bottom + 0.5))
    .map(([text]) => text);
})()"""

# Every element (but inline ones, and the table heads hidden on narrow windows) whose content is
# wider than its box.
OVERFLOWING = """(() => [...document.querySelectorAll('body *')].filter(e => {
  const s = getComputedStyle(e);
  if (s.display === 'inline' || s.display === 'none' || s.clipPath !== 'none' || e.closest('thead')) return false;
  return e.scrollWidth > e.clientWidth + 1;
}).map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className ? '.' + e.className : '') + ': '
  + e.scrollWidth + ' > ' + e.clientWidth))()"""
# Every table cell that is not fully in view, or whose column's heading is neither shown above it
# nor beside it.
HIDDEN_CELLS = """(() => {
  const found = [];
  for (const table of document.querySelectorAll('main table')) {
    const heads = [...table.querySelectorAll('thead th')].map(th => th.textContent.replace(/\\s+/g, ' ').trim());
    const headShown = table.querySelector('thead').getBoundingClientRect().height > 2;
    const box = (table.closest('.scroll') || table).getBoundingClientRect();
    for (const row of table.querySelectorAll('tbody tr')) {
      [...row.children].forEach((cell, i) => {
        const r = cell.getBoundingClientRect();
        const where = (table.id || table.className) + ' row ' + row.rowIndex + ' column ' + i;
        if (r.width < 1 || r.height < 1 || r.left < Math.max(box.left, 0) - 0.5
            || r.right > Math.min(box.right, innerWidth) + 0.5) found.push(where + ': out of view');
        if (i > 0 && !headShown) {
          const shown = getComputedStyle(cell, '::before').content;
          if (cell.dataset.label !== heads[i] || !shown.includes(heads[i])) found.push(where + ': no heading');
        }
      });
    }
  }
  return found;
})()"""
# Every visible element with text of its own and its font size in CSS px; paragraphs of prose must
# be 16 px.
SMALL_TEXT = """(() => [...document.querySelectorAll('body *')].filter(e =>
  [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()) && e.getBoundingClientRect().width > 0
  && !e.closest('thead') && parseFloat(getComputedStyle(e).fontSize) < (e.matches('main > p, main > ul > li, .lede')
  ? 16 : 13)).map(e => e.tagName.toLowerCase() + ' ' + getComputedStyle(e).fontSize + ': '
  + e.textContent.trim().slice(0, 40)))()"""
# The smallest chart text of each chart image as drawn: its font size in the SVG, scaled as the
# image is.
CHART_TEXT = """Promise.all([...document.querySelectorAll('figure.chart img')].map(img => fetch(img.src)
  .then(r => r.text()).then(text => {
    const svg = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
    const scale = img.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    const sizes = [...svg.querySelectorAll('text')].map(t => parseFloat(t.getAttribute('style')
      .match(/font-size: ?([0-9.]+)px/)[1]));
    return [img.getAttribute('src'), Math.min(...sizes) * scale];
  })))"""

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"
    ),
]


def axe_source() -> str | None:
    """axe-core's script, installed with npm into AXE_HOME on first use; None when it cannot be."""
    if not AXE.is_file() and shutil.which("npm"):
        args = [
            "npm",
            "install",
            "--prefix",
            str(AXE_HOME),
            "--no-audit",
            "--no-fund",
            f"axe-core@{AXE_VERSION}",
        ]
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
        assert page.evaluate(OVERFLOWING) == [], f"{kind} ({path}) at {width} px"
        assert page.evaluate(HIDDEN_CELLS) == [], f"{kind} ({path}) at {width} px"
        assert page.evaluate(SMALL_TEXT) == [], f"{kind} ({path}) at {width} px"
        for chart, smallest in page.evaluate(CHART_TEXT):
            assert smallest >= 11, (
                f"{kind} ({path}) at {width} px: {chart} text at {smallest:.1f} px"
            )
        charts = page.evaluate(IMAGES)
        assert all(done and w > 0 and h > 0 and shown > 0 for done, w, h, shown in charts), (
            kind,
            charts,
        )
        if kind in ("home", "workload", "model", "gpu", "generation-model"):
            page.screenshot(ARTIFACTS / f"{kind}-{width}.png")
    page.load(url + PAGES["model"])
    doc = json.loads((REPO / "data" / "models" / f"{MODEL}.json").read_bytes())
    assert page.evaluate(
        "document.querySelectorAll('table.configurations tbody tr').length"
    ) == len(doc["configurations"])
    assert (
        page.evaluate("document.querySelector('h1').textContent")
        == f"{doc['name']} in Text Conversation"
    )
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
    page.evaluate(
        "document.querySelector('main').insertAdjacentHTML('beforeend', '<img src=\"x.svg\">'); 1"
    )
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


def cells(page: Page, table: str) -> dict[str, dict[str, str]]:
    """A table's cells by row (its heading's text) and column (its data-label), as text."""
    script = f"""[...document.querySelectorAll('{table} tbody tr')].map(tr => [tr.querySelector('th').textContent,
      Object.fromEntries([...tr.querySelectorAll('td')].map(td => [td.dataset.label, td.textContent]))])"""
    return dict(page.evaluate(script))


LLAMA = "models/llama-3-1-70b-instruct/"
# Llama 3.1 70B under 75 ms: the lowest J per output token of the configurations at most that slow
AT_75 = {
    "B200": f"75.2295.23 J per response, 26.45 Wh per 1,0002 {TIMES} B200, 512 seqs, 63.7 ms",
    "H100": f"116.95147.4 J per response, 40.95 Wh per 1,0004 {TIMES} H100, 512 seqs, 73.9 ms",
}


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1366, 900)])
def test_the_latency_control_answers_75_ms_for_llama_3_1_70b(browsed, width, height) -> None:
    url, browser = browsed
    page = Page(browser, width, height)
    page.load(url + LLAMA)
    assert page.evaluate("document.getElementById('latency').hidden") is False
    assert page.evaluate("document.getElementById('latency-target').value") == "100"
    # the slider spans the smallest and largest measured latency; the box takes any target
    target, slider = (
        "document.getElementById('latency-target')",
        "document.getElementById('latency-range')",
    )
    assert page.evaluate(f"[{slider}.min, {slider}.max]") == ["16.4", "140.5"]
    assert page.evaluate(f"[{target}.min, {target}.max]") == ["0", ""]
    page.evaluate(
        "const t = document.getElementById('latency-target'); t.value = '75';"
        "t.dispatchEvent(new Event('input')); 1"
    )
    found = cells(page, "#latency-table")["Llama 3.1 70B Instruct"]
    assert found == {"Lowest on any GPU type": AT_75["B200"], **AT_75}
    assert page.evaluate("location.search") == "?target=75"
    page.load(url + LLAMA + "?target=75")  # the address keeps the choice
    assert cells(page, "#latency-table")["Llama 3.1 70B Instruct"] == found
    # a target of one's own is answered as typed: faster than any configuration, none qualifies
    page.evaluate(
        "const t = document.getElementById('latency-target'); t.value = '10';"
        "t.dispatchEvent(new Event('input')); 1"
    )
    assert set(cells(page, "#latency-table")["Llama 3.1 70B Instruct"].values()) == {
        "none this fast"
    }
    assert page.evaluate("document.getElementById('latency-note').textContent").startswith(
        "Target 10.0 ms; measured latencies run from 16.4 to 140.5 ms."
    )
    assert page.evaluate("location.search") == "?target=10"
    page.evaluate(
        "{ const t = document.getElementById('latency-target'); t.value = '-5';"
        "t.dispatchEvent(new Event('input')); } 1"
    )
    assert page.evaluate("document.getElementById('latency-note').textContent") == (
        "Type a latency target in ms, above 0."
    )
    page.load(url + LLAMA + "?target=1000")  # slower than any: the best of every configuration
    assert page.evaluate("document.getElementById('latency-target').value") == "1000"
    assert page.evaluate("document.getElementById('latency-caption').textContent").startswith(
        "Under 1,000.0 ms"
    )
    assert page.errors() == []


def test_the_workload_page_compares_two_models_at_75_ms_ranked_as_asked(browsed) -> None:
    url, browser = browsed
    page = Page(browser, 1366, 900)
    page.load(
        url + "workloads/text-conversation/?target=75&models=llama-3-1-70b-instruct,qwen-3-32b"
    )
    found = cells(page, "#latency-table")
    # lower energy per response first
    assert list(found) == [
        "Qwen 3 32B",
        "Llama 3.1 70B Instruct",
    ]
    assert found["Llama 3.1 70B Instruct"]["B200"] == AT_75["B200"]
    assert found["Qwen 3 32B"]["Lowest on any GPU type"].startswith("39.05")
    assert page.evaluate(
        "[...document.querySelectorAll('#latency-models input:checked')].map(b => b.value)"
    ) == ["llama-3-1-70b-instruct", "qwen-3-32b"]
    page.evaluate(
        "const b = document.querySelector('#latency-models input[value=\"qwen-3-8b\"]'); b.click(); 1"
    )
    assert "models=llama-3-1-70b-instruct%2Cqwen-3-32b%2Cqwen-3-8b" in page.evaluate(
        "location.search"
    )
    for slug in ("gemma-3-12b", "gemma-3-27b"):
        page.evaluate(
            f"document.querySelector('#latency-models input[value=\"{slug}\"]').click(); 1"
        )
    assert len(cells(page, "#latency-table")) == 4  # at most four: the fifth box is disabled
    assert page.evaluate(
        "document.querySelector('#latency-models input[value=\"gemma-3-27b\"]').disabled"
    )
    assert page.errors() == []


def test_without_javascript_every_page_still_answers_at_50_100_and_200_ms(browsed) -> None:
    url, browser = browsed
    page = Page(browser, 390, 844)
    page.send("Emulation.setScriptExecutionDisabled", {"value": True})
    page.load(url + LLAMA)
    # the control needs its script
    assert page.evaluate("document.getElementById('latency').hidden") is True
    targets = page.evaluate(
        "[...document.querySelectorAll('table.targets tbody th')].map(th => th.textContent)"
    )
    assert targets == ["Under 50 ms", "Under 100 ms", "Under 200 ms", "Any latency"]
    assert page.evaluate(
        "document.querySelector('#target-100 td[data-gpu=B200]').textContent"
    ).startswith("75.22")
    page.load(url + "workloads/text-conversation/")
    heads = page.evaluate(
        "[...document.querySelectorAll('#compare-table thead th')].map(th => th.textContent)"
    )
    assert heads == ["Model", "Under 50 ms", "Under 100 ms", "Under 200 ms"]
    page.load(url + "gpus/h100/")
    assert "Under 200 ms" in page.evaluate("document.querySelector('table.gpu thead').textContent")
    for path in (LLAMA, "workloads/text-conversation/", "gpus/h100/", "models/"):
        page.load(url + path)
        links = page.evaluate(
            "[...document.querySelectorAll('footer a')].map(a => a.getAttribute('href'))"
        )
        assert any(link.endswith("download/") for link in links), path  # the data, from every page
