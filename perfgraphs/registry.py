"""The one table of datasets, configs, targets and versions.

Loaders, the Evaluator and the leaderboard all read this table (as OGB's master table): a name,
unit or version is defined here and nowhere else.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

from perfgraphs.errors import PerfgraphsError


class UnknownDatasetError(PerfgraphsError):
    """A dataset, config or target name the registry does not know."""


PLATFORM_SEPARATOR = "__"

# Names that datasets and configs share with other things. A name is written once, here (the bottom
# layer), and every table that uses it refers to the constant: the kinds of a config's rows; the
# papers whose featurizer, measurement protocol and reference baseline carry their name; the
# platform the CPU configs are named after (perfgraphs.collect.platforms); the importer the
# ML.ENERGY config is named after (perfgraphs.data.build_inputs).
GRAPH_ROWS, TABULAR_ROWS = "graphs", "tabular"
DIPPM, TRAPPM = "dippm", "trappm"
CPU_TORCH_FP32 = "cpu-torch-fp32"
MLENERGY = "mlenergy"


@dataclass(frozen=True)
class Target:
    name: str  # unit-suffixed column name, e.g. latency_ms
    unit: str
    description: str
    positive: bool = True  # predictions must be > 0
    # what the number answers, for perfgraphs.predict: targets with one question (wall-clock and CPU
    # time of a forward pass) are alternatives, one recommended; "" is a question of its own
    question: str = ""
    # a time that bounds the roofline's from above (the machine cannot run the graph faster):
    # "batch" per forward or training step of the graph at its batch, "sample" per sample
    roofline_per: str = ""

    @property
    def asks(self) -> str:
        return self.question or self.name


@dataclass(frozen=True)
class Board:
    """An official leaderboard board of a config: one target, ranked with every reference baseline
    of the config's kind (:func:`perfgraphs.baselines.catalog.reference_baselines`), under the
    config's official protocol (its first ``split_protocols`` entry). Entries under the config's other protocols are kept on
    secondary boards of the same target."""
    target: str
    why: str


PREDICT_MODES = ("infer", "train")


@dataclass(frozen=True)
class Config:
    name: str
    description: str
    kind: str  # GRAPH_ROWS (one graph per row) or TABULAR_ROWS
    targets: tuple[Target, ...] = ()
    platform: str | None = None  # measurement platform of the labels, if any
    suite: str | None = None  # the store under data/measurements/ that holds those measurements
    split_protocols: tuple[str, ...] = ()
    # Multi-platform configs label each target once per platform, in columns
    # ``<target>__<platform>``; those names are targets of their own. The platforms are not listed
    # here: they are discovered from these sources (perfgraphs.data.platforms.SOURCES: imported
    # result files, our stores), and a built config's manifest records those it holds.
    platform_sources: tuple[str, ...] = ()
    # the hardware the labels were measured on, as cards and boards name it (a CPU config's
    # labels belong to one machine: perfgraphs.collect.store.hardware_identity)
    hardware: str | None = None
    # a configuration enters a build once it has this many ok rounds (perfgraphs.collect.rounds);
    # rows the quiet gate flagged are left out
    min_rounds: int = 1
    # the builder of this config (a module of perfgraphs.data.recipes): code is chosen by this
    # attribute, never by a dataset or config name
    recipe: str = ""
    # what the recipe reads, as "<kind>:<name>": "pool" (the committed graph pool), "suite:<store>"
    # (data/measurements/<store>; "suite:*" every store), "external:<importer>" (a public source in the user's cache),
    # "config:<dataset>/<config>" (another config's build)
    sources: tuple[str, ...] = ()
    # how the config is evaluated: "holdout" trains on the train part and scores the test part of
    # each seed's split; "cv-folds" predicts every row once from a model trained on the other folds
    # (the ``fold`` column) and scores the pooled out-of-fold predictions
    evaluation: str = "holdout"
    # cv-folds configs: the columns of held-out rows a predictor may see (the leaderboard harness's
    # allow-list); outcomes of a run are not listed, so they and any column added later stay hidden
    input_columns: tuple[str, ...] = ()
    # first-version CPU configs: the probe of their two noise-floor rounds (data/measurements/noise-floor/)
    noise_probe_file: str | None = None
    # a store that measured this config's test part again (perfgraphs.data.visits_plan; its rows carry
    # the keys of this config's store): each test label's own value and its visits are the label's
    # repetitions, which the boards resample and the test part's noise floor is measured on
    # (perfgraphs.data.repeats). The labels stay the config's own measurements.
    repeat_suite: str | None = None
    boards: tuple[Board, ...] = ()
    # which question of ``perfgraphs.predict`` this config's labels answer: "infer" (a forward pass)
    # or "train" (a training step); None: predict does not serve it (perfgraphs.predict.platforms)
    predict_mode: str | None = None
    # the protocol of leaderboard records written before records named theirs (None: the official
    # one); perfgraphs/llm's were scored on the stratified folds before leave-models-out became official
    unrecorded_protocol: str | None = None

    @property
    def official_protocol(self) -> str | None:
        """The protocol the config's boards rank (its first split protocol)."""
        return self.split_protocols[0] if self.split_protocols else None

    def scoring_protocol(self, recorded: str = "") -> str:
        """The protocol an entry of this config was scored under: the one it records, else (a
        record from before entries named it, or a graph config's standard split) the config's
        ``unrecorded_protocol``, else its official one."""
        return recorded or self.unrecorded_protocol or self.official_protocol or ""

    @property
    def platforms(self) -> tuple[str, ...]:
        """The platform names of a multi-platform config: its build's, else its sources' now
        (:func:`perfgraphs.data.platforms.config_platforms`)."""
        if not self.platform_sources:
            return ()
        return discovery().config_platforms(self)

    def target(self, name: str) -> Target:
        for t in self.targets:
            if t.name == name:
                return t
        base, sep, platform = name.partition(PLATFORM_SEPARATOR)
        if sep and self.platform_sources:
            for t in self.targets:
                if t.name == base:
                    platforms = self.platforms
                    if platform not in platforms:
                        raise UnknownDatasetError(
                            f"config {self.name!r} has no platform {platform!r} (platforms: {', '.join(platforms)}; "
                            f"found in its sources {', '.join(self.platform_sources)}, or its build's manifest)")
                    return Target(name, t.unit, f"{t.description} on {platform}", t.positive, t.question,
                                  t.roofline_per)
        per_platform = f" (per platform: <target>{PLATFORM_SEPARATOR}<platform>)" if self.platform_sources else ""
        raise UnknownDatasetError(
            f"config {self.name!r} has no target {name!r} "
            f"(targets: {', '.join(t.name for t in self.targets) or 'none'}{per_platform})"
        )

    def source(self, kind: str) -> str | None:
        """The name of this config's first source of a kind ("suite", "external", "config")."""
        return next((s.split(":", 1)[1] for s in self.sources if s.startswith(f"{kind}:")), None)

    def platform_targets(self, name: str) -> list[str]:
        """Every per-platform column of target ``name``."""
        self.target(name)
        return [f"{name}{PLATFORM_SEPARATOR}{p}" for p in self.platforms]


