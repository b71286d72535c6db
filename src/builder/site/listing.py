"""Site files about the site: a listing page for every folder without a page, the sitemap, robots.txt (pure)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from xml.sax.saxutils import escape

from builder.site import render, views

LISTED = {
    "api/v1/": "The JSON documents of the package, each described by a JSON Schema under /schemas/v1/.",
    "schemas/v1/": "The JSON Schemas (draft 2020-12) of the documents, each at the path of its $id.",
    "download/": "The package as its descriptor lays it out: datapackage.json, the data, the schemas.",
}


def size(n: int) -> str:
    """A file size for people: 812 bytes, 4.2 KB, 1.3 MB."""
    if n < 1000:
        return f"{n} bytes"
    if n < 1_000_000:
        return f"{n / 1000:.1f} KB"
    return f"{n / 1_000_000:.1f} MB"


def listings(files: dict[str, int], common: dict) -> Iterator[tuple[str, bytes]]:
    """A page listing its files and folders, with sizes, for every folder that has no index.html."""
    folders = {"/".join(path.split("/")[:i]) + "/" for path in files for i in range(1, path.count("/") + 1)}
    for folder in sorted(folders):
        page = folder + "index.html"
        if page in files:
            continue
        subs = sorted(f for f in folders if posixpath.dirname(f.rstrip("/")) + "/" == folder)
        entries = [(f[len(folder) :], f + "index.html", "folder") for f in subs]
        names = sorted(p for p in files if posixpath.dirname(p) + "/" == folder)
        entries += [(p[len(folder) :], p, size(files[p])) for p in names]
        parent = posixpath.dirname(folder.rstrip("/"))
        crumbs = [*views.HOME, *([(f"/{parent}/", f"{parent}/index.html")] if parent else [])]
        about = LISTED.get(folder, f"The files of the site under /{folder}.")
        context = views.frame(page, crumbs, common, folder=folder, about=about, entries=entries)
        yield page, render.render("listing.html", context)


def sitemap(files: dict[str, int], base_url: str, version: str) -> bytes:
    """Every page of the site but the 404 page, by its public URL, in path order."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    for path in sorted(p for p in files if p.endswith(".html") and p != "404.html"):
        url = f"{base_url}/{path.removesuffix('index.html')}"
        lines.append(f"<url><loc>{escape(url)}</loc><lastmod>{version}</lastmod></url>")
    lines.append("</urlset>")
    return ("\n".join(lines) + "\n").encode("utf-8")


def robots(base_url: str) -> bytes:
    return f"User-agent: *\nAllow: /\nSitemap: {base_url}/sitemap.xml\n".encode()
