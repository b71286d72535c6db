import pytest

from builder.names import slugify


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        pytest.param("Llama 3.1 8B Instruct", "llama-3-1-8b-instruct", id="documented-example"),
        pytest.param("NVIDIA Nemotron Nano 9B V2", "nvidia-nemotron-nano-9b-v2", id="upper-case"),
        pytest.param("Qwen 3 235B A22B Instruct FP8", "qwen-3-235b-a22b-instruct-fp8", id="plain"),
        pytest.param("  --Odd__name..(v2)--  ", "odd-name-v2", id="runs-and-ends-collapse"),
        pytest.param("PixArt-\u03a3", "pixart-sigma", id="greek-letter-by-name"),
        pytest.param("Caf\u00e9 \u00b5P", "cafe-mup", id="accents-dropped-micro-sign-is-mu"),
        pytest.param("Model \u4e2d", "model", id="other-non-ascii-dropped"),
        pytest.param("---", "", id="nothing-left"),
    ],
)
def test_slug_rule(name: str, slug: str) -> None:
    assert slugify(name) == slug