@dataclass(frozen=True)
class StoreConfigs:
    """How a store of our measurements becomes a config of a dataset with no registry edit
    (:func:`perfgraphs.data.platforms.store_configs`): a store whose rows follow ``protocol`` in
    ``mode`` on a collector platform of ``device`` is a config named ``<hardware>-<runtime>-
    <precision>`` (``h200-torch-fp32``). Stores a config names by hand (its ``suite``) keep it."""

    protocol: str  # the rows' measurement protocol (perfgraphs.collect plans), e.g. "dippm"
    mode: str  # "inference" | "training"
    device: str  # collector device: "cuda" (a CPU store is one machine's: registered by hand)
    targets: tuple[Target, ...]
    split_protocols: tuple[str, ...]
    description: str  # formatted with {device} (the hardware), {store} and {platform}
    recipe: str  # the recipe that builds such a config (perfgraphs.data.recipes)
    sources: tuple[str, ...] = ()  # read besides the store itself ("suite:<store>" is added)


@dataclass(frozen=True)
class Dataset:
    name: str
    version: str  # semver of its first release; later versions follow content (data/releases.json)
    description: str
    license: str
    configs: tuple[Config, ...]
    family_counts: dict[str, int] = field(default_factory=dict)
    store_configs: StoreConfigs | None = None

    @property
    def default_config(self) -> Config:
        return self.configs[0]

    def config(self, name: str | None) -> Config:
        if name is None:
            return self.default_config
        for c in self.configs:
            if c.name == name:
                return c
        raise UnknownDatasetError(
            f"dataset {self.name} has no config {name!r} (configs: {', '.join(c.name for c in self.configs)})"
        )


