"""Release artifacts: a reproducible archive, a manifest of checksums, and SHA256SUMS."""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import io
import json
import tarfile
from typing import Any

CONTENTS = ("data", "schemas", "datapackage.json", "CHANGELOG.md", "CITATION.cff", "LICENSE", "DATA-LICENCE.md")
OPTIONAL = ("CITATION.cff",)  # archived when the commit has it


def archive(files: dict[str, bytes], top: str, date: str) -> bytes:
    """A .tar.gz whose bytes depend only on the files, the folder name and the date."""
    mtime = int(dt.datetime.fromisoformat(date).replace(tzinfo=dt.UTC).timestamp())
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for rel, data in files.items():
            info = tarfile.TarInfo(f"{top}/{rel}")
            info.size, info.mtime, info.mode = len(data), mtime, 0o644
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), mtime=0)


def manifest(files: dict[str, bytes], tag: str, data_version: str, api: str, lock: dict[str, Any]) -> bytes:
    entries = [
        {"path": rel, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()} for rel, data in files.items()
    ]
    doc = {"name": "leadgreen-data", "tag": tag, "data_version": data_version, "api_version": api, "upstream": lock}
    doc["files"] = entries
    return (json.dumps(doc, indent=2, allow_nan=False) + "\n").encode()


def sha256sums(named: dict[str, bytes]) -> bytes:
    """`sha256sum -c` format: '<hex>  <name>' per line."""
    return "".join(f"{hashlib.sha256(data).hexdigest()}  {name}\n" for name, data in named.items()).encode()
