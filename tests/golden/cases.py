"""The golden case matrix of each operator: which outputs tests/golden/<op>.json pins, how each
case's inputs are built, how the op is run and what its numpy model says.

Every case is named `<dtype>/<attributes>/<inputs>/<shape>`. Inputs are one of
- `random`: fixed-seed uniform draws (the seed is the CRC-32 of the case id); from 64 elements
  on, the dtype's special values are written over the first elements of every input;
- `specials`: the cross product of special-value columns (NaN, ±Inf, ±0, subnormals, the largest
  finite value, 1 and its neighbours, plus the op's own interesting points);
- `ties`: inputs whose float32 result lies exactly halfway between two values of the output
  dtype, so the final narrowing cast's round-to-nearest-even decides every element.

Adding an operator is adding an `Operator` to OPERATORS: its case list and four small functions
(draw random inputs, build the special-value inputs, run the op, evaluate its model).
`pytest --update-golden` then writes its store; the determinism test and the store/case-list
agreement test pick it up too.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np

from ascsim import aclnn
from ascsim.testing.specials import cross, narrowing_ties, special_values

F32, F16, BF16 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)
DTYPES = (F32, F16, BF16)
POISON = 0xA5  # the byte every output starts as: an element the kernel skips cannot pass
SPRINKLE_FROM = 64  # random inputs of at least this many elements start with special values


@dataclass(frozen=True, eq=False)
class Case:
    id: str
    dtype: np.dtype              # the output dtype
    shape: tuple[int, ...]
    inputs: str                  # "random", "specials" or "ties"
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def seed(self) -> int:
        return zlib.crc32(self.id.encode())


Inputs = dict[str, np.ndarray | None]


Draw = Callable[[np.random.Generator, int], Inputs]


@dataclass(frozen=True)
class Operator:
    name: str                                          # the store: tests/golden/<name>.json
    cases: tuple[Case, ...]
    draw: Callable[[Case], Draw]                       # flat random inputs of n elements
    specials: Callable[[Case], Inputs]                 # the special-value cross product
    run: Callable[[Case, Inputs, int], np.ndarray]     # (case, inputs, threads) -> output
    model: Callable[[Case, Inputs], np.ndarray]
    determinism_case: str                              # a multi-core case id
    ties: Callable[[Case], Inputs] | None = None       # default: search random draws
    # whether random inputs get the dtype's special values over their first elements (a sum
    # of all elements would be NaN for every case with them)
    sprinkle: Callable[[Case], bool] = staticmethod(lambda case: True)

    def case(self, case_id: str) -> Case:
        return next(c for c in self.cases if c.id == case_id)

    def make_inputs(self, case: Case) -> Inputs:
        if case.inputs == "specials":
            return self.specials(case)
        if case.inputs == "ties" and self.ties is not None:
            return self.ties(case)
        if case.inputs == "ties":
            return find_ties(self.draw(case), lambda i: self.model(case, widen(i)), case.dtype,
                             case.seed, case.shape[0])
        n = int(np.prod(case.shape))
        flat = self.draw(case)(np.random.default_rng(case.seed), n)
        for k, a in enumerate(flat.values()):
            if a is not None and a.size == n >= SPRINKLE_FROM and self.sprinkle(case):
                head_specials(a, a.dtype, 3 * k)
        return {name: None if a is None else a.reshape(case.shape) if a.size == n else a
                for name, a in flat.items()}


def poisoned(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    out = np.empty(shape, dtype)
    out.reshape(-1).view(np.uint8).fill(POISON)
    return out


def shape_id(shape: tuple[int, ...]) -> str:
    return "x".join(map(str, shape)) if shape else "scalar"


def head_specials(a: np.ndarray, dtype: np.dtype, offset: int = 0) -> np.ndarray:
    """`a` with the dtype's special values (rotated by `offset`) over its first elements."""
    flat = a.reshape(-1)
    s = np.roll(special_values(dtype), -offset)
    k = min(flat.size, s.size)
    flat[:k] = s[:k]
    return a


def find_ties(draw: Draw, result_f32: Callable[[Inputs], np.ndarray], dtype: np.dtype,
              seed: int, count: int) -> Inputs:
    """`count` input elements (drawn by `draw`, every input element-wise) whose float32 result
    is a rounding tie for `dtype`, found by drawing batches from a fixed seed."""
    rng = np.random.default_rng(seed)
    found: list[Inputs] = []
    have = 0
    for _ in range(64):
        batch = draw(rng, 1 << 18)
        with np.errstate(all="ignore"):
            tie = narrowing_ties(result_f32(batch), dtype)
        found.append({k: None if v is None else v[tie] for k, v in batch.items()})
        have += int(tie.sum())
        if have >= count:
            break
    if have < count:
        raise RuntimeError(f"only {have} rounding ties found for {dtype}")
    return {k: None if v is None else np.concatenate([f[k] for f in found])[:count]
            for k, v in found[0].items()}


