"""The Chrome-trace JSON: header before the event array, one pid per core, the five lanes,
X slices that never overlap on a lane, flows that pair every SetFlag with its WaitFlag, and
args that point at the kernel line."""

from __future__ import annotations

import dataclasses
import json

import numpy as np

import ascsim
from ascsim.ascendc import (
    PIPE_ALL,
    Adds,
    DataCopy,
    GetBlockIdx,
    GlobalTensor,
    PipeBarrier,
    QuePosition,
    TPipe,
    TQue,
)
from ascsim.ascendc import float as f32
from ascsim.export import trace_dict, validate_trace, write_chrome_trace
from ascsim.profile import load_profile

T = 512
TILES = 3


def kernel(x, y):
    pipe = TPipe()
    in_q = TQue[QuePosition.VECIN, 2]()
    out_q = TQue[QuePosition.VECOUT, 2]()
    pipe.InitBuffer(in_q, 2, T * 4)
    pipe.InitBuffer(out_q, 2, T * 4)
    xg = GlobalTensor[f32]()
    xg.SetGlobalBuffer(x)
    yg = GlobalTensor[f32]()
    yg.SetGlobalBuffer(y)
    base = GetBlockIdx() * TILES * T
    for i in range(TILES):
        a = in_q.AllocTensor[f32]()
        DataCopy(a, xg[base + i * T], T)  # copy-in
        in_q.EnQue(a)
        a = in_q.DeQue[f32]()
        b = out_q.AllocTensor[f32]()
        Adds(b, a, 2.0, T)
        Adds(b, b, 1.0, T)
        out_q.EnQue(b)
        in_q.FreeTensor(a)
        b = out_q.DeQue[f32]()
        DataCopy(yg[base + i * T], b, T)
        out_q.FreeTensor(b)
    PipeBarrier[PIPE_ALL]()


def _line(marker: str) -> int:
    import inspect
    src, first = inspect.getsourcelines(kernel)
    return first + next(i for i, text in enumerate(src) if marker in text)


def run(cores: int = 2, profile=None):
    x = np.arange(cores * TILES * T, dtype=np.float32)
    y = np.zeros_like(x)
    r = ascsim.launch(kernel, cores, x, y, profile=profile)
    np.testing.assert_array_equal(y, x + 3)
    return r


def test_trace_structure(tmp_path):
    tl = run().timeline()
    path = write_chrome_trace(tl, tmp_path / "trace.json")
    text = path.read_text()
    assert validate_trace(path) == []
    head = text[:text.index("[")]
    assert '"profilingType":"op"' in head and '"traceEvents"' in head
    data = json.loads(text)
    events = data["traceEvents"]
    assert {e["ph"] for e in events} == {"M", "X", "s", "f"}
    xs = [e for e in events if e["ph"] == "X"]
    assert {e["pid"] for e in xs} == {"core0.veccore0", "core0.veccore1"}
    assert {e["tid"] for e in xs} == {"SCALAR", "MTE2", "VECTOR", "MTE3", "FLOWCTRL"}
    names = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert names == {"SCALAR", "MTE2", "VECTOR", "MTE3", "FLOWCTRL"}
    # every record is a slice (plus headers, issue runs and launches)
    records = [e for e in xs if "serialNo" in e.get("args", {})]
    assert len(records) == len(tl.kind)
    for e in xs:
        assert e["dur"] >= 0 and isinstance(e["ts"], (int, float))
    # microseconds at the profile clock, to the picosecond
    first_copy = next(e for e in records if e["name"] == "DataCopy" and e["tid"] == "MTE2")
    g = int(np.flatnonzero(tl.lane == 2)[0])
    assert first_copy["ts"] == round(tl.start[g] / tl.clock_mhz, 6)
    assert first_copy["args"]["bytes"] == T * 4
    assert first_copy["args"]["code"] == f"tests/test_export_trace.py:{_line('# copy-in')}"
    adds = next(e for e in records if e["name"] == "Adds")
    assert adds["args"]["repeats"] == T * 4 // 256 and adds["args"]["dtype"] == "float"
    barrier = next(e for e in records if e["name"] == "PipeBarrier")
    assert barrier["tid"] == "FLOWCTRL"


