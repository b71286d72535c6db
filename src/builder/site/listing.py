"""Site files about the site: a listing page for every folder without a page, the sitemap, robots.txt (pure)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from xml.sax.saxutils import escape

from builder.errors import InputError
from builder.site import render, views
from builder.site.urls import href

LISTED = {
    "api/v1/": "The JSON documents of the package, each described by a JSON Schema under /schemas/v1/.",
    "schemas/v1/": "The JSON Schemas (draft 2020-12) of the documents, each at the path of its $id.",
    "download/": "The package as its descriptor lays it out: datapackage.json, the data, the schemas.",
}
NOT_LISTED = {"404.html"}


class Written:
    """The site's files so far, by path and size (one file per path), for the listings and the home page."""

    def __init__(self) -> None:
        self.sizes: dict[str, int] = {}

    def file(self, path: str, data: bytes) -> tuple[str, bytes]:
        """Record one site file and hand it on to be written; two files for one path is an error."""
        if path in self.sizes:
            raise InputError(
                f"site: two files would be written at {path}; expected each page and document at its own path"
            )
        self.sizes[path] = len(data)
        return path, data


def size(n: int) -> str:
    """A file size for people: 812 bytes, 4.2 KB, 1.3 MB."""
    if n < 1000:
        return f"{n} bytes"
    if n < 1_000_000:
        return f"{n / 1000:.1f} KB"
    return f"{n / 1_000_000:.1f} MB"


def folders(files: dict[str, int]) -> set[str]:
    """Every folder that holds a site file, as 'a/b/' (the root is '')."""
    found = {""}
    for path in files:
        parts = path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            found.add("/".join(parts[:i]) + "/")
    return found


def listings(site: Written, common: dict) -> Iterator[tuple[str, bytes]]:
    """A page listing its files and folders, with sizes, for every folder that has no index.html."""
    files = dict(site.sizes)
    all_folders = folders(files)
    subs_of: dict[str, list[str]] = {}
    for f in sorted(all_folders - {""}):
        parent = posixpath.dirname(f.rstrip("/"))
        subs_of.setdefault(f"{parent}/" if parent else "", []).append(f)
    names_of: dict[str, list[str]] = {}
    for p in sorted(files):
        names_of.setdefault(posixpath.dirname(p) + "/", []).append(p)
    for folder in sorted(all_folders - {""}):
        page = folder + "index.html"
        if page in files:
            continue
        subs, names = subs_of.get(folder, []), names_of.get(folder, [])
        entries = [{"label": f[len(folder) :], "href": href(page, f + "index.html"), "size": "folder"} for f in subs]
        entries += [{"label": posixpath.basename(p), "href": href(page, p), "size": size(files[p])} for p in names]
        parent = posixpath.dirname(folder.rstrip("/"))
        crumbs = [("Home", "index.html")] + ([(f"/{parent}/", f"{parent}/index.html")] if parent else [])
        title = f"Index of /{folder}"
        about = LISTED.get(folder, f"The files of the site under /{folder}.")
        context = {**views.frame(page, title, about, crumbs, common), "about": about, "entries": entries}
        yield site.file(page, render.render("listing.html", context))


def sitemap(files: dict[str, int], base_url: str, version: str) -> bytes:
    """Every page of the site, by its public URL, in path order."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    for path in sorted(p for p in files if p.endswith(".html") and p not in NOT_LISTED):
        url = f"{base_url}/{path.removesuffix('index.html')}"
        lines.append(f"<url><loc>{escape(url)}</loc><lastmod>{version}</lastmod></url>")
    lines.append("</urlset>")
    return ("\n".join(lines) + "\n").encode("utf-8")


def robots(base_url: str) -> bytes:
    return f"User-agent: *\nAllow: /\nSitemap: {base_url}/sitemap.xml\n".encode()