def widen(inputs: Inputs) -> Inputs:
    """The inputs exactly widened to float32: the model then returns its float32 result."""
    return {k: None if v is None else v.astype(F32) for k, v in inputs.items()}


def case_id(dtype: np.dtype, attrs: str, inputs: str, shape: tuple[int, ...]) -> str:
    size = {"specials": "cross"}.get(inputs, shape_id(shape))
    return f"{dtype.name}/{attrs}/{inputs}/{size}"


# ---- LogitGrad -------------------------------------------------------------------------------

def _logit_grad() -> Operator:
    from kernels_py.logit_grad import aclnnLogitGrad, aclnnLogitGradGetWorkspaceSize
    from kernels_py.logit_grad.reference import numpy_model

    big = (3 * 8192 * 48 + 5,)           # 48 cores, 3 or 4 tiles each
    shapes = ((1,), (7,), (8193,), (2, 3, 1, 5, 1, 7, 3, 2), (64, 8193))

    def case(dt: np.dtype, eps: float, inputs: str, shape: tuple[int, ...] = ()) -> Case:
        return Case(case_id(dt, f"eps={eps:g}", inputs, shape), dt, shape, inputs, {"eps": eps})

    def cases() -> Iterator[Case]:
        for dt in DTYPES:
            for eps in (-1.0, 0.25):
                for shape in shapes:
                    yield case(dt, eps, "random", shape)
            yield case(dt, -1.0, "random", big)
            for eps in (0.0, -0.0, 1e-6, 0.5, 1.0, math.nan):
                yield case(dt, eps, "random", (8193,))
            for eps in (-1.0, -0.0, 0.0, 1e-6, 0.25, 1.0, 2.0, math.inf, math.nan):
                yield case(dt, eps, "specials")
            if dt != F32:
                yield case(dt, -1.0, "ties", (64,))

    def draw(c: Case) -> Draw:
        def f(rng: np.random.Generator, n: int) -> Inputs:
            return {"x": rng.uniform(-0.25, 1.25, n).astype(F32).astype(c.dtype),
                    "dy": rng.uniform(-100, 100, n).astype(F32).astype(c.dtype)}
        return f

    def specials(c: Case) -> Inputs:
        points = np.array([0.25, 0.5, 0.75, 1e-6, 0.2499, 0.2501, 1 - 1e-6, -1e-6], F32)
        x, dy = cross(np.concatenate([special_values(c.dtype), points.astype(c.dtype)]),
                      special_values(c.dtype))
        return {"x": x, "dy": dy}

    def ties(c: Case) -> Inputs:
        """fp16: found among random draws. bf16: q = dy / (x (1 - x)) is a bf16 tie for only
        three (x, dy mantissa) pairs (an exhaustive search over every bf16 x in (0, 1) and dy in
        [1, 2)), so those, with dy's sign and exponent varied, are the case."""
        if c.dtype != BF16:
            return find_ties(draw(c), lambda i: model(c, widen(i)), c.dtype, c.seed,
                             c.shape[0])
        every = np.arange(0x7F80, dtype=np.uint16).view(BF16)
        v = every.astype(F32)
        xs, dys = every[(v > 0) & (v < 1)], every[(v >= 1) & (v < 2)]
        x, dy = np.repeat(xs, dys.size), np.tile(dys, xs.size)
        tie = narrowing_ties(model(c, widen({"x": x, "dy": dy})), BF16)
        scales = np.array([s * 2.0 ** k for k in range(-4, 8) for s in (1, -1)], F32)
        x, scale = cross(x[tie], scales)
        dy = (cross(dy[tie], scales)[0].astype(F32) * scale).astype(BF16)  # exact: 2**k
        return {"x": x[:c.shape[0]], "dy": dy[:c.shape[0]]}

    def run(c: Case, inputs: Inputs, threads: int) -> np.ndarray:
        out = poisoned(inputs["x"].shape, c.dtype)
        with aclnn.device(threads=threads):
            size, executor = aclnnLogitGradGetWorkspaceSize(inputs["x"], inputs["dy"],
                                                            c.params["eps"], out)
            aclnnLogitGrad(None, size, executor)
        return out

    def model(c: Case, inputs: Inputs) -> np.ndarray:
        return numpy_model(inputs["x"], inputs["dy"], c.params["eps"])

    return Operator("logit_grad", tuple(cases()), draw, specials, run, model,
                    determinism_case=case(BF16, -1.0, "random", big).id, ties=ties)