FORWARD_TIME = "time of a forward pass of the batch"
STEP = "time of a training step"
LATENCY = Target("latency_ms", "ms", "inference latency per batch (median of timed runs)", question=FORWARD_TIME,
                 roofline_per="batch")
LATENCY_CAL = Target("latency_calibrated_ms", "ms", "latency corrected for machine drift with a reference workload",
                     question=FORWARD_TIME, roofline_per="batch")
MEMORY = Target("peak_memory_mb", "MB", "peak memory during the measured runs")
ENERGY = Target("energy_j", "J", "GPU board energy per batch (NVML energy counter)")
STEP_TIME = Target("step_time_ms", "ms", "training step time (forward + backward + optimizer)", question=STEP,
                   roofline_per="batch")
THROUGHPUT = Target("throughput_samples_per_s", "samples/s", "samples processed per second")
ENERGY_TOKEN = Target("energy_per_token_joules", "J/token", "GPU energy per output token")
ITL = Target("median_itl_ms", "ms", "median inter-token latency")
PER_SAMPLE_LATENCY = Target("latency_per_sample_ms", "ms",
                            "latency per sample: 1000 / measured throughput (batch latency at batch 1)",
                            roofline_per="sample")
CPU_TIME = Target("cpu_time_ms", "ms", "CPU time of the measuring thread per batch (median of timed runs, "
                  "mean of the rounds); the primary CPU label: unlike wall time it does not count other "
                  "processes sharing the core", question=FORWARD_TIME, roofline_per="batch")
CPU_STEP_TIME = Target("cpu_time_ms", "ms", "CPU time of the measuring thread per training step (forward + "
                       "backward + optimizer; median of timed steps, mean of the rounds)", question=STEP,
                       roofline_per="batch")
TOKEN_THROUGHPUT = Target("output_throughput_tokens_per_sec", "tokens/s", "generated tokens per second")

# The one machine our first CPU campaigns ran on (all committed CPU rows: machine_id 23059b2f5925f901).
EPYC_VM = "AMD EPYC (KVM guest, 2 vCPUs, 1 thread per core, 32 MiB L3), machine 23059b2f"
EPYC_VM_TAG = "amd-epyc-23059b2f"  # perfgraphs.collect.environment.machine_tag() there

# Suites measured as test sets of something else (plans/predict-heldout.yaml: 20 architectures in no
# training set, which score ``perfgraphs.predict``; plans/predict-heldout-2.yaml: a second such set,
# structure variants of the dippm families, drawn after the first was used; plans/dippm-cpu-hidden.yaml: the leaderboard's
# hidden test set, kept outside the repository; plans/dippm-cpu-test-visits.yaml: the dippm-cpu
# test part measured again, in visits, perfgraphs.data.visits_plan, and so the trappm CPU test part
# and every llm CPU row (a cross-validated config: each row is a test row of one fold); predict-calibration: a
# machine's `perfgraphs predict calibrate` references and benchmarks/calibrate_check.py's check
# configurations, measured on that machine). Their stores are never a
# source of a dataset: store discovery (perfgraphs.data.platforms) skips them, so they label no
# config and no platform.
HELDOUT_SUITES = ("predict-heldout", "predict-heldout-2", "dippm-cpu-hidden", "dippm-cpu-test-visits", "predict-calibration",
                  "predict-heldout-3", "trappm-cpu-test-visits", "llm-cpu-all-visits")
# predict's intervals are calibrated on the first two held-out sets (perfgraphs.predict.heldout); the
# third, drawn after that calibration, only checks it
PREDICT_INTERVAL_SUITES = HELDOUT_SUITES[:2]
PREDICT_CHECK_SUITE = HELDOUT_SUITES[5]

