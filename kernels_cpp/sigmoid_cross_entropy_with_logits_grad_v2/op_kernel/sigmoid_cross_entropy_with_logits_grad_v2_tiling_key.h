/**
 * Tiling keys of SigmoidCrossEntropyWithLogitsGradV2: the dtype of predict. The public kernel is
 * built once per dtype (DTYPE_PREDICT) and ignores the key; ascsim builds one entry for all three
 * and dispatches on it.
 */
#ifndef SIGMOID_CROSS_ENTROPY_WITH_LOGITS_GRAD_V2_TILING_KEY_H
#define SIGMOID_CROSS_ENTROPY_WITH_LOGITS_GRAD_V2_TILING_KEY_H

#define SIGMOID_CE_GRAD_V2_TILING_KEY_HALF 0
#define SIGMOID_CE_GRAD_V2_TILING_KEY_FLOAT 1
#define SIGMOID_CE_GRAD_V2_TILING_KEY_BF16 2

#endif  // SIGMOID_CROSS_ENTROPY_WITH_LOGITS_GRAD_V2_TILING_KEY_H
