"""Issue 25 item 6, the split files: ``datasets splits`` on a read-only data directory is one clear
line (it was an "internal error"), and a build refused because new ML.ENERGY files changed the rows
says which command writes the new split files."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from perfgraphs import paths
from perfgraphs.cli import main
from perfgraphs.data import splits
from perfgraphs.errors import FileIOError, PerfgraphsError

MLENERGY = Path(__file__).resolve().parents[2] / "shared" / "external" / "mlenergy-leaderboard"
if os.environ.get("PERFGRAPHS_EXTERNAL_DIR"):
    MLENERGY = Path(os.environ["PERFGRAPHS_EXTERNAL_DIR"]) / "mlenergy-leaderboard"
needs_mlenergy = pytest.mark.skipif(not MLENERGY.is_dir(), reason="no local copy of the ML.ENERGY files")


@pytest.fixture
def read_only_dir(tmp_path):
    """A folder nobody may write into: chmod where that binds (not root); for root, sysfs, which
    refuses to create files whoever asks."""
    folder = tmp_path / "data-ro"
    folder.mkdir()
    (folder / "llm").mkdir()
    (folder / "llm" / "stratified-5-fold-seed0.json").write_text('{"kept": true}\n')
    for d in (folder / "llm", folder):
        d.chmod(0o555)
    try:
        (folder / "probe").touch()
    except PermissionError:
        yield folder
        for d in (folder, folder / "llm"):
            d.chmod(0o755)
        return
    (folder / "probe").unlink()
    for d in (folder, folder / "llm"):
        d.chmod(0o755)
    sysfs = Path("/sys/perfgraphs-read-only")
    if not Path("/sys").is_dir():
        pytest.skip("no folder this user cannot write to")
    yield sysfs


def test_a_split_file_in_a_read_only_folder_is_a_one_line_error(read_only_dir, monkeypatch):
    monkeypatch.setattr(paths, "splits_dir", lambda: read_only_dir)
    with pytest.raises(FileIOError, match="cannot write the split file .*stratified-5-fold-seed0.json"):
        splits.save_split("perfgraphs/llm", "stratified-5-fold", 0, {"fold0": ["a"]}, unit="row_id")
    with pytest.raises(FileIOError, match="cannot write the split file"):
        splits.save_platform_order("perfgraphs/llm", ["cpu-a"])
    if read_only_dir.exists():  # the file already there is untouched
        assert (read_only_dir / "llm" / "stratified-5-fold-seed0.json").read_text() == '{"kept": true}\n'


@needs_mlenergy
def test_datasets_splits_on_a_read_only_data_dir_is_one_line(read_only_dir, monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(paths, "splits_dir", lambda: read_only_dir)
    monkeypatch.setenv("PERFGRAPHS_EXTERNAL_DIR", str(MLENERGY.parent))
    monkeypatch.setenv("PERFGRAPHS_HOME", str(tmp_path / "home"))
    assert main(["datasets", "splits", "llm", "--config", "mlenergy"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "internal error" not in err, err
    assert err.startswith("perfgraphs: error: cannot write the split file"), err


@needs_mlenergy
def test_new_mlenergy_files_say_which_command_writes_new_splits(tmp_path, monkeypatch):
    from perfgraphs.data.tabular import build_mlenergy_config
    from perfgraphs.registry import get_dataset

    external = tmp_path / "external"
    shutil.copytree(MLENERGY, external / MLENERGY.name)
    # a model upstream published since the split was committed
    model = json.loads((MLENERGY / "models" / "Qwen__Qwen3-8B__gpqa.json").read_text())
    model["model_id"] = "Qwen/Qwen3-8B-New"
    (external / MLENERGY.name / "models" / "Qwen__Qwen3-8B-New__gpqa.json").write_text(json.dumps(model))
    monkeypatch.setenv("PERFGRAPHS_HOME", str(tmp_path / "home"))
    ds = get_dataset("llm")
    build_mlenergy_config(ds, ds.config("mlenergy"), home=tmp_path / "home", external_dir=MLENERGY)
    with pytest.raises(PerfgraphsError, match="no longer match the committed split") as err:
        build_mlenergy_config(ds, ds.config("mlenergy"), home=tmp_path / "home2", external_dir=external / MLENERGY.name)
    assert "`perfgraphs datasets splits llm --config mlenergy` writes new split files" in str(err.value)
