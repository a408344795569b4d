"""ascsim.aclnn building blocks used by op_api transcriptions: l0op.Fill with its int64 dims
tensor and rank-0 value tensor (ConvertToTensor / AllocScalar), and BroadcastInferShape."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ascsim.aclnn import CREATE_EXECUTOR, BroadcastInferShape, l0op
from ascsim.host import DataType, Shape


def test_fill_makes_a_tensor_of_the_shape_with_the_value_in_its_dtype():
    e = CREATE_EXECUTOR().get()
    dims = e.ConvertToTensor([2, 3], 2, DataType.DT_INT64)
    assert dims.array.dtype == np.int64 and list(dims.array) == [2, 3]
    value = e.ConvertToTensor(e.AllocScalar(float("nan")), DataType.DT_BF16)
    assert value.array.shape == () and value.array.dtype == np.dtype(ml_dtypes.bfloat16)
    out = l0op.Fill(dims, value, e.AllocIntArray([2, 3], 2), e)
    assert out.array.shape == (2, 3)
    for task in e.tasks:
        task()
    assert out.dtype == DataType.DT_BF16 and np.isnan(out.array.astype(np.float32)).all()


def test_fill_refuses_dims_that_disagree_with_the_shape():
    e = CREATE_EXECUTOR().get()
    dims = e.ConvertToTensor([4], 1, DataType.DT_INT64)
    value = e.ConvertToTensor(e.AllocScalar(0.0), DataType.DT_FLOAT)
    assert l0op.Fill(dims, value, [1], e) is None


def test_broadcast_infer_shape():
    s = Shape()
    assert BroadcastInferShape(Shape([2, 1, 3]), Shape([4, 1]), s) and s == Shape([2, 4, 3])
    t = Shape([7])
    assert not BroadcastInferShape(Shape([2, 3]), Shape([4]), t) and t == Shape([7])
    assert BroadcastInferShape(Shape([]), Shape([5]), s) and s == Shape([5])
