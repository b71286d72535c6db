"""The site's pure rules: energy per response from the CSV, pinned upstream links, the papers, the
changelog page, warnings on mixed output sizes, and the latency control's size and reach."""

from __future__ import annotations

import json
import re
import tomllib

import pytest

from builder.errors import InputError
from builder.site import changelog, provenance, responses, targets, views
from sitehelp import REPO

CSV = b"""workload,row_id,repeat,joules_per_response,wh_per_thousand_responses
text-conversation,a/B200/1/8,1,95.2279,26.45
text-conversation,a/B200/1/8,2,96.0,26.67
"""
RAW = "https://raw.githubusercontent.com/ml-energy/leaderboard/master/public/data/tasks/gpqa.json"
COMMIT = "0cd52dab897c5d91a45f4d413038f3b8b4251b0f"
X = "\N{MULTIPLICATION SIGN}"


def test_energy_per_response_is_the_csv_row_of_the_same_workload_row_and_repeat() -> None:
    found = responses.read(CSV, "data/configurations.csv")
    confs = [
        {"row_id": "a/B200/1/8"},
        {"row_id": "a/B200/1/8", "repeat": 2},
        {"row_id": "b/H100/1/8"},
    ]
    responses.add(confs, "text-conversation", found)
    assert confs[0] == {
        "row_id": "a/B200/1/8",
        "joules_per_response": 95.2279,
        "wh_per_thousand_responses": 26.45,
    }
    assert confs[1]["joules_per_response"] == 96.0
    assert confs[2] == {"row_id": "b/H100/1/8"}  # not in the CSV: no figure made up
    other = [{"row_id": "a/B200/1/8"}]
    responses.add(other, "problem-solving", found)
    assert other == [{"row_id": "a/B200/1/8"}]  # another workload's row


def test_a_csv_row_without_its_energy_per_response_is_one_line() -> None:
    with pytest.raises(InputError) as caught:
        responses.read(CSV.replace(b"95.2279", b"lots"), "data/configurations.csv")
    assert str(caught.value) == (
        "data/configurations.csv: line 2: expected a workload, row_id, repeat, "
        "joules_per_response and "
        "wh_per_thousand_responses, found ValueError: could not convert string to float: 'lots' "
        "(run builder validate)"
    )


def test_an_upstream_file_is_linked_at_its_pinned_commit_never_its_branch() -> None:
    assert provenance.pinned(RAW, COMMIT) == (
        f"https://raw.githubusercontent.com/ml-energy/leaderboard/{COMMIT}/public/data/tasks/gpqa.json"
    )
    assert (
        provenance.tree(RAW, COMMIT)
        == f"https://github.com/ml-energy/leaderboard/tree/{COMMIT}/public/data/tasks"
    )
    assert provenance.pinned(RAW, "") == RAW  # no commit known: the URL as published
    assert (
        provenance.pinned("https://example.org/a/b/c/d.json", COMMIT)
        == "https://example.org/a/b/c/d.json"
    )


def test_the_papers_are_the_two_citation_toml_names() -> None:
    cited = tomllib.loads((REPO / "citation.toml").read_text(encoding="utf-8"))["cff"]["references"]
    arxiv = {ref["url"] for ref in cited if "arxiv.org" in ref.get("url", "")}
    assert (
        {url for _, url, _ in provenance.PAPERS}
        == arxiv
        == {
            "https://arxiv.org/abs/2505.06371",
            "https://arxiv.org/abs/2601.22076",
        }
    )


