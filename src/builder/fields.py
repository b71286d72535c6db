"""Field names of the published configurations that several modules spell: each workload kind's
energy, throughput and latency."""

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
