"""croissant.json, the MLCommons Croissant 1.0 card of the package: every CSV of datapackage.json
and its fields.

Pure: made from the descriptor alone (its table schemas, sizes and sha256s), so the same package
gives the same bytes.
"""

import json
from typing import Any

CROISSANT = "croissant.json"
CONFORMS_TO = "http://mlcommons.org/croissant/1.0"
CONTEXT = {  # the context Croissant 1.0 documents carry, as the specification gives it
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}
DATA_TYPES = {
    "string": "sc:Text",
    "number": "sc:Float",
    "integer": "sc:Integer",
    "boolean": "sc:Boolean",
}


def record_set(resource: dict[str, Any]) -> dict[str, Any]:
    """One CSV's record set: a field per column, read from that column of its file, its
    description as given."""
    name = resource["name"]
    fields = [
        {
            "@type": "cr:Field",
            "@id": f"{name}/{field['name']}",
            "name": field["name"],
            "description": field.get("description", ""),
            "dataType": DATA_TYPES.get(field.get("type", "string"), "sc:Text"),
            "source": {"fileObject": {"@id": f"{name}.csv"}, "extract": {"column": field["name"]}},
        }
        for field in resource["schema"]["fields"]
    ]
    return {
        "@type": "cr:RecordSet",
        "@id": name,
        "name": name,
        "description": resource["description"],
        "field": fields,
    }


def croissant(
    descriptor: dict[str, Any], summary: str, version: str, repository: str | None
) -> bytes:
    """The card's bytes: the dataset, a FileObject and a RecordSet per CSV resource, in the
    descriptor's order."""
    tables = [r for r in descriptor["resources"] if r.get("format") == "csv" and "schema" in r]
    files = [
        {
            "@type": "cr:FileObject",
            "@id": f"{r['name']}.csv",
            "name": f"{r['name']}.csv",
            "description": r["title"],
            "contentUrl": r["path"],
            "contentSize": f"{r['bytes']} B",
            "encodingFormat": "text/csv",
            "sha256": r["hash"].removeprefix("sha256:"),
        }
        for r in tables
    ]
    licence = descriptor["licenses"][0]
    card = {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": CONFORMS_TO,
        "name": descriptor["name"],
        "description": f"{summary}. {descriptor['description']}",
        "url": descriptor["homepage"],
        "sameAs": [repository] if repository else [],
        "license": licence.get("path", licence["name"]),
        "version": version,
        "datePublished": descriptor["version"],
        "citeAs": f"LeadGreen, leadgreen-data {version} (release tag v{version}), "
        f"{descriptor['homepage']}",
        "creator": {"@type": "sc:Organization", "name": "LeadGreen", "url": descriptor["homepage"]},
        "keywords": ["energy", "GPU", "inference", "large language models", "diffusion models"],
        "isBasedOn": [source["path"] for source in descriptor.get("sources", [])],
        "distribution": files,
        "recordSet": [record_set(r) for r in tables],
    }
    return (json.dumps(card, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode()