# Family counts of the research (SPEC section 2); the registry presents them with each dataset.
DIPPM_COUNTS = {"efficientnet": 1729, "mnasnet": 1001, "mobilenet": 1591, "resnet": 1152, "vgg": 1536,
                "swin": 547, "vit": 520, "densenet": 768, "visformer": 768, "poolformer": 896}
TRAPPM_UNLABELED_COUNTS = {"densenet": 838, "efficientnet": 1370, "mnasnet": 7208, "mobilenet": 2449,
                           "poolformer": 601, "resnet": 1805, "swin": 787, "vgg": 6171, "visformer": 237,
                           "convnext": 1530, "vit": 2057}

# The platforms of perfgraphs/nnlqp: every timm result file of the external folder that parses,
# and our own CPU platforms found in the measurement stores (perfgraphs.data.platforms).
NNLQP_PLATFORM_SOURCES = ("timm-benchmark", "cpu-measurement-stores")

# the nnlqp platform with an official board
NNLQP_BOARD_PLATFORM = "timm-rtx4090-amp-nchw-pt240-cu124"

# What a predictor may see of a held-out fold's rows: the ids and what is known *before* the run —
# model, serving configuration or input shape, hardware, software. Not listed, so hidden: every
# target, and for ML.ENERGY vLLM's realised batch (avg_batch_size), the generated length
# (avg_output_len), power, energy per request and the ITL percentiles; for our encoder rows the
# measurement statistics and the measurement's own ids and date.
MLENERGY_INPUT_COLUMNS = (
    "model_id", "nickname", "task", "modality", "architecture", "weight_precision", "total_params_billions",
    "activated_params_billions", "gpu_model", "num_gpus", "max_num_seqs", "tensor_parallel", "data_parallel",
    "expert_parallel", "ring_degree", "ulysses_degree", "parallelization_notes", "source_file", "source_commit")
ENCODER_INPUT_COLUMNS = (
    "model_id", "model", "protocol", "precision", "batch_size", "seq_len_tokens", "num_hidden_layers",
    "hidden_size", "num_attention_heads", "intermediate_size", "vocab_size", "max_position_embeddings",
    "type_vocab_size", "total_params", "gmacs_per_forward", "gmacs_per_sequence", "weight_bits",
    "structure_hash", "graph_gmacs_per_sample_batch1", "cpu_model", "cpu_arch", "cores_used", "logical_cores",
    "physical_cores", "cpu_freq_mhz", "ram_mb", "l1d_cache_kib", "l1i_cache_kib", "l2_cache_kib",
    "l3_cache_kib", "peak_gflops_measured", "memory_bandwidth_gbps_measured", "hardware_probed_at_utc",
    "torch_version", "transformers_version", "python_version")

# The tabular LLM configs' protocols: leave-models-out (folds grouped by model: every test model is
# unseen in training) is official, as a new model is what a user of the predictors asks about; the
# LLM study's stratified 5-fold (every model in every training fold) is kept as a secondary board.
LLM_PROTOCOLS = ("leave-models-out", "stratified-5-fold")

