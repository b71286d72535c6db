"""Helpers of the site tests: a package copy with a second workload, a local server, links of a
built site."""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import re
import shutil
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

REPO = Path(__file__).resolve().parent.parent
BASE = "https://leadgreen.ai"
WORKLOAD = "long-context"  # the synthetic second workload
WORKLOAD_MODELS = ("llama-3-1-8b-instruct", "qwen-3-8b")
PACKAGE = ("data", "schemas", "metadata.toml", "datapackage.json", "CITATION.cff")


def copy_package(root: Path) -> Path:
    root.mkdir(parents=True)
    for name in PACKAGE:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, root / name)
        elif (REPO / name).exists():
            shutil.copy2(REPO / name, root / name)
    return root


def _dump(path: Path, doc: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def add_workload(root: Path) -> Path:
    """A second workload as the workloads change will publish it: data/workloads.json and
    data/workloads/<id>/."""
    data, folder = root / "data", root / "data" / "workloads" / WORKLOAD
    api = f"{BASE}/api/v1/workloads/{WORKLOAD}"
    index = json.loads((data / "index.json").read_text(encoding="utf-8"))
    models = json.loads((data / "models.json").read_text(encoding="utf-8"))
    for slug in WORKLOAD_MODELS:
        doc = json.loads((data / "models" / f"{slug}.json").read_text(encoding="utf-8"))
        _dump(folder / "models" / f"{slug}.json", {**doc, "name": f"{doc['name']} (long context)"})
    index["workload"] = WORKLOAD
    index["rows"] = [
        {**r, "model": f"{r['model']} (long context)"}
        for r in index["rows"]
        if r["slug"] in WORKLOAD_MODELS
    ]
    index["reference_row"] = {k: index["rows"][0][k] for k in ("model", "gpu", "num_gpus")}
    models["models"] = [
        {
            **m,
            "name": f"{m['name']} (long context)",
            "url": f"{api}/models/{m['slug']}.json",
            "page": f"{BASE}/workloads/{WORKLOAD}/models/{m['slug']}/",
        }
        for m in models["models"]
        if m["slug"] in WORKLOAD_MODELS
    ]
    _dump(folder / "index.json", index)
    _dump(folder / "models.json", models)
    workloads = [
        {
            "id": "text-conversation",
            "index_url": f"{BASE}/api/v1/index.json",
            "models_url": f"{BASE}/api/v1/models.json",
        },
        {"id": WORKLOAD, "index_url": f"{api}/index.json", "models_url": f"{api}/models.json"},
    ]
    _dump(data / "workloads.json", {"version": "1", "workloads": workloads})
    return root


class _Quiet(http.server.SimpleHTTPRequestHandler):
    requested: list[str]

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.requested.append(self.path)
        super().do_GET()


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[tuple[str, list[str]]]:
    """Serve folder on 127.0.0.1 (a free port) in a thread; yields the base URL and the paths
    requested."""
    requested: list[str] = []
    handler = type("Handler", (_Quiet,), {"requested": requested})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(folder))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", requested
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


class Links(HTMLParser):
    """Every href and src of a page, and every id in it."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value is not None:
                self.links.append((tag, name, value))
            if name == "id" and value:
                self.ids.add(value)


def bare(html: str) -> str:
    """A page without its cells' data-label attributes and without link tags (their text stays)."""
    return re.sub(r"</?a\b[^>]*>", "", re.sub(r' data-label="[^"]*"', "", html))


def parse_html(path: Path) -> Links:
    parser = Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def file_of(site: Path, path: str) -> Path:
    """The file a site path names: `dir/` (or the root) is `dir/index.html`."""
    path = path.lstrip("/")
    if path == "" or path.endswith("/"):
        path += "index.html"
    return site / path


def url_to_file(site: Path, url: str) -> Path:
    """A public URL under BASE, as the file that serves it in the built site."""
    assert url == BASE or url.startswith(BASE + "/"), url
    return file_of(site, urlsplit(url).path)


def page_link_target(site: Path, page: Path, value: str) -> Path:
    """A relative link of a page, resolved against the page, as a file of the site."""
    resolved = urljoin("http://site.invalid/" + page.relative_to(site).as_posix(), value)
    return file_of(site, urlsplit(resolved).path)


def strings(node: Any) -> Iterator[tuple[str, str]]:
    """(key, value) of every string in a JSON value, at any depth (key "" for list items)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, str):
                yield key, value
            else:
                yield from strings(value)
    elif isinstance(node, list):
        for item in node:
            if isinstance(item, str):
                yield "", item
            else:
                yield from strings(item)