def test_the_changelog_becomes_headings_items_and_paragraphs_with_no_html_passed_through() -> None:
    text = (
        "# Changelog\n\n## 2026-11-29\n\n- Added `frontier.json` for "
        "[gpqa](https://ml.energy/x)\n  and more\n"
        "- <script>alert(1)</script> [bad](javascript:alert(1))\n\nA paragraph\nin two "
        "lines.\n\n## 2026-09-27\n"
    )
    found = changelog.blocks(text)
    assert [(b.kind, b.id) for b in found] == [
        ("h2", "changelog"),
        ("h3", "2026-11-29"),
        ("li", ""),
        ("li", ""),
        ("p", ""),
        ("h3", "2026-09-27"),
    ]
    assert found[2].spans == [
        ("text", "Added ", ""),
        ("code", "frontier.json", ""),
        ("text", " for ", ""),
        ("link", "gpqa", "https://ml.energy/x"),
        ("text", " and more", ""),
    ]
    assert all(kind == "text" for kind, _, _ in found[3].spans)  # only https links become links
    assert found[4].spans == [("text", "A paragraph in two lines.", "")]
    assert changelog.version_anchor(found, "2026-09-27") == "2026-09-27"
    assert changelog.version_anchor(found, "2027-01-01") == ""
    shown = changelog.body(found)  # the page has its own h1: no "Changelog" heading, none skipped
    assert [(b.kind, b.id) for b in shown] == [
        ("h2", "2026-11-29"),
        ("li", ""),
        ("li", ""),
        ("p", ""),
        ("h2", "2026-09-27"),
    ]
    assert changelog.body(found[1:]) == shown
    assert changelog.body(shown) == shown


@pytest.mark.parametrize(
    ("sizes", "kind", "said"),
    [
        pytest.param([(832, 480, 81, 15, 50)] * 3, "video", "", id="one-size"),
        pytest.param(
            [(1280, 720, 129, 24, 50), (720, 480, 49, 8, 50)],
            "video",
            f"These rows mix video sizes (720 {X} 480 px, 49 frames; 1280 {X} 720 px, 129 "
            f"frames): energy per "
            "video compares only videos of one size.",
            id="videos",
        ),
        pytest.param(
            [(1024, 1024, None, None, 50), (1024, 1024, None, None, 28)],
            "image",
            f"These rows mix image sizes or denoising steps (1024 {X} 1024 px, 28 steps; 1024 {X} "
            f"1024 px, "
            "50 steps): energy per image depends on both.",
            id="image-steps",
        ),
        pytest.param([(None, None, None, None, None)] * 2, "video", "", id="no-size-published"),
    ],
)
def test_a_table_that_mixes_output_sizes_says_so_in_one_line(sizes, kind, said) -> None:
    assert views.mixed(sizes, kind) == said


def test_a_video_table_with_energy_per_second_says_what_compares_across_sizes() -> None:
    said = views.mixed([(1280, 720, 129, 24, 50), (720, 480, 49, 8, 50)], "video", per_second=True)
    assert said.endswith("energy per second of video compares across them.")


def test_a_configuration_size_is_its_resolution_frames_rate_and_steps() -> None:
    conf = {"width": 832, "height": 480, "num_frames": 81, "fps": 15, "inference_steps": 50}
    assert targets.size_of(conf) == (832, 480, 81, 15, 50)
    views.sized([conf])
    assert conf["resolution"] == f"832 {X} 480"


def test_the_latency_control_is_small_and_asks_nothing_of_any_other_site() -> None:
    script = REPO / "src" / "builder" / "site" / "templates" / "latency.js"
    text = script.read_text(encoding="utf-8")
    assert script.stat().st_size < 15_000
    assert not re.search(r"https?:|fetch\(|XMLHttpRequest|import\(|WebSocket|sendBeacon", text)
    assert "JSON.parse(source.textContent)" in text  # its data: the page's own JSON


def test_the_croissant_card_at_the_site_root_names_where_the_site_serves_each_file() -> None:
    card = (
        b'{"distribution": [{"contentUrl": "data/configurations.csv"}, {"contentUrl": '
        b'"https://x.org/a.csv"}],'
        b' "name": "d\xc3\xa9"}'
    )
    served = json.loads(provenance.served(card, "download/"))
    assert served == {
        "distribution": [
            {"contentUrl": "download/data/configurations.csv"},
            {"contentUrl": "https://x.org/a.csv"},
        ],
        "name": "d\N{LATIN SMALL LETTER E WITH ACUTE}",
    }
    with pytest.raises(InputError):
        provenance.served(b"[1, 2", "download/")