DATASETS: dict[str, Dataset] = {d.name: d for d in (
    Dataset(
        name="perfgraphs/dippm",
        version="0.1.0",
        description="DIPPM protocol: timm graphs (architecture x input size x batch) with inference labels",
        license="Apache-2.0 (graphs and our measurements)",
        configs=(
            Config("graphs", "all 10,508 graphs, no labels", GRAPH_ROWS, split_protocols=("random-70-15-15",),
                   recipe="graph_set", sources=("pool",)),
            Config(CPU_TORCH_FP32, "labels measured with PyTorch eager fp32 on one CPU core (wall clock, one "
                   "round; the first version of our CPU labels)", GRAPH_ROWS,
                   (LATENCY, LATENCY_CAL, MEMORY), platform=CPU_TORCH_FP32, suite="dippm-cpu",
                   split_protocols=("random-70-15-15",), hardware=EPYC_VM, recipe="measured_graphs",
                   sources=("pool", "suite:dippm-cpu"), noise_probe_file="noise-floor-dippm-cpu.json", predict_mode="infer",
                   repeat_suite=f"dippm-cpu-test-visits-{EPYC_VM_TAG}",
                   boards=(Board("latency_ms", "DIPPM's latency, on our CPU core"),
                           Board("peak_memory_mb", "DIPPM's memory, on our CPU core"))),
            Config(f"{EPYC_VM_TAG}-torch-fp32", "CPU-time labels with PyTorch eager fp32 on one pinned core of one "
                   "machine: every configuration measured in two rounds under the quiet gate", GRAPH_ROWS,
                   (CPU_TIME, LATENCY, MEMORY), platform=CPU_TORCH_FP32, suite=f"dippm-cputime-{EPYC_VM_TAG}",
                   split_protocols=("random-70-15-15",), hardware=EPYC_VM, min_rounds=2,
                   recipe="measured_graphs", sources=("pool", f"suite:dippm-cputime-{EPYC_VM_TAG}"),
                   predict_mode="infer"),
            Config("h200-torch-fp32", "labels measured with PyTorch eager fp32 on one NVIDIA H200 under "
                   "the research's protocol (5 warm-up + 30 timed runs), with NVML board energy", GRAPH_ROWS,
                   (LATENCY, MEMORY, ENERGY), platform="cuda-torch-fp32", suite="dippm-h200",
                   split_protocols=("random-70-15-15",), recipe="measured_graphs", sources=("pool", "suite:dippm-h200"),
                   hardware="NVIDIA H200 (one GPU)", predict_mode="infer",
                   # written by the first loan that runs plans/run-on-gpu.sh's noise-floor step
                   noise_probe_file="noise-floor-dippm-h200.json",
                   boards=(Board("latency_ms", "DIPPM's latency on a data-centre GPU (the research's setting)"),
                           Board("energy_j", "DIPPM's energy: the only measured energy label of a graph dataset here"))),
        ),
        family_counts=dict(DIPPM_COUNTS),
        store_configs=StoreConfigs(
            DIPPM, "inference", "cuda", (LATENCY, MEMORY, ENERGY), ("random-70-15-15",),
            "labels measured with PyTorch eager under the research's protocol (5 warm-up + 30 timed runs) on "
            "one {device}, with NVML board energy (store {store}, platform {platform}; found in the store)",
            recipe="measured_graphs", sources=("pool",)),
    ),
    Dataset(
        name="perfgraphs/trappm",
        version="0.1.0",
        description="TraPPM protocol: unlabeled timm graphs for pre-training, labeled training-step subsets",
        license="Apache-2.0 (graphs and our measurements)",
        configs=(
            Config("unlabeled", "25,053 graphs for self-supervised pre-training", GRAPH_ROWS,
                   split_protocols=("per-family-70-30",), recipe="graph_set", sources=("pool",)),
            Config(CPU_TORCH_FP32, "training-step labels on one CPU core (wall clock, one round)", GRAPH_ROWS,
                   (STEP_TIME, MEMORY), platform=CPU_TORCH_FP32, suite="trappm-cpu",
                   split_protocols=("per-family-70-30",), hardware=EPYC_VM, recipe="measured_graphs",
                   sources=("pool", "suite:trappm-cpu"), predict_mode="train",
                   repeat_suite=f"trappm-cpu-test-visits-{EPYC_VM_TAG}",
                   boards=(Board("step_time_ms", "TraPPM's training-step time"),
                           Board("peak_memory_mb", "TraPPM's training memory"))),
            Config(f"{EPYC_VM_TAG}-torch-fp32", "training-step CPU-time labels on one pinned core of one machine, "
                   "two rounds under the quiet gate", GRAPH_ROWS,
                   (CPU_STEP_TIME, STEP_TIME, MEMORY), platform=CPU_TORCH_FP32,
                   suite=f"trappm-cputime-{EPYC_VM_TAG}", split_protocols=("per-family-70-30",),
                   hardware=EPYC_VM, min_rounds=2, recipe="measured_graphs",
                   sources=("pool", f"suite:trappm-cputime-{EPYC_VM_TAG}")),
        ),
        family_counts=dict(TRAPPM_UNLABELED_COUNTS),
    ),
    Dataset(
        name="perfgraphs/nnlqp",
        version="0.1.0",
        description="Multi-platform latency: one graph per architecture, a label per platform "
                    "(our CPU platforms and the timm benchmark platforms)",
        license="Apache-2.0 (our data; timm results Apache-2.0)",
        configs=(
            Config("timm-platforms", "timm benchmark results (RTX 3090/4090, two CPUs) imported into the cache, "
                   "plus our own CPU platforms", GRAPH_ROWS, (PER_SAMPLE_LATENCY,),
                   split_protocols=("random-70-15-15", "leave-one-family-out", "few-shot-platform",
                                    "leave-one-platform-out"),
                   platform_sources=NNLQP_PLATFORM_SOURCES, recipe="multiplatform",
                   sources=("pool", "external:timm-benchmark", "suite:*"), predict_mode="infer",
                   boards=(Board(f"latency_per_sample_ms{PLATFORM_SEPARATOR}{NNLQP_BOARD_PLATFORM}",
                                 "one GPU platform of timm's published results (RTX 4090, AMP, torch 2.4, CUDA 12.4)"),)),
        ),
    ),
    Dataset(
        name="perfgraphs/graph2text",
        version="0.1.0",
        description="(graph, 'Summarise the graph', summary) pairs generated from a graph set",
        license="Apache-2.0",
        configs=(
            Config(DIPPM, "one pair per graph of perfgraphs/dippm (same splits)", GRAPH_ROWS,
                   split_protocols=("random-70-15-15",), recipe="graph2text", sources=("config:perfgraphs/dippm/graphs",)),
        ),
    ),
    Dataset(
        name="perfgraphs/llm",
        version="0.1.0",
        description="Tabular LLM performance: encoder LLMs on our CPU; ML.ENERGY serving runs on H100/B200",
        license="Apache-2.0 (our data; ML.ENERGY data Apache-2.0)",
        configs=(
            Config(MLENERGY, "ML.ENERGY leaderboard serving configurations (imported into the cache)",
                   TABULAR_ROWS, (ENERGY_TOKEN, ITL, TOKEN_THROUGHPUT), split_protocols=LLM_PROTOCOLS,
                   recipe="serving_runs", sources=(f"external:{MLENERGY}",), evaluation="cv-folds",
                   input_columns=MLENERGY_INPUT_COLUMNS, unrecorded_protocol="stratified-5-fold",
                   boards=(Board("energy_per_token_joules", "ML.ENERGY's energy per token (H100/B200 serving)"),
                           Board("median_itl_ms", "ML.ENERGY's inter-token latency"),
                           Board("output_throughput_tokens_per_sec", "ML.ENERGY's token throughput"))),
            Config(CPU_TORCH_FP32, "our measurements: the nine encoder LLMs' forward (batch x sequence length) "
                   "with PyTorch eager fp32 on one pinned CPU core, model + hardware features", TABULAR_ROWS,
                   (LATENCY, LATENCY_CAL, THROUGHPUT, MEMORY), platform=CPU_TORCH_FP32, suite="llm-cpu",
                   split_protocols=LLM_PROTOCOLS, hardware=EPYC_VM, recipe="encoder_measurements",
                   sources=("suite:llm-cpu",), evaluation="cv-folds", input_columns=ENCODER_INPUT_COLUMNS,
                   unrecorded_protocol="stratified-5-fold",
                   noise_probe_file="noise-floor-llm-cpu.json", predict_mode="infer",
                   # every row measured again (cross-validated: each row is a test row of one fold);
                   # the store grows in stretches on the labels' machine, and the ranks read what it holds
                   repeat_suite=f"llm-cpu-all-visits-{EPYC_VM_TAG}",
                   boards=(Board("latency_ms", "encoder LLM forward latency on our CPU core"),
                           Board("throughput_samples_per_s", "the LLM paper's throughput T"),
                           Board("peak_memory_mb", "the LLM paper's peak memory M_peak"))),
        ),
    ),
)}


