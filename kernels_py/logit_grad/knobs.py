"""LogitGrad's tiling knobs for profiling sweeps (ascsim.tuning): the core count. The tile size
(8192 elements) is a kernel constant that the UB layout depends on, so it is not a knob."""

from __future__ import annotations

from ascsim.errors import ParameterError
from ascsim.host import PlatformAscendC, TilingContext
from ascsim.runtime import Run
from ascsim.tuning import TilingKnob, register_knob


def _apply_cores(context: TilingContext, value: int) -> None:
    aiv = PlatformAscendC(context.GetPlatformInfo()).GetCoreNumAiv()
    if not 1 <= int(value) <= aiv:
        raise ParameterError(f"cores={value}: LogitGrad runs on 1..{aiv} cores on this profile")
    context.tiling_data.needCoreNum = int(value)
    context.SetBlockDim(int(value))


def _read_cores(run: Run) -> int:
    return int(run.tiling.needCoreNum)


CORES = register_knob("LogitGrad", TilingKnob(
    "cores", "needCoreNum: cores the tiles are split over", _read_cores, _apply_cores))
KNOBS = (CORES,)  # the runner's Operator lists them