# ---- SigmoidCrossEntropyWithLogitsGradV2 -----------------------------------------------------

WEIGHTS = {"no_weights": (False, False), "weight": (True, False), "pos_weight": (False, True),
           "both_weights": (True, True)}


def _sce() -> Operator:
    from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import (
        REDUCTIONS,
        aclnnBinaryCrossEntropyWithLogitsBackward,
        aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize,
        run_kernel,
    )
    from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2.reference import (
        direct_model,
        numpy_model,
    )

    big = (1003, 997)        # ~1e6 elements: 32 cores for fp32 with weights, 48 otherwise

    def case(dt: np.dtype, path: str, reduction: str, weights: str, inputs: str,
             shape: tuple[int, ...] = (), self_dtype: np.dtype | None = None) -> Case:
        promoted = "" if self_dtype is None else f"self={self_dtype.name},"
        return Case(case_id(dt, f"{promoted}{path},{reduction},{weights}", inputs, shape), dt,
                    shape, inputs, {"path": path, "reduction": reduction, "weights": weights,
                                    "self_dtype": self_dtype or dt})

    def cases() -> Iterator[Case]:
        for dt in DTYPES:
            for reduction in REDUCTIONS:
                for weights in WEIGHTS:
                    yield case(dt, "aclnn", reduction, weights, "random", (1037,))
            for shape in ((1,), (2, 3, 4, 5, 1, 3, 2), big):
                yield case(dt, "aclnn", "mean", "both_weights", "random", shape)
            for weights in WEIGHTS:   # the kernel's four template variants, without aclnn
                yield case(dt, "kernel", "mean", weights, "random", (8193,))
            yield case(dt, "kernel", "none", "no_weights", "random", (1,))
            yield case(dt, "aclnn", "none", "both_weights", "specials")
            yield case(dt, "aclnn", "mean", "no_weights", "specials")
            yield case(dt, "kernel", "none", "no_weights", "specials")
            yield case(dt, "kernel", "sum", "both_weights", "specials")
            if dt != F32:   # bf16 ties are rare (~14 per million draws): fewer of them
                n = (64,) if dt == F16 else (16,)
                yield case(dt, "aclnn", "none", "no_weights", "ties", n)
                yield case(dt, "kernel", "none", "pos_weight", "ties", n)
        # PyTorch promotion in the aclnn layer: fp16 self with fp32 target; bf16 with fp16
        yield case(F32, "aclnn", "none", "both_weights", "random", (1037,), F16)
        yield case(F16, "aclnn", "sum", "weight", "random", (1037,), BF16)

    def one_grad(c: Case) -> bool:
        """mean and sum through aclnn take a [1] grad_output, as the operator's ST cases do."""
        return c.params["reduction"] != "none" and c.params["path"] == "aclnn"

    def draw(c: Case) -> Draw:
        has_w, has_pw = WEIGHTS[c.params["weights"]]
        sdt = c.params["self_dtype"]

        def f(rng: np.random.Generator, n: int) -> Inputs:
            def u(lo: float, hi: float, m: int, t: np.dtype) -> np.ndarray:
                return rng.uniform(lo, hi, m).astype(F32).astype(t)
            return {"grad_output": u(-1, 1, 1 if one_grad(c) else n, sdt),
                    "self": u(-10, 10, n, sdt), "target": u(0, 1, n, c.dtype),
                    "weight": u(-1, 1, n, sdt) if has_w else None,
                    "pos_weight": u(0, 3, n, sdt) if has_pw else None}
        return f

    def specials(c: Case) -> Inputs:
        sdt = c.params["self_dtype"]
        points = np.array([0.5, 17, -17, 20, -20, 88.5, -88.5, 89, -89, 100, -100], F32)
        targets = np.array([0, 1, 0.5, -0.0, np.nan, np.inf, 2, -1], F32)
        x, y = cross(np.concatenate([special_values(sdt), points.astype(sdt)]),
                     targets.astype(c.dtype))
        other = np.concatenate([special_values(sdt), np.array([1, 2, 0.5], F32).astype(sdt)])
        has_w, has_pw = WEIGHTS[c.params["weights"]]
        return {"grad_output": np.ones(1, sdt) if one_grad(c) else np.resize(other, x.size),
                "self": x, "target": y,
                "weight": np.resize(np.roll(other, 5), x.size) if has_w else None,
                "pos_weight": np.resize(np.roll(other, 11), x.size) if has_pw else None}

    def run(c: Case, inputs: Inputs, threads: int) -> np.ndarray:
        p = c.params
        if p["path"] == "kernel":
            return run_kernel(inputs["self"], inputs["target"], inputs["grad_output"],
                              inputs["weight"], inputs["pos_weight"], p["reduction"],
                              threads=threads)[0]
        out = poisoned(inputs["self"].shape, inputs["target"].dtype)
        with aclnn.device(threads=threads):
            size, executor = aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
                inputs["grad_output"], inputs["self"], inputs["target"], inputs["weight"],
                inputs["pos_weight"], REDUCTIONS[p["reduction"]], out)
            aclnnBinaryCrossEntropyWithLogitsBackward(None, size, executor)
        return out

    def model(c: Case, inputs: Inputs) -> np.ndarray:
        p = c.params
        if p["path"] == "kernel":
            return direct_model(inputs["self"], inputs["target"], inputs["grad_output"],
                                inputs["weight"], inputs["pos_weight"], p["reduction"])
        return numpy_model(inputs["grad_output"], inputs["self"], inputs["target"],
                           inputs["weight"], inputs["pos_weight"], p["reduction"])

    return Operator("sigmoid_cross_entropy_with_logits_grad_v2", tuple(cases()), draw,
                    specials, run, model,
                    determinism_case=case(BF16, "aclnn", "mean", "both_weights", "random",
                                          big).id)


