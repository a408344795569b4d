"""Slips a C++ -> Python transcription makes get an error that says what the C++ form is and
how it is written here (not "'_Bracket' object is not callable"); a launch without the tiling
struct says so; a scalar past half's range is a documented conversion to Inf, not a numpy
RuntimeWarning."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ascsim
from ascsim.ascendc import *  # noqa: F403
from ascsim.ascendc import kernel_sync
from ascsim.errors import ParameterError, UsageError
from kernels_py.logit_grad.op_kernel.logit_grad_tiling_data import LogitGradTilingData


def _launch(body, *gm):
    @kernel_sync("manual")
    def kernel(x, workspace, tiling):
        body()
    return ascsim.launch(kernel, 1, *gm, sanitize="off")


def _queue_without_type():
    pipe = TPipe()  # noqa: F405
    que = TQue[QuePosition.VECIN, 1]()  # noqa: F405
    pipe.InitBuffer(que, 1, 256)
    que.AllocTensor()


def _buffer_without_type():
    pipe = TPipe()  # noqa: F405
    buf = TBuf[TPosition.VECCALC]()  # noqa: F405
    pipe.InitBuffer(buf, 256)
    buf.Get()


@pytest.mark.parametrize("body, says", [
    (_queue_without_type, "C++ AllocTensor<T>(...) is written AllocTensor[T](...)"),
    (_buffer_without_type, "C++ Get<T>(...) is written Get[T](...)"),
    (lambda: SetFlag(HardEvent.V_MTE3, EVENT_ID0),  # noqa: F405
     "SetFlag<HardEvent::MTE2_V>(EVENT_ID0) is written SetFlag[HardEvent.MTE2_V](EVENT_ID0)"),
    (lambda: WaitFlag(HardEvent.V_MTE3, EVENT_ID0), "is written WaitFlag[HardEvent"),  # noqa: F405
    (lambda: PipeBarrier(PIPE_V), "PipeBarrier<PIPE_V>() is written PipeBarrier[PIPE_V]()"),  # noqa: F405
])
def test_a_template_call_without_brackets_says_how_to_write_it(body, says: str) -> None:
    x = np.zeros(64, np.float32)
    with pytest.raises(ParameterError) as e:
        _launch(body, x, None, None)
    assert says in str(e.value)


def test_a_launch_without_tiling_says_so() -> None:
    @kernel_sync("manual")
    def kernel(x, y, workspace, tiling):
        pass
    x = np.zeros(8, np.float32)
    with pytest.raises(UsageError, match=r"gives 3: tiling missing; pass the tiling struct as "
                                         r"tiling=\.\.\."):
        ascsim.launch(kernel, 1, x, x, None)
    tiling = LogitGradTilingData(elementNum=8, eps=-1.0, needCoreNum=1)
    with pytest.raises(UsageError, match="gives 3: workspace missing; pass every GM address"):
        ascsim.launch(kernel, 1, x, x, tiling=tiling)
    ascsim.launch(kernel, 1, x, x, None, tiling=tiling)  # complete: runs


def test_a_scalar_past_halfs_range_becomes_inf_without_a_warning() -> None:
    out = np.zeros(128, np.float16)

    @kernel_sync("manual")
    def kernel(y, workspace, tiling):
        pipe = TPipe()  # noqa: F405
        buf = TBuf[TPosition.VECCALC]()  # noqa: F405
        pipe.InitBuffer(buf, 256)
        t = buf.Get[half]()  # noqa: F405
        Duplicate(t, 1.0, 128)  # noqa: F405
        Muls(t, t, 1e6, 128)  # noqa: F405
        yGm = GlobalTensor[half]()  # noqa: F405
        yGm.SetGlobalBuffer(y, 128)
        PipeBarrier[PIPE_ALL]()  # noqa: F405
        DataCopy(yGm, t, 128)  # noqa: F405

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ascsim.launch(kernel, 1, out, None, None, sanitize="off")
    assert (out == np.inf).all()
