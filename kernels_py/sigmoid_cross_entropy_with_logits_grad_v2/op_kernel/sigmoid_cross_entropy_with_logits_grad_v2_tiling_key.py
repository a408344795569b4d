"""Tiling keys of SigmoidCrossEntropyWithLogitsGradV2: the dtype of predict. The public kernel is
built once per dtype (DTYPE_PREDICT) and ignores the key; ascsim builds one entry for all three
and dispatches on it.
"""

SIGMOID_CE_GRAD_V2_TILING_KEY_HALF = 0
SIGMOID_CE_GRAD_V2_TILING_KEY_FLOAT = 1
SIGMOID_CE_GRAD_V2_TILING_KEY_BF16 = 2