# ---- CrossEntropyLoss ------------------------------------------------------------------------

def _cross_entropy_loss() -> Operator:
    """One output per case: the operator's loss ((N) for none, (1) otherwise) followed by its
    log_prob (N, C), flattened, in the input's dtype."""
    from kernels_py.cross_entropy_loss import (
        aclnnCrossEntropyLoss,
        aclnnCrossEntropyLossGetWorkspaceSize,
    )
    from kernels_py.cross_entropy_loss.reference import numpy_model

    big = (97, 1500)        # 48 cores: 1 front core of 3 rows, 47 tail cores of 2
    attrs = ((0.0, False, -100), (0.2, True, 1))

    def case(dt: np.dtype, reduction: str, ls: float, weight: bool, ignore: int, inputs: str,
             shape: tuple[int, ...] = ()) -> Case:
        name = f"{reduction},ls={ls:g},{'weight' if weight else 'no_weight'},ignore={ignore}"
        return Case(case_id(dt, name, inputs, shape), dt, shape, inputs,
                    {"reduction": reduction, "ls": ls, "weight": weight, "ignore": ignore})

    def cases() -> Iterator[Case]:
        for dt in DTYPES:
            for reduction in ("none", "mean", "sum"):
                for ls, weight, ignore in attrs:
                    yield case(dt, reduction, ls, weight, ignore, "random", (61, 33))
                yield case(dt, reduction, 0.1, True, -100, "specials")
            yield case(dt, "mean", 0.1, True, 2, "random", (3, 9000))
            yield case(dt, "sum", 0.0, False, -100, "random", big)

    def draw(c: Case) -> Draw:
        rows, classes = c.shape

        def f(rng: np.random.Generator, n: int) -> Inputs:
            t = rng.integers(0, classes, rows).astype(np.int64)
            t[rng.random(rows) < 0.1] = c.params["ignore"]
            return {"input": rng.uniform(-8, 8, n).astype(F32).astype(c.dtype), "target": t,
                    "weight": rng.uniform(0, 1, classes).astype(F32) if c.params["weight"]
                    else None}
        return f

    def specials(c: Case) -> Inputs:
        """A row per special value s: [s, 0, 1, -1, 2.5], targets cycling over the classes."""
        s = special_values(c.dtype).astype(F32)
        rows = np.stack([s, np.zeros_like(s), np.ones_like(s), -np.ones_like(s),
                         np.full_like(s, 2.5)], axis=1)
        t = (np.arange(s.size) % 5).astype(np.int64)
        w = np.array([0.5, 1.0, 0.0, 2.0, 0.25], F32) if c.params["weight"] else None
        return {"input": rows.astype(c.dtype), "target": t, "weight": w}

    def run(c: Case, inputs: Inputs, threads: int) -> np.ndarray:
        x = inputs["input"]
        n = x.shape[0]
        loss = poisoned((n,) if c.params["reduction"] == "none" else (1,), x.dtype)
        log_prob = poisoned(x.shape, x.dtype)
        with aclnn.device(threads=threads):
            size, executor = aclnnCrossEntropyLossGetWorkspaceSize(
                x, inputs["target"], inputs["weight"], c.params["reduction"], c.params["ignore"],
                c.params["ls"], 0.0, False, loss, log_prob, np.empty(1, x.dtype),
                np.empty(n, x.dtype))
            aclnnCrossEntropyLoss(None, size, executor)
        return np.concatenate([loss.reshape(-1), log_prob.reshape(-1)])

    def model(c: Case, inputs: Inputs) -> np.ndarray:
        p = c.params
        loss, log_prob = numpy_model(inputs["input"], inputs["target"], inputs["weight"],
                                     p["reduction"], p["ignore"], p["ls"])
        return np.concatenate([loss.reshape(-1), log_prob.reshape(-1)])

    return Operator("cross_entropy_loss", tuple(cases()), draw, specials, run, model,
                    determinism_case=case(BF16, "sum", 0.0, False, -100, "random", big).id)


