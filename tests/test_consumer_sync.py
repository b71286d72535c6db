"""Every text a consumer reads names every workload, its unit and their count: the rules `builder
release` refuses by.

The texts (README's opening, the wheel's README, the data dictionary's workload list, CITATION.cff,
.zenodo.json, the wheel's summary, the archive's README) are checked by builder.release.consumer,
whose wording is pinned here case by case; the committed files must pass it. Also: the pre-commit
schema hook and the README's verify commands take each document's schema from datapackage.json.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from builder import card
from builder.release import consumer
from builder.release.rules import since_seed
from helpers import REPO

WORKLOADS = card.listed_workloads((REPO / "data" / "workloads.json").read_bytes())
TWO = [
    card.ListedWorkload(
        "text-conversation", "Text Conversation", "Wh per million output tokens", 18, 328
    ),
    card.ListedWorkload("text-to-image", "Text to Image", "Wh per 1,000 images", 7, 638),
]


def committed() -> dict[str, bytes]:
    return {name: (REPO / name).read_bytes() for name in consumer.TEXTS}


def test_every_committed_consumer_text_covers_every_workload() -> None:
    assert consumer.problems(committed()) == []


def test_the_summary_names_each_workload_by_unit_and_their_count() -> None:
    assert card.summary(TWO) == (
        "GPU energy of AI models per model and GPU, two workloads from the ML.ENERGY Leaderboard "
        "v3.0: "
        "Text Conversation in Wh per million output tokens; Text to Image in Wh per 1,000 images"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "two workloads: Text Conversation (Wh per million output tokens), Text to\nImage (Wh "
            "per 1,000 images)",
            [],
            id="a-name-wraps",
        ),
        pytest.param(
            "two workloads: text conversation (Wh per million output tokens), TEXT TO IMAGE (Wh "
            "per 1,000 images)",
            [],
            id="any-case",
        ),
        pytest.param(
            "two workloads: Text Conversation (Wh per million output tokens)",
            ["workload Text to Image", "unit Wh per 1,000 images"],
            id="a-workload-missing",
        ),
        pytest.param(
            "2 workloads: Text Conversation, Text to Image, in Wh per million output tokens",
            ["unit Wh per 1,000 images"],
            id="a-unit-missing",
        ),
        pytest.param(
            "Text Conversation (Wh per million output tokens), Text to Image (Wh per 1,000 images)",
            ["the count 'two workloads'"],
            id="the-count-missing",
        ),
        pytest.param(
            "three workloads: Text Conversation (Wh per million output tokens), Text to Image (Wh "
            "per 1,000 images)",
            ["the count 'two workloads'"],
            id="a-wrong-count",
        ),
    ],
)
def test_what_a_text_leaves_out(text: str, expected: list[str]) -> None:
    assert card.missing(text, TWO) == expected


def _without(name: str, old: str, new: str) -> dict[str, bytes]:
    files = committed()
    files[name] = files[name].replace(old.encode(), new.encode())
    return files


@pytest.mark.parametrize(
    ("name", "old", "new", "expected"),
    [
        pytest.param(
            "README.md",
            "Text to\nVideo",
            "Text2Video",
            "README.md (its opening): expected every workload, unit and their count, found no "
            "workload Text to Video",
            id="readme",
        ),
        pytest.param(
            "reader/README.md",
            "Wh per 1,000\nimages",
            "Wh/kimg",
            "reader/README.md (the wheel's README, its opening): expected every workload, unit "
            "and their count, found no unit Wh per 1,000 images",
            id="wheel-readme",
        ),
        pytest.param(
            "docs/data-dictionary.md",
            "| `problem-solving` | Problem Solving |",
            "| `problem-solving` | Problems |",
            "docs/data-dictionary.md (its ## Workloads section): expected every workload, unit "
            "and their count, found no workload Problem Solving",
            id="dictionary",
        ),
        pytest.param(
            "CITATION.cff",
            "seven workloads",
            "some workloads",
            "CITATION.cff: expected every workload, unit and their count, found no the count "
            "'seven workloads'",
            id="citation",
        ),
        pytest.param(
            ".zenodo.json",
            "Image Chat and Video Chat",
            "Image Chat",
            ".zenodo.json (description): expected every workload, unit and their count, found no "
            "workload Video Chat",
            id="zenodo",
        ),
        pytest.param(
            "metadata.toml",
            'repository = "https://github.com/leadgreen/leadgreen-data"',
            'repository = ""',
            "metadata.toml: repository: expected the repository URL, found none",
            id="empty-url",
        ),
        pytest.param(
            "metadata.toml",
            'repository = "https://github.com/leadgreen/leadgreen-data"',
            '# PLACEHOLDER\nrepository = "https://x.org/r"',
            "metadata.toml: repository: expected a decided URL, found https://x.org/r marked "
            "PLACEHOLDER",
            id="placeholder-url",
        ),
    ],
)
def test_a_text_that_misses_a_workload_is_one_problem(
    name: str, old: str, new: str, expected: str
) -> None:
    assert consumer.problems(_without(name, old, new)) == [expected]


def test_a_readme_past_12_kib_is_one_problem() -> None:
    files = committed()
    files["README.md"] += b"x" * (12 * 1024)
    assert consumer.problems(files) == [
        f"README.md: expected at most 12288 bytes, found {len(files['README.md'])}"
    ]


def test_the_archive_readme_covers_every_workload_with_its_counts() -> None:
    text = card.archive_readme(
        WORKLOADS, "v2026.11.29", "2026-11-29", "https://github.com/leadgreen/leadgreen-data"
    )
    assert card.missing(text, WORKLOADS) == []
    assert "| `text-to-image` | Text to Image | Wh per 1,000 images | 7 | 638 |" in text
    for w in WORKLOADS:
        assert f"| `{w.id}` | {w.name} | {w.unit} | {w.models} | {w.configurations} |" in text
    # what it says of datapackage.json is true: every file of data/, with its size and sha256
    assert "it names every file of `data/`, its\n  size and sha256" in text
    resources = json.loads((REPO / "datapackage.json").read_bytes())["resources"]
    data = REPO / "data"
    assert sorted(r["path"] for r in resources) == sorted(
        p.relative_to(REPO).as_posix() for p in data.rglob("*") if p.is_file()
    )
    assert all(r["bytes"] > 0 and r["hash"].startswith("sha256:") for r in resources)


def test_the_first_changelog_entry_lists_what_the_seed_lacked() -> None:
    paths = ["index.json", "models.json", "models/a.json", "workloads.json", "configurations.csv"]
    paths += ["workloads/text-to-image/index.json", "workloads/text-to-image/models/b.json"]
    paths += ["workloads/text-to-image/models/c.json", "workloads/text-to-image/configurations.csv"]
    assert "\n".join(since_seed(paths, TWO)) == (
        "Added since the v1 seed documents (text conversation's `index.json`, `models.json` and "
        "`models/<slug>.json`, data version 2026-09-27):\n\nWorkloads:\n\n"
        "- `text-to-image` (Text to Image): 7 models, 638 configurations, in Wh per 1,000 "
        "images\n\n"
        "Documents (in `data/`):\n\n- `configurations.csv`\n- `workloads.json`\n"
        "- `workloads/text-to-image/`: `configurations.csv`, `index.json`, `models/<slug>.json` "
        "(2)\n"
    )


# The one mapping from a document to its schema: datapackage.json's jsonSchema.

HOOKS = (REPO / ".pre-commit-config.yaml").read_text()
NAMED = {
    r["path"]: r["jsonSchema"]
    for r in json.loads((REPO / "datapackage.json").read_bytes())["resources"]
    if "jsonSchema" in r
}


def test_the_pre_commit_schema_hook_takes_every_documents_schema_from_the_descriptor() -> None:
    """One hook, no schema of its own, and its files pattern selects every document the
    descriptor names."""
    entries = re.findall(r"entry: (.*)", HOOKS)
    assert [e for e in entries if "check-data-schema" in e] == ["scripts/check-data-schema"]
    assert ".schema.json" not in HOOKS
    pattern = re.search(r"entry: scripts/check-data-schema\n\s+files: (.*)", HOOKS)
    assert pattern is not None
    assert sorted(p for p in NAMED if not re.search(pattern[1], p)) == []
    # every JSON file of data/ is named
    assert len(NAMED) == len(list((REPO / "data").rglob("*.json")))


def test_the_readmes_verify_commands_take_each_schema_from_the_descriptor() -> None:
    readme = (REPO / "README.md").read_text()
    block = readme[readme.index("### Verify a download") : readme.index("### Raw files at a tag")]
    assert '"jsonSchema"' in block
    assert re.findall(r"--schemafile (\S+)", block) == [
        '"$schema"',
        "schemas/datapackage.schema.json",
    ]


@pytest.mark.slow  # check-jsonschema, an outside tool, over every document
def test_the_pre_commit_schema_hook_passes_on_todays_data_and_names_a_stray_file(
    tmp_path: Path,
) -> None:
    import subprocess
    import sys

    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"}
    script = [str(REPO / "scripts" / "check-data-schema")]
    run = subprocess.run(
        [*script, *sorted(NAMED)], cwd=REPO, capture_output=True, text=True, env=env
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("ok -- validation done") == len(set(NAMED.values()))
    stray = subprocess.run(
        [*script, "data/stray.json"], cwd=REPO, capture_output=True, text=True, env=env
    )
    assert stray.returncode == 1
    assert (
        stray.stderr
        == "data/stray.json: expected a document datapackage.json names with its jsonSchema, "
        "found none\n"
    )