def test_flows_join_each_setflag_to_its_waitflag():
    tl = run().timeline()
    data = trace_dict(tl)
    xs = {(e["pid"], e["tid"], e["ts"]): e for e in data["traceEvents"] if e["ph"] == "X"}
    flows: dict[int, dict[str, dict]] = {}
    for e in data["traceEvents"]:
        if e["ph"] in "sf":
            flows.setdefault(e["id"], {})[e["ph"]] = e
    waits = int(np.count_nonzero(tl.pair >= 0))
    assert waits == len(flows) > 0
    for pair in flows.values():
        s, f = pair["s"], pair["f"]
        assert s["pid"] == f["pid"] and s["name"] == f["name"]
        assert xs[(s["pid"], s["tid"], s["ts"])]["name"] == "SetFlag"
        assert xs[(f["pid"], f["tid"], f["ts"])]["name"] == "WaitFlag"
        assert f["ts"] >= s["ts"]
    # the queue events are among them: MTE2_V from the copy-in lane to the vector lane
    kinds = {(p["s"]["tid"], p["f"]["tid"], p["s"]["name"].split()[0]) for p in flows.values()}
    assert ("MTE2", "VECTOR", "MTE2_V") in kinds and ("VECTOR", "MTE3", "V_MTE3") in kinds


def test_overlapping_instructions_are_cut_to_keep_lanes_disjoint():
    base = load_profile("Ascend910B2")
    prof = dataclasses.replace(base, cost=dataclasses.replace(base.cost,
                                                              vector_overlap_cycles=20.0))
    tl = run(profile=prof).timeline()
    starts = tl.start[tl.lane == 1]
    ends = tl.end[tl.lane == 1]
    assert (starts[1:] < ends[:-1]).any()  # the model does overlap them
    assert validate_trace(trace_dict(tl)) == []


def test_validator_reports_broken_traces():
    good = {"profilingType": "op", "traceEvents": [
        {"name": "a", "ph": "X", "ts": 0.0, "dur": 1.0, "pid": "p", "tid": "V"},
        {"name": "b", "ph": "X", "ts": 1.0, "dur": 1.0, "pid": "p", "tid": "V"},
        {"name": "e", "ph": "s", "id": 1, "ts": 0.0, "pid": "p", "tid": "V"},
        {"name": "e", "ph": "f", "id": 1, "ts": 1.0, "pid": "p", "tid": "V", "bp": "e"},
    ]}
    assert validate_trace(good) == []
    overlap = json.loads(json.dumps(good))
    overlap["traceEvents"][1]["ts"] = 0.5
    assert any("overlaps" in p for p in validate_trace(overlap))
    unpaired = json.loads(json.dumps(good))
    del unpaired["traceEvents"][3]
    assert any("flow 1" in p for p in validate_trace(unpaired))
    missing = json.loads(json.dumps(good))
    del missing["traceEvents"][0]["dur"]
    assert any("missing dur" in p for p in validate_trace(missing))
    begin = json.loads(json.dumps(good))
    begin["traceEvents"][0]["ph"] = "B"
    assert any("phase 'B'" in p for p in validate_trace(begin))
    late = {"traceEvents": good["traceEvents"], "profilingType": "op"}
    assert any("profilingType" in p for p in validate_trace(late))


def test_many_cores_map_to_ai_core_and_vector_core(tmp_path):
    tl = run(cores=5).timeline()
    pids = {e["pid"] for e in trace_dict(tl)["traceEvents"] if e["ph"] == "X"}
    assert pids == {"core0.veccore0", "core0.veccore1", "core1.veccore0", "core1.veccore1",
                    "core2.veccore0"}