def get_dataset(name: str) -> Dataset:
    """A registered dataset, with the configs its measured stores make (``Dataset.store_configs``)."""
    key = name if "/" in name else f"perfgraphs/{name}"
    try:
        ds = DATASETS[key]
    except KeyError:
        raise UnknownDatasetError(
            f"unknown dataset {name!r} (available: {', '.join(sorted(DATASETS))})"
        ) from None
    if ds.store_configs is None:
        return ds
    found = discovery().store_configs(ds)
    return replace(ds, configs=ds.configs + found) if found else ds


@dataclass(frozen=True)
class Task:
    """One board's question, resolved once: the registry's dataset, config and target objects, and
    what code below the edges would otherwise derive from their names again. The facts that need
    the data (the build, the labels' noise floor) are read from it by the layers that can see the
    data (:func:`perfgraphs.evaluation.protocol.protocol_parts`,
    :func:`perfgraphs.evaluation.label_noise.labels_floor`)."""

    dataset: Dataset
    config: Config
    target: Target

    @property
    def name(self) -> str:
        """``<dataset>/<config> → <target>``, as messages name a board."""
        return f"{self.dataset.name}/{self.config.name} → {self.target.name}"

    @property
    def cross_validated(self) -> bool:
        """Scored on pooled out-of-fold predictions (``cv-folds``), not on a test part."""
        return self.config.evaluation == "cv-folds"

    def protocol(self, requested: str | None = None) -> str:
        """The protocol a run asked for ``requested`` is scored under, as records name it: a
        cross-validated config's requested or official fold protocol; a graph config's requested
        one, "" for its standard split."""
        if self.cross_validated:
            return requested or self.config.official_protocol or ""
        return requested or ""

    @property
    def label_columns(self) -> tuple[str, ...]:
        """Every label column of the config (what a predictor must never see of held-out rows)."""
        return tuple(t.name for t in self.config.targets)


