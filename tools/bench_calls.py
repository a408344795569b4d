"""Benchmark: what one AscendC call costs inside a running kernel, per instruction.

    python tools/bench_calls.py [--calls 20000] [--repeat 5]

Each case is a one-core kernel that makes `--calls` calls of one instruction (small operands,
so that the figure is the per-call Python path: checks, record, dispatch) and the same kernel
with the call removed (the loop itself); the difference divided by the number of calls is the
per-call cost in microseconds. Best of `--repeat` runs each; the jit is warmed first. Machines
are shared: compare figures from one run (before/after a change: run both in one session).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np
from benchutil import best_of

import ascsim
from ascsim.ascendc import (
    CMPMODE,
    EVENT_ID0,
    PIPE_V,
    SELMODE,
    Cast,
    CompareScalar,
    DataCopy,
    DataCopyExtParams,
    DataCopyPad,
    DataCopyPadExtParams,
    Div,
    Duplicate,
    Exp,
    GlobalTensor,
    HardEvent,
    Muls,
    PipeBarrier,
    QuePosition,
    RoundMode,
    Select,
    SetFlag,
    TBuf,
    TPipe,
    TQue,
    WaitFlag,
    half,
    uint8_t,
)
from ascsim.ascendc import float as f32

N = 64  # elements per vector call: small, so that the numba work is a minor part


def _setup(gm: object) -> tuple:
    pipe = TPipe()
    buf = TBuf[QuePosition.VECCALC]()
    pipe.InitBuffer(buf, 65536)
    que = TQue[QuePosition.VECIN, 1]()
    pipe.InitBuffer(que, 1, 1024)
    g = GlobalTensor[f32]()
    g.SetGlobalBuffer(gm)
    t = buf.Get[f32]()
    return t, t[1024], t[2048].ReinterpretCast[uint8_t](), t[4096].ReinterpretCast[half](), g, que


def _muls(t, s, m, h, g, q):
    Muls(t, s, f32(2.0), N)


def _exp(t, s, m, h, g, q):
    Exp(t, s, N)


def _div(t, s, m, h, g, q):
    Div(t, t, s, N)


def _select(t, s, m, h, g, q):
    Select(t, m, s, f32(0.0), SELMODE.VSEL_TENSOR_SCALAR_MODE, N)


def _compare(t, s, m, h, g, q):
    CompareScalar(m, s, f32(0.5), CMPMODE.LT, N)


def _cast(t, s, m, h, g, q):
    Cast(h, s, RoundMode.CAST_RINT, N)


def _duplicate(t, s, m, h, g, q):
    Duplicate(t, f32(1.0), N)


def _copy_in(t, s, m, h, g, q):
    DataCopy(t, g, N)


def _pad_out(t, s, m, h, g, q):
    DataCopyPad(g, t, DataCopyExtParams(1, N * 4, 0, 0, 0))


def _pad_in(t, s, m, h, g, q):
    DataCopyPad(t, g, DataCopyExtParams(1, N * 4, 0, 0, 0), DataCopyPadExtParams[f32](
        False, 0, 0, 0))


def _flags(t, s, m, h, g, q):
    SetFlag[HardEvent.V_MTE3](EVENT_ID0)
    WaitFlag[HardEvent.V_MTE3](EVENT_ID0)


def _barrier(t, s, m, h, g, q):
    PipeBarrier[PIPE_V]()


def _queue_cycle(t, s, m, h, g, q):
    x = q.AllocTensor[f32]()
    q.EnQue(x)
    y = q.DeQue[f32]()
    q.FreeTensor(y)


def _nothing(t, s, m, h, g, q):
    pass


CASES: dict[str, tuple[Callable, int]] = {  # name -> (body, calls per body)
    "Muls": (_muls, 1), "Exp": (_exp, 1), "Div": (_div, 1), "Select": (_select, 1),
    "CompareScalar": (_compare, 1),
    "Cast": (_cast, 1), "Duplicate": (_duplicate, 1), "DataCopy in": (_copy_in, 1),
    "DataCopyPad in": (_pad_in, 1), "DataCopyPad out": (_pad_out, 1),
    "SetFlag+WaitFlag": (_flags, 2), "PipeBarrier": (_barrier, 1),
    "TQue cycle (4 calls)": (_queue_cycle, 1),
}


def _kernel(body: Callable, calls: int) -> Callable:
    def kernel(gm: object) -> None:
        args = _setup(gm)
        for _ in range(calls):
            body(*args)
    return kernel


def measure(calls: int, repeat: int) -> dict[str, float]:
    gm = np.zeros(4096, np.float32)
    base = _kernel(_nothing, calls)
    for body, _ in CASES.values():  # warm every jit
        ascsim.launch(_kernel(body, 2), 1, gm)
    t0, _ = best_of(repeat, lambda: ascsim.launch(base, 1, gm))
    out = {}
    for name, (body, per) in CASES.items():
        k = _kernel(body, calls)
        t, _ = best_of(repeat, lambda k=k: ascsim.launch(k, 1, gm))
        out[name] = (t - t0) / (calls * per) * 1e6
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print(f"{'instruction':<22} us per call")
    for name, us in measure(args.calls, args.repeat).items():
        print(f"{name:<22} {us:10.2f}")


if __name__ == "__main__":
    main()
