"""PipeUtilization.csv, the matplotlib pictures and the terminal summary of a timeline."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from matplotlib.image import imread

import ascsim
from ascsim.ascendc import Adds, DataCopy, GetBlockIdx, GlobalTensor, QuePosition, TPipe, TQue
from ascsim.ascendc import float as f32
from ascsim.export import pipe_utilization_rows, summary_text, write_pipe_utilization
from ascsim.export.pipe_utilization import COLUMNS

T = 1024
TILES = 2


def kernel(x, y):
    pipe = TPipe()
    in_q = TQue[QuePosition.VECIN, 1]()
    out_q = TQue[QuePosition.VECOUT, 1]()
    pipe.InitBuffer(in_q, 1, T * 4)
    pipe.InitBuffer(out_q, 1, T * 4)
    xg = GlobalTensor[f32]()
    xg.SetGlobalBuffer(x)
    yg = GlobalTensor[f32]()
    yg.SetGlobalBuffer(y)
    base = GetBlockIdx() * TILES * T
    for i in range(TILES):
        a = in_q.AllocTensor[f32]()
        DataCopy(a, xg[base + i * T], T)
        in_q.EnQue(a)
        a = in_q.DeQue[f32]()
        b = out_q.AllocTensor[f32]()
        Adds(b, a, 1.0, T)
        out_q.EnQue(b)
        in_q.FreeTensor(a)
        b = out_q.DeQue[f32]()
        DataCopy(yg[base + i * T], b, T)
        out_q.FreeTensor(b)


@pytest.fixture(scope="module")
def timeline():
    cores = 48
    x = np.ones(cores * TILES * T, np.float32)
    return ascsim.launch(kernel, cores, x, np.zeros_like(x)).timeline()


def test_pipe_utilization_csv(tmp_path, timeline):
    path = write_pipe_utilization(timeline, tmp_path / "PipeUtilization.csv")
    with path.open() as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames) == COLUMNS
        rows = list(reader)
    assert len(rows) == 48
    for b, row in enumerate(rows):
        assert (int(row["block_id"]), int(row["sub_block_id"])) == (b // 2, b % 2)
        assert int(row["block_idx"]) == b
        cycles = timeline.aiv_cycles[b]
        assert float(row["aiv_time(us)"]) == pytest.approx(cycles / timeline.clock_mhz, abs=1e-6)
        for stem, lane in (("vec", 1), ("scalar", 0), ("mte2", 2), ("mte3", 3)):
            ratio = float(row[f"aiv_{stem}_ratio"])
            assert 0 < ratio <= 1
            assert ratio == pytest.approx(timeline.busy[b, lane] / cycles, abs=1e-6)
            assert float(row[f"aiv_{stem}_time(us)"]) == pytest.approx(
                ratio * float(row["aiv_time(us)"]), rel=1e-4)
        moved = 2 * T * 4  # two tiles in, two out
        bw = moved * timeline.clock_mhz / timeline.busy[b, 2] / 1e3
        assert float(row["aiv_mte2_active_bw(GB/s)"]) == pytest.approx(bw, rel=1e-3)
    assert pipe_utilization_rows(timeline)[0]["aiv_total_cycles"] == round(
        timeline.aiv_cycles[0])


def test_gantt_and_occupancy_pictures(tmp_path, timeline):
    full = timeline.plot_gantt(tmp_path / "gantt.png", dpi=60)
    img = imread(full)
    assert img.shape[0] > img.shape[1]  # 48 cores x 4 lanes: a tall picture
    zoom = timeline.plot_gantt(tmp_path / "zoom.png", window_us=(4.0, 6.0), cores=[0, 47],
                               dpi=60)
    assert imread(zoom).shape[0] < img.shape[0]
    occ = timeline.plot_occupancy(tmp_path / "occupancy.png", dpi=60)
    assert imread(occ).size > 0


def test_summary(timeline):
    text = summary_text(timeline)
    assert text.startswith(f"kernel on Ascend910B2 (1800 MHz), 48 core(s): "
                           f"{timeline.total_us:.2f} us")
    for lane in ("VECTOR", "MTE2", "MTE3", "SCALAR"):
        assert lane in text
    assert "DataCopy" in text and "GM traffic" in text
    assert timeline.summary() == text
