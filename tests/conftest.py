import os

# Tests are CPU-only and offline; keep them from oversubscribing the 2-core machine.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def resnet18_template():
    from perfgraphs.graph import graph_template

    return graph_template("timm:resnet18", image_shape=(3, 96, 96))


def _find_external() -> str | None:
    from pathlib import Path

    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "external"
        if candidate.is_dir():
            return str(candidate)
    return None


# The public measurement sources are read from the shared copies beside the checkout, never
# downloaded by tests.
if "PERFGRAPHS_EXTERNAL_DIR" not in os.environ and _find_external():
    os.environ["PERFGRAPHS_EXTERNAL_DIR"] = _find_external()
