"""Chrome-trace JSON of a timeline, in the layout of msprof's simulator `trace.json`, so that it
opens in MindStudio Insight (operator mode), Perfetto and chrome://tracing.

- The header fields `displayTimeUnit`, `profilingType: "op"` and `schemaVersion` come before
  the event array (MindStudio Insight reads the text up to the first `[`).
- One process per core, `pid = "core<b // 2>.veccore<b % 2>"` for block b (two AI Vector cores
  per AI core on A2/A3), and one thread per lane: `SCALAR`, `MTE2`, `VECTOR`, `MTE3`,
  `FLOWCTRL`; `M` metadata events name and order them.
- Only `X` (complete) slices, which never overlap on a lane; `ts`/`dur` are microseconds at the
  profile clock, rounded to whole picoseconds so that rounding cannot create overlaps.
- A flow (`s` at the SetFlag, `f` at the WaitFlag) joins every SetFlag to the WaitFlag that
  consumes it.
- `args` carry the `kernels_py` file:line (and the `kernels_cpp` one where the mirror map is
  known), the record's serial number on its core, cycles, bytes, repeats, dtype and count.

`validate_trace` is the structural check the tests use; it is handy for any trace.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import records
from ..dtypes import BY_CODE
from ..registry import REGISTRY
from ..sync import flag_name
from ..timing.cost import K_COPY, K_OP, K_SET, K_WAIT, K_XSYNC, K_XWAIT, KIND_NAMES
from ..timing.schedule import LANE_NAMES
from .segments import HEADER, ISSUE, LAUNCH, segments

if TYPE_CHECKING:
    from ..timing.timeline import Timeline

__all__ = ["trace_dict", "write_chrome_trace", "validate_trace", "core_pid", "TRACE_HEADER"]

TRACE_HEADER = {"displayTimeUnit": "ns", "profilingType": "op", "schemaVersion": 1}
# MindStudio Insight's lane order (EventDef.h SetThreadSortIndex)
_LANE_SORT = {"SCALAR": 1, "FLOWCTRL": 2, "MTE2": 6, "VECTOR": 7, "MTE3": 8}
_PS = 1_000_000  # picoseconds per microsecond


def core_pid(block: int) -> str:
    """Trace process name of block `block`: AI core block // 2, vector core block % 2."""
    return f"core{block // 2}.veccore{block % 2}"


def _ps(tl: Timeline, cycles: np.ndarray) -> np.ndarray:
    return np.rint(cycles * (_PS / tl.clock_mhz)).astype(np.int64)


class _Positions:
    """kernels_py (and kernels_cpp) positions of records, decoded once per call site."""

    def __init__(self) -> None:
        self.cache: dict[tuple[int, int], tuple[str, str | None]] = {}

    def __call__(self, row: tuple) -> tuple[str, str | None]:
        key = (row[records.CODE], row[records.LASTI])
        hit = self.cache.get(key)
        if hit is None:
            hit = self.cache[key] = records.position_of(row)
        return hit


def _record_args(tl: Timeline, g: int, row: tuple, serial: int, pos: _Positions) -> dict:
    py, cpp = pos(row)
    kind = int(tl.kind[g])
    args: dict[str, Any] = {"code": py}
    if cpp:
        args["cpp"] = cpp
    args["serialNo"] = serial
    args["cycles"] = [round(float(tl.start[g]), 3), round(float(tl.end[g]), 3)]
    if kind in (K_SET, K_WAIT):
        args["event"] = flag_name(row[records.MODE])
        if records.is_implicit(row):
            args["implicit"] = "TQue"
    elif kind == K_COPY:
        args["bytes"] = int(tl.nbytes[g])
        args["latency_cycles"] = float(tl.fixed[g])
        moving = float(tl.data_end[g] - tl.start[g])
        if moving > 0:
            args["GB/s"] = round(float(tl.nbytes[g]) * tl.clock_mhz / moving / 1e3, 3)
    elif kind == K_OP:
        args["repeats"] = int(row[records.REPEATS])
        args["bytes"] = sum(end - start for flags, _, start, end in records.accesses_of(row)
                            if flags & records.W)
    if row[records.DTYPE]:
        args["dtype"] = BY_CODE[row[records.DTYPE]].name
    if kind in (K_OP, K_COPY):
        args["count"] = int(row[records.COUNT])
    return args


