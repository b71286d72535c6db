"""Where every page's figures come from: upstream files at their pinned commits, the papers, the
licence, and the schema.org Dataset markup every page carries (pure)."""

import json
from typing import Any
from urllib.parse import urlsplit

from builder.site.load import Package, document

RAW_HOST = "raw.githubusercontent.com"
PAPERS = (  # the two ML.ENERGY papers citation.toml lists (a test holds them equal)
    (
        "The ML.ENERGY Benchmark: Toward Automated Inference Energy Measurement and Optimization "
        "(NeurIPS 2025)",
        "https://arxiv.org/abs/2505.06371",
        "arXiv 2505.06371",
    ),
    (
        "Where Do the Joules Go? Diagnosing Inference Energy Consumption (2026)",
        "https://arxiv.org/abs/2601.22076",
        "arXiv 2601.22076",
    ),
)


def pinned(data_url: str, commit: str) -> str:
    """An upstream raw file URL with its branch replaced by the commit it was pinned at; as given
    otherwise."""
    parts = urlsplit(data_url)
    segments = parts.path.split("/")  # "", owner, repository, branch, path...
    if parts.scheme != "https" or parts.netloc != RAW_HOST or len(segments) < 5 or not commit:
        return data_url
    return parts._replace(path="/".join([*segments[:3], commit, *segments[4:]])).geturl()


def tree(data_url: str, commit: str) -> str:
    """The GitHub page of the upstream repository at the commit (the folder of data_url), or ""
    when unknown."""
    parts = urlsplit(data_url)
    segments = parts.path.split("/")
    if parts.scheme != "https" or parts.netloc != RAW_HOST or len(segments) < 5 or not commit:
        return ""
    return (
        f"https://github.com/{segments[1]}/{segments[2]}/tree/{commit}/{'/'.join(segments[4:-1])}"
    )


def sources(pkg: Package) -> list[dict[str, str]]:
    """The descriptor's upstream files: title, URL at the pinned commit, and the commit."""
    listed = pkg.descriptor_doc.get("sources")
    found = []
    for item in listed if isinstance(listed, list) else []:
        if (
            isinstance(item, dict)
            and isinstance(item.get("path"), str)
            and isinstance(item.get("version"), str)
        ):
            url, commit = item["path"], item["version"]
            found.append(
                {
                    "title": str(item.get("title", "")),
                    "url": pinned(url, commit),
                    "commit": commit,
                    "tree": tree(url, commit),
                }
            )
    return found


def dataset(
    pkg: Package, version: str, licences: list[tuple[str, str]], downloads: list[str]
) -> dict[str, Any]:
    """schema.org Dataset markup of the package (JSON-LD); downloads: site paths of its CSV and
    JSON files."""
    doc = pkg.descriptor_doc
    upstream = sources(pkg)
    found: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "Dataset",
        "name": str(doc.get("title") or doc.get("name") or "LeadGreen"),
        "description": " ".join(
            [
                "GPU energy per output token, per response, per image and per video of AI models, "
                "per model and GPU",
                "setup, from the ML.ENERGY Leaderboard.",
                str(doc.get("description", "")),
            ]
        ).strip(),
        "url": pkg.base_url + "/",
        "version": version,
        "dateModified": version,
        "creator": {"@type": "Organization", "name": "LeadGreen", "url": pkg.base_url + "/"},
        "isAccessibleForFree": True,
        "citation": [url for _, url, _ in PAPERS],
        "isBasedOn": sorted({s["tree"] for s in upstream if s["tree"]}),  # upstream at its commit
        "distribution": [data_download(pkg.base_url, path) for path in downloads],
    }
    if licences:
        found["license"] = licences[0][1]
    return found


def data_download(base_url: str, path: str) -> dict[str, str]:
    """A schema.org DataDownload of one site file."""
    kind = "text/csv" if path.endswith(".csv") else "application/json"
    return {"@type": "DataDownload", "encodingFormat": kind, "contentUrl": f"{base_url}/{path}"}


def served(card: bytes, folder: str) -> bytes:
    """The Croissant card with each relative contentUrl led into folder, where the site serves the
    files it names
    (a card at the site root names data/x.csv; the site serves it at download/data/x.csv)."""
    doc = document("croissant.json", card, "")

    def lead(node: Any) -> Any:
        if isinstance(node, dict):
            return {
                k: folder + v
                if k == "contentUrl"
                and isinstance(v, str)
                and not urlsplit(v).scheme
                and not v.startswith("/")
                else lead(v)
                for k, v in node.items()
            }
        return [lead(item) for item in node] if isinstance(node, list) else node

    return (json.dumps(lead(doc), indent=2, ensure_ascii=False) + "\n").encode("utf-8")