# ---- MSELossV2 (aclnnMseLoss) -----------------------------------------------------------------

def _mse() -> Operator:
    from kernels_py.mse_loss_v2 import REDUCTIONS, aclnnMseLoss, aclnnMseLossGetWorkspaceSize
    from kernels_py.mse_loss_v2.reference import numpy_model, promote

    big = (1_000_003,)   # 48 cores, a full and a tail tile each, 3 elements after the blocks
    shapes = ((1,), (7,), (17,), (6149,), (2, 3, 1, 5, 1, 7, 3, 2))

    def case(dt: np.dtype, reduction: str, inputs: str, shape: tuple[int, ...] = (),
             self_dtype: np.dtype | None = None, target: str = "full") -> Case:
        extra = "" if self_dtype is None else f"self={self_dtype.name},"
        extra += "" if target == "full" else f"target={target},"
        return Case(case_id(dt, f"{extra}{reduction}", inputs, shape), dt, shape, inputs,
                    {"reduction": reduction, "self_dtype": self_dtype or dt, "target": target})

    def cases() -> Iterator[Case]:
        for dt in DTYPES:
            for reduction in REDUCTIONS:
                for shape in shapes:
                    yield case(dt, reduction, "random", shape)
                yield case(dt, reduction, "specials")
            yield case(dt, "mean", "random", big)
            yield case(dt, "none", "random", (1031,), target="1")   # target [1] broadcast
            if dt != F32:
                yield case(dt, "none", "ties", (64,))
        # PyTorch promotion in the aclnn layer: fp16 self with fp32 target; fp16 with bf16
        yield case(F32, "sum", "random", (6149,), F16)
        yield case(F32, "mean", "random", (6149,), BF16)

    def draw(c: Case) -> Draw:
        def f(rng: np.random.Generator, n: int) -> Inputs:
            m = 1 if c.params["target"] == "1" else n
            return {"self": rng.uniform(-1, 1, n).astype(F32).astype(c.params["self_dtype"]),
                    "target": rng.uniform(-1, 1, m).astype(F32).astype(c.dtype)}
        return f

    def specials(c: Case) -> Inputs:
        x, y = cross(special_values(c.params["self_dtype"]), special_values(c.dtype))
        return {"self": x, "target": y}

    def run(c: Case, inputs: Inputs, threads: int) -> np.ndarray:
        x, y = inputs["self"], inputs["target"]
        shape = np.broadcast_shapes(x.shape, y.shape) if c.params["reduction"] == "none" else ()
        out = poisoned(shape, promote(x.dtype, y.dtype))
        with aclnn.device(threads=threads):
            size, executor = aclnnMseLossGetWorkspaceSize(x, y, REDUCTIONS[c.params["reduction"]],
                                                          out)
            aclnnMseLoss(None, size, executor)
        return out

    def model(c: Case, inputs: Inputs) -> np.ndarray:
        return numpy_model(inputs["self"], inputs["target"], c.params["reduction"])

    return Operator("mse_loss_v2", tuple(cases()), draw, specials, run, model,
                    determinism_case=case(BF16, "mean", "random", big).id,
                    sprinkle=lambda c: c.params["reduction"] == "none")


OPERATORS: dict[str, Operator] = {op.name: op for op in (_logit_grad(), _sce(), _mse(),
                                                         _cross_entropy_loss())}