def trace_dict(tl: Timeline) -> dict[str, Any]:
    """The trace as a JSON-ready dict (header fields first)."""
    seg = segments(tl)
    ts = _ps(tl, seg.start)
    te = _ps(tl, seg.end)
    names = [ins.name for ins in REGISTRY]
    families = [ins.family for ins in REGISTRY]
    pos = _Positions()
    events: list[dict[str, Any]] = []
    pids = [core_pid(b) for b in range(tl.block_dim)]
    used = {(int(c), int(lane)) for c, lane in zip(seg.core, seg.lane, strict=True)}
    for b, pid in enumerate(pids):
        events.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": pid}})
        events.append({"name": "process_sort_index", "ph": "M", "pid": pid,
                       "args": {"sort_index": b}})
        for lane, tid in enumerate(LANE_NAMES):
            if (b, lane) in used:
                events.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
                               "args": {"name": tid}})
                events.append({"name": "thread_sort_index", "ph": "M", "pid": pid, "tid": tid,
                               "args": {"sort_index": _LANE_SORT[tid]}})
    slice_ts: dict[int, int] = {}  # record -> its slice start, for the flows
    for j in range(len(seg)):
        b = int(seg.core[j])
        what = int(seg.what[j])
        ev: dict[str, Any] = {"ph": "X", "pid": pids[b], "tid": LANE_NAMES[seg.lane[j]],
                              "ts": int(ts[j]) / _PS, "dur": int(te[j] - ts[j]) / _PS}
        if what == ISSUE:
            ev["name"] = "issue"
            ev["cat"] = "issue"
            ev["args"] = {"instructions": int(seg.count[j])}
        elif what == HEADER:
            ev["name"] = "kernel header"
            ev["cat"] = "startup"
            ev["args"] = {"cycles": float(tl.first_issue[b] - tl.launch_cycles)}
        elif what == LAUNCH:
            ev["name"] = "launch"
            ev["cat"] = "startup"
        else:
            g = int(seg.record[j])
            serial = g - int(tl.off[b])
            row = tl.run.cores[b].records[serial]
            ev["name"] = names[row[records.OP]]
            ev["cat"] = families[row[records.OP]] or KIND_NAMES[int(tl.kind[g])]
            ev["args"] = _record_args(tl, g, row, serial, pos)
            slice_ts[g] = int(ts[j])
        events.append(ev)
    flow_id = 0
    for w in np.flatnonzero((tl.pair >= 0) & (tl.kind != K_XSYNC)).tolist():
        s = int(tl.pair[w])
        b = int(np.searchsorted(tl.off, w, side="right")) - 1
        sb = int(np.searchsorted(tl.off, s, side="right")) - 1  # another core's, cross-core
        if tl.kind[w] == K_XWAIT:
            name, cat = "cross-core flag", "cross-core"
        else:
            name = flag_name(tl.run.cores[b].records[s - int(tl.off[b])][records.MODE])
            cat = "flag"
        if s not in slice_ts or w not in slice_ts:
            continue
        flow_id += 1
        events.append({"name": name, "cat": cat, "ph": "s", "id": flow_id, "pid": pids[sb],
                       "tid": LANE_NAMES[tl.lane[s]], "ts": slice_ts[s] / _PS})
        events.append({"name": name, "cat": cat, "ph": "f", "bp": "e", "id": flow_id,
                       "pid": pids[b], "tid": LANE_NAMES[tl.lane[w]], "ts": slice_ts[w] / _PS})
    out = dict(TRACE_HEADER)
    out["otherData"] = {"kernel": tl.run.kernel_name, "profile": tl.profile.name,
                        "clock_mhz": tl.clock_mhz, "block_dim": tl.block_dim,
                        "kernel_us": round(tl.total_us, 6), "generator": "ascsim"}
    out["traceEvents"] = events
    return out


def write_chrome_trace(tl: Timeline, path: str | Path) -> Path:
    """Write the trace JSON; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as f:
        json.dump(trace_dict(tl), f, separators=(",", ":"))
    return path


def validate_trace(source: str | Path | dict[str, Any]) -> list[str]:
    """Structural problems of a trace (empty list: none). Checks: header fields before the event
    array, required fields per phase, X slices never overlapping on a (pid, tid) lane, and
    every flow id having exactly one start and one finish, finish not before start."""
    problems: list[str] = []
    if isinstance(source, dict):
        data, text = source, json.dumps(source)
    else:
        text = Path(source).read_text()
        data = json.loads(text)
    head = text[:text.find("[")]
    for key in ("profilingType", "traceEvents"):
        if f'"{key}"' not in head:
            problems.append(f"{key!r} must appear before the first '['")
    if data.get("profilingType") != "op":
        problems.append('profilingType must be "op"')
    lanes: dict[tuple[Any, Any], list[tuple[int, int, str]]] = {}
    flows: dict[Any, list[tuple[str, int]]] = {}
    for i, ev in enumerate(data.get("traceEvents", [])):
        ph = ev.get("ph")
        need = {"X": ("name", "ph", "ts", "dur", "pid", "tid"), "M": ("name", "ph", "pid"),
                "s": ("name", "ph", "id", "ts", "pid", "tid"),
                "f": ("name", "ph", "id", "ts", "pid", "tid")}.get(ph)
        if need is None:
            problems.append(f"event {i}: phase {ph!r} is not one of X, M, s, f")
            continue
        missing = [k for k in need if k not in ev]
        if missing:
            problems.append(f"event {i} ({ph}): missing {', '.join(missing)}")
            continue
        if ph == "X":
            t0 = round(ev["ts"] * _PS)
            dur = round(ev["dur"] * _PS)
            if dur < 0:
                problems.append(f"event {i}: negative dur")
            lanes.setdefault((ev["pid"], ev["tid"]), []).append((t0, t0 + dur, ev["name"]))
        elif ph in ("s", "f"):
            flows.setdefault(ev["id"], []).append((ph, round(ev["ts"] * _PS)))
    for (pid, tid), items in lanes.items():
        items.sort()
        for (s0, e0, n0), (s1, _e1, n1) in zip(items, items[1:], strict=False):
            if s1 < e0:
                problems.append(f"{pid}/{tid}: {n0} [{s0}, {e0}) ps overlaps {n1} starting "
                                f"at {s1} ps")
                break
    for fid, ends in flows.items():
        phases = sorted(p for p, _ in ends)
        if phases != ["f", "s"]:
            problems.append(f"flow {fid}: phases {phases}, want one s and one f")
        elif dict(ends)["f"] < dict(ends)["s"]:
            problems.append(f"flow {fid}: finishes before it starts")
    return problems
