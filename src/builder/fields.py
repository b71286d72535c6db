"""Field names of the published documents that several modules spell: each workload kind's energy,
throughput and latency, an LLM response's energy and its output-length quantiles."""

# (energy in joules, headline energy, throughput) of a configuration, by workload kind
MEASURE_KEYS = {
    "llm": ("joules_per_output_token", "wh_per_million_output_tokens", "tokens_per_second"),
    "image": ("joules_per_image", "wh_per_thousand_images", "images_per_second"),
    "video": ("joules_per_video", "wh_per_video", "videos_per_second"),
}
# the latency of a configuration that its workload's limit and frontier use, by workload kind
LATENCY_FIELD = {"llm": "median_itl_ms", "image": "batch_latency_s", "video": "batch_latency_s"}
# a video's energy per second of its own length: the fields a kind adds after its energy
PER_SECOND = {"image": (), "video": ("wh_per_video_second",)}
# an LLM response's energy: joules, and Wh per 1,000 responses
RESPONSE_ENERGY = ("joules_per_response", "wh_per_thousand_responses")
# the output-length quantiles of a configuration, by the share of its responses below each
QUANTILES = {"median_output_tokens": 0.5, "p90_output_tokens": 0.9}
# a frontier entry's energy per response at a quantile's output length, by that quantile
QUANTILE_KEYS = {
    "joules_per_response_median": "median_output_tokens",
    "joules_per_response_p90": "p90_output_tokens",
}