def task(dataset: str, config: str | None, target: str) -> Task:
    """The board ``dataset``/``config``/``target`` resolved against the registry, once; a name it
    does not know raises :class:`UnknownDatasetError` in one line. ``config=None``: the dataset's
    first config that has ``target``."""
    ds = get_dataset(dataset)
    cfg = ds.config(config) if config is not None else _config_with_target(ds, target)
    return Task(ds, cfg, cfg.target(target))


def _config_with_target(ds: Dataset, target: str) -> Config:
    for cfg in ds.configs:
        try:
            cfg.target(target)  # also resolves per-platform names such as latency_per_sample_ms__<p>
            return cfg
        except UnknownDatasetError:
            continue
    known = sorted({t.name for c in ds.configs for t in c.targets})
    raise UnknownDatasetError(f"dataset {ds.name} has no target {target!r} (targets: {', '.join(known) or 'none'})")


@dataclass(frozen=True)
class Discovery:
    """What the registry reads from the data rather than lists: a multi-platform config's platform
    names, and the configs a dataset's measured stores make. The readers live above the registry
    (perfgraphs.data.platforms reads result files, stores and build manifests) and install
    themselves here when that module is imported, so the registry stays at the bottom of the
    layers; :func:`discovery` imports it on first use."""

    config_platforms: Callable[[Config], tuple[str, ...]]
    store_configs: Callable[[Dataset], tuple[Config, ...]]


_DISCOVERY: list[Discovery] = []


def install_discovery(found: Discovery) -> None:
    _DISCOVERY[:] = [found]


def discovery() -> Discovery:
    if not _DISCOVERY:
        # by name, at run time: the readers sit above the registry, which must not import them at
        # import time (one-way layers), and a process that never asks for platforms never loads them
        import importlib

        importlib.import_module("perfgraphs.data.platforms")  # installs itself
    if not _DISCOVERY:
        raise PerfgraphsError("platform discovery did not install itself (perfgraphs.data.platforms)")
    return _DISCOVERY[0]


# `perfgraphs quickstart`: the main job's board (dataset, config, target); its baselines are the
# baseline catalog's (perfgraphs.baselines.catalog)
QUICKSTART_BOARD = ("perfgraphs/dippm", CPU_TORCH_FP32, "latency_ms")


def configs_with_recipe(recipe: str) -> list[tuple[Dataset, Config]]:
    """Every (dataset, config) built by ``recipe``: how a tool finds a config by what it is."""
    return [(ds, cfg) for ds in DATASETS.values() for cfg in ds.configs if cfg.recipe == recipe]


def official_boards() -> list[tuple[Dataset, Config, Board]]:
    """Every official board, in registry order."""
    return [(ds, cfg, b) for ds in DATASETS.values() for cfg in ds.configs for b in cfg.boards]
