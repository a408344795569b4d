"""Tiling keys of MSELossV2: the reduction (none 10, sum 20, mean 30) plus the dtype digit
(float 1, half 2, bfloat16_t 3), as in the public operator.
"""

MSE_LOSS_V2_KEY_NONE = 10
MSE_LOSS_V2_KEY_SUM = 20
MSE_LOSS_V2_KEY_MEAN = 30
MSE_LOSS_V2_KEY_FLOAT = 1
MSE_LOSS_V2_KEY_HALF = 2
MSE_LOSS_V2_KEY_BF16 = 3
