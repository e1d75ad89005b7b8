"""The official boards: which (dataset, config, target) the leaderboard ranks, and which reference
baselines each must list.

Why a declared list: a dataset config exposes many label columns (nnlqp alone has 17 platform
targets, every measured config a drift-calibrated twin of its latency), and a board is worth
having only where every reference baseline has been run on it; otherwise a new method is
"best" against half the field. As OGB fixes one metric per dataset, the project fixes its boards
here; entries on any other target are still recorded and shown, under "additional boards", and
nothing stops a researcher from studying them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from perfgraphs.registry import get_dataset


@dataclass(frozen=True)
class Board:
    dataset: str  # registry name, as in the results records
    config: str
    target: str
    why: str

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.dataset, self.config, self.target)


NNLQP_BOARD_PLATFORM = "timm-rtx4090-amp-nchw-pt240-cu124"

BOARDS: tuple[Board, ...] = (
    Board("perfgraphs/dippm", "cpu-torch-fp32", "latency_ms", "DIPPM's latency, on our CPU core"),
    Board("perfgraphs/dippm", "cpu-torch-fp32", "peak_memory_mb", "DIPPM's memory, on our CPU core"),
    Board("perfgraphs/dippm", "h200-torch-fp32", "latency_ms", "DIPPM's latency on a data-centre GPU (the research's setting)"),
    Board("perfgraphs/dippm", "h200-torch-fp32", "energy_j", "DIPPM's energy: the only measured energy label of a graph dataset here"),
    Board("perfgraphs/trappm", "cpu-torch-fp32", "step_time_ms", "TraPPM's training-step time"),
    Board("perfgraphs/trappm", "cpu-torch-fp32", "peak_memory_mb", "TraPPM's training memory"),
    Board("perfgraphs/nnlqp", "timm-platforms", f"latency_per_sample_ms__{NNLQP_BOARD_PLATFORM}",
          "one GPU platform of timm's published results (RTX 4090, AMP, torch 2.4, CUDA 12.4)"),
    Board("perfgraphs/llm", "mlenergy", "energy_per_token_joules", "ML.ENERGY's energy per token (H100/B200 serving)"),
    Board("perfgraphs/llm", "mlenergy", "median_itl_ms", "ML.ENERGY's inter-token latency"),
    Board("perfgraphs/llm", "mlenergy", "output_throughput_tokens_per_sec", "ML.ENERGY's token throughput"),
    Board("perfgraphs/llm", "cpu-torch-fp32", "latency_ms", "encoder LLM forward latency on our CPU core"),
    Board("perfgraphs/llm", "cpu-torch-fp32", "throughput_samples_per_s", "the LLM paper's throughput T"),
    Board("perfgraphs/llm", "cpu-torch-fp32", "peak_memory_mb", "the LLM paper's peak memory M_peak"),
)

# Reference baselines (folders of leaderboard/reference/) and the config kinds they apply to:
# graph predictors need graphs; llm-xgboost needs the LLM tabular features; the static-feature
# models run on either.
REFERENCE_BASELINES: dict[str, frozenset[str]] = {
    "layerwise-linear": frozenset({"graphs"}),
    "static-xgboost": frozenset({"graphs", "tabular"}),
    "static-mlp": frozenset({"graphs", "tabular"}),
    "dippm-sage": frozenset({"graphs"}),
    "nnlqp-gnn": frozenset({"graphs"}),
    "trappm": frozenset({"graphs"}),
    "llm-xgboost": frozenset({"tabular"}),
}
REFERENCE_DIR = Path(__file__).resolve().parent / "reference"


def official(dataset: str, config: str, target: str) -> Board | None:
    return next((b for b in BOARDS if b.key == (dataset, config, target)), None)


def applicable_baselines(board: Board) -> list[str]:
    kind = get_dataset(board.dataset).config(board.config).kind
    return [name for name, kinds in REFERENCE_BASELINES.items() if kind in kinds]


def reference_method(baseline: str, entry_method: str) -> bool:
    """Whether a recorded method name is that reference baseline's (``<name>`` or ``<name> (quick…)``)."""
    return entry_method == baseline or entry_method.startswith(baseline + " (")


def missing_reference_entries(results: Path | None = None) -> dict[Board, list[str]]:
    """Per official board, the applicable reference baselines without a verified public entry on
    the board's current build (an entry on an earlier build is not ranked, so it does not count)."""
    from perfgraphs.leaderboard.builds import pins_file, read_pins, split_by_build
    from perfgraphs.leaderboard.records import read_entries

    missing: dict[Board, list[str]] = {}
    pins = read_pins(pins_file(results))
    by_dataset = {d: read_entries(d.split("/")[-1], results) for d in {b.dataset for b in BOARDS}}
    for board in BOARDS:
        on_board = [e for e in by_dataset[board.dataset] if (e.config, e.target) == (board.config, board.target)
                    and e.test_set == "public"]
        _, current, _ = split_by_build(on_board, pins.get(f"{board.dataset} {board.config}"))
        entries = [e for e in current if e.tier == "verified"]
        absent = [b for b in applicable_baselines(board) if not any(reference_method(b, e.method) for e in entries)]
        if absent:
            missing[board] = absent
    return missing
