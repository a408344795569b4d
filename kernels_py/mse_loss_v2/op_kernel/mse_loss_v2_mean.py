"""MSELossV2, reduction mean: the sum kernel with every tile's partials scaled by
scale = fl32(1/N) before they join the accumulator. The kernel never divides a total by N:
the result is sum over tiles of fl(fl(tile partial) * fl32(1/N)), not fl(sum / N).
"""

from ascsim.ascendc import *

from .mse_loss_v2_sum import MSELossV2Sum


class MSELossV2Mean(MSELossV2Sum, Generic[T]):
    def Init(self, input, target, output, workspace, tiling):
        self.InitSum(input, target, output, workspace, tiling)
        self.reduceScale_ = tiling.scale
