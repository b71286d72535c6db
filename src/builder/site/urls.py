"""Public URLs to site paths and back, and relative links between site paths (pure)."""

from __future__ import annotations

import posixpath
from urllib.parse import urlsplit

from builder.errors import InputError

API_PREFIX = "api/v1/"


def site_path(url: str, base_url: str) -> str | None:
    """The file a public URL names, relative to the site root (`<base>/models/x/` -> `models/x/index.html`)."""
    base = base_url.rstrip("/")
    if url == base:
        return "index.html"
    if not url.startswith(base + "/"):
        return None
    rest = urlsplit(url[len(base) + 1 :]).path
    if rest == "" or rest.endswith("/"):
        rest += "index.html"
    parts = rest.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return None
    return rest


def require_path(url: object, base_url: str, where: str) -> str:
    """site_path, or an InputError that names the document and field holding the URL."""
    path = site_path(url, base_url) if isinstance(url, str) else None
    if path is None:
        raise InputError(f"{where}: expected a URL under {base_url}/, found {url!r}")
    return path


def api_path(data_rel: str) -> str:
    """Where a file of data/ is served: data/<rel> -> api/v1/<rel>."""
    return API_PREFIX + data_rel


def href(from_path: str, to_path: str) -> str:
    """A relative link from one site file to another; `x/index.html` is linked as `x/`."""
    start = posixpath.dirname(from_path) or "."
    target = to_path
    directory = target == "index.html" or target.endswith("/index.html")
    if directory:
        target = posixpath.dirname(target) or "."
    rel = posixpath.relpath(target, start)
    if directory:
        return "./" if rel == "." else rel + "/"
    return rel
