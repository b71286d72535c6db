"""Public URLs to site paths, and relative links between site paths (pure)."""

from __future__ import annotations

import posixpath
from urllib.parse import urlsplit

from builder.errors import InputError

API_PREFIX = "api/v1/"


def require_path(url: object, base_url: str, where: str) -> str:
    """The site path a public URL names (`<base>/models/x/` -> `models/x/index.html`), or an InputError naming where."""
    rest = None
    if url == base_url:
        rest = "index.html"
    elif isinstance(url, str) and url.startswith(base_url + "/"):
        rest = urlsplit(url[len(base_url) + 1 :]).path
        if rest == "" or rest.endswith("/"):
            rest += "index.html"
    if rest is None or any(part in ("", ".", "..") for part in rest.split("/")):
        raise InputError(f"{where}: expected a URL under {base_url}/, found {url!r}")
    return rest


def href(from_path: str, to_path: str) -> str:
    """A relative link from one site file to another; `x/index.html` is linked as `x/`."""
    start = posixpath.dirname(from_path) or "."
    if to_path == "index.html" or to_path.endswith("/index.html"):
        rel = posixpath.relpath(posixpath.dirname(to_path) or ".", start)
        return "./" if rel == "." else rel + "/"
    return posixpath.relpath(to_path, start)
