"""The cost model: what every recorded instruction costs, read from the instruction registry
(each entry's cost kind and cost table) and the hardware profile's `[cost]` section.

The scheduler needs five numbers per record, which `core_costs` computes for a whole core at a
time (numpy over the record columns; a Python loop only over copies and sync records):

- `kind`: how the scheduler treats it (K_OP, K_COPY, K_SET, K_WAIT, K_BAR, K_BAR_ALL, K_SCALAR);
- `pipe`: the pipe that executes it (PIPE_S for everything the scalar unit runs itself);
- `fixed`: cycles that do not depend on size: vector startup, copy latency, sync cost;
- `work`: vector `repeats x cycles_per_repeat`, or a copy's *effective* bytes: the bytes moved
  times the small-transfer penalty, divided by the unaligned-address bandwidth factor. The
  scheduler turns effective bytes into cycles at the bandwidth the copy gets;
- `flag`: the (event, id) flag index of SetFlag/WaitFlag, else -1.

docs/timing.md gives every formula with the profile's numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core import PIPE_ALL, PIPE_MTE2, PIPE_MTE3, PIPE_S, PIPE_V
from ..dtypes import ALL_DTYPES, BY_CODE
from ..errors import ProfileError
from ..instructions.crosscore import cross_core_role, cross_wait_partner
from ..profile import CostParams, HardwareProfile
from ..records import Columns, gm_memory
from ..registry import REGISTRY, AccessPattern, CostKind

__all__ = ["K_OP", "K_COPY", "K_SET", "K_WAIT", "K_BAR", "K_BAR_ALL", "K_SCALAR", "K_XSYNC",
           "K_XWAIT", "KIND_NAMES",
           "CostTables", "CoreCosts", "cost_tables", "core_costs", "copy_factor",
           "require_cost", "PEN_SMALL", "PEN_UNALIGNED", "cross_wait_partner"]

K_OP, K_COPY, K_SET, K_WAIT, K_BAR, K_BAR_ALL, K_SCALAR, K_XSYNC, K_XWAIT = range(9)
KIND_NAMES = ("op", "copy", "set", "wait", "barrier", "barrier_all", "scalar", "cross_sync",
              "cross_wait")

# bits of CoreCosts.penalty: which GM penalties a copy paid
PEN_SMALL, PEN_UNALIGNED = 1, 2

_N_DTYPE_CODES = max(t.code for t in ALL_DTYPES) + 1
_DTYPE_SIZE = np.zeros(_N_DTYPE_CODES, np.int64)
for _t in ALL_DTYPES:
    _DTYPE_SIZE[_t.code] = _t.size

# the scheduler's kind of each registry cost kind (PipeBarrier<PIPE_ALL> becomes K_BAR_ALL)
_SCHEDULER_KIND = {CostKind.VECTOR: K_OP, CostKind.COPY: K_COPY, CostKind.SET_FLAG: K_SET,
                   CostKind.WAIT_FLAG: K_WAIT, CostKind.BARRIER: K_BAR,
                   CostKind.SCALAR: K_SCALAR, CostKind.CROSS_CORE: K_XSYNC}


def require_cost(profile: HardwareProfile) -> CostParams:
    if profile.cost is None:
        raise ProfileError(f"profile {profile.name} ({profile.path}) has no [cost] section, so "
                           "it cannot time a run; copy the one of "
                           "ascsim/profiles/Ascend910B2.toml and adjust it")
    return profile.cost


@dataclass(frozen=True)
class CostTables:
    """Per-instruction lookup tables over the registry, for one set of cost parameters."""

    kind: np.ndarray          # [instr] -> K_*
    startup: np.ndarray       # [instr, dtype code] -> cycles
    per_repeat: np.ndarray    # [instr, dtype code] -> cycles per 256-byte repeat
    own_entry: np.ndarray     # [instr] -> the cost table is a [cost.vector.<table>] of its own
    gm_scalar: np.ndarray     # [instr] -> a scalar element access whose cost depends on GM/UB


def cost_tables(cost: CostParams) -> CostTables:
    """The lookup tables for `cost` and every registered instruction (built per timeline)."""
    n = len(REGISTRY)
    kind = np.zeros(n, np.int8)
    startup = np.zeros((n, _N_DTYPE_CODES))
    per_repeat = np.zeros((n, _N_DTYPE_CODES))
    own = np.zeros(n, np.bool_)
    gm_scalar = np.zeros(n, np.bool_)
    for ins in REGISTRY:
        kind[ins.id] = _SCHEDULER_KIND[ins.cost.kind]
        table = ins.cost.table or ins.name
        own[ins.id] = table in cost.vector
        gm_scalar[ins.id] = ins.cost.kind is CostKind.SCALAR and any(
            op.pattern is AccessPattern.ELEMENT for op in ins.memory_operands)
        vc = cost.vector_cost(table)
        for code in range(_N_DTYPE_CODES):
            dt = BY_CODE.get(code)
            startup[ins.id, code], per_repeat[ins.id, code] = vc.for_dtype(
                dt.name if dt is not None else None)
    return CostTables(kind, startup, per_repeat, own, gm_scalar)


def copy_factor(cost: CostParams, burst_bytes: np.ndarray, gm_offset: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """(bandwidth cost factors, penalty bits) of GM copies, elementwise over arrays of burst
    sizes and GM start offsets: the small-transfer penalty falls linearly from
    `small_transfer_penalty` at 0 bytes to 1 at `small_transfer_bytes`; a GM address off the
    `align_bytes` grid divides the bandwidth by `unaligned_bandwidth_factor`."""
    small = cost.small_transfer_bytes
    is_small = burst_bytes < small
    factor = np.where(is_small, 1.0 + (cost.small_transfer_penalty - 1.0)
                      * (1.0 - burst_bytes / small), 1.0)
    unaligned = gm_offset % cost.gm_align_bytes != 0
    factor = np.where(unaligned, factor / cost.unaligned_bandwidth_factor, factor)
    bits = np.where(is_small, PEN_SMALL, 0) | np.where(unaligned, PEN_UNALIGNED, 0)
    return factor, bits.astype(np.uint8)


@dataclass
class CoreCosts:
    """The scheduler's view of one core's records (arrays in record order)."""

    instr: np.ndarray     # int64 registry id
    kind: np.ndarray      # int8, K_*
    pipe: np.ndarray      # int8, executing pipe
    fixed: np.ndarray     # float64 cycles
    work: np.ndarray      # float64 cycles (K_OP) or effective bytes (K_COPY)
    flag: np.ndarray      # int32 flag index of SetFlag/WaitFlag, else -1
    nbytes: np.ndarray    # int64 GM bytes moved by a copy, else 0
    penalty: np.ndarray   # uint8 PEN_* bits of a copy
    default_costed: np.ndarray  # bool: a vector op costed with [cost.vector.default]
    gm_scalar_count: int  # GetValue/SetValue records on GM


def core_costs(rows: Sequence[tuple], cost: CostParams, tables: CostTables | None = None
               ) -> CoreCosts:
    """Cost every record of one core (see the module docstring)."""
    tables = tables or cost_tables(cost)
    cols = Columns(rows)
    m = cols.size
    iid = cols.op
    pipe = cols.pipe.astype(np.int8)
    dt, count, repeats = cols.dtype, cols.count, cols.repeats
    kind = tables.kind[iid]  # a fresh array: safe to edit below
    fixed = np.zeros(m)
    work = np.zeros(m)
    flag = np.full(m, -1, np.int32)
    nbytes = np.zeros(m, np.int64)
    penalty = np.zeros(m, np.uint8)

    # A UB->UB DataCopy runs on the vector pipe: a vector op over its 256-byte repeats.
    vcopy = (kind == K_COPY) & (pipe == PIPE_V)
    if vcopy.any():
        kind[vcopy] = K_OP
        repeats = np.where(vcopy, (count * _DTYPE_SIZE[dt] + 255) >> 8, repeats)
    on_s = (pipe == PIPE_S) & (kind == K_OP)
    kind[on_s] = K_SCALAR  # vector work issued to the scalar pipe: the scalar unit runs it

    op = kind == K_OP
    fixed[op] = tables.startup[iid[op], dt[op]]
    work[op] = tables.per_repeat[iid[op], dt[op]] * repeats[op]
    default_costed = op & ~tables.own_entry[iid]

    bar = kind == K_BAR
    if bar.any():
        fixed[bar] = cost.barrier_cycles
        kind[bar & (pipe == PIPE_ALL)] = K_BAR_ALL
    is_set, is_wait = kind == K_SET, kind == K_WAIT
    fixed[is_set] = cost.set_flag_cycles
    fixed[is_wait] = cost.wait_flag_cycles
    sync = np.flatnonzero(is_set | is_wait)
    flag[sync] = cols.mode[sync]

    # cross-core records (crosscore.py): a SyncAll marker waits for every core's matching one
    # (K_XSYNC), a CrossCoreWaitFlag for the set that released it (K_XWAIT, paired by the
    # timeline from the record's params), a CrossCoreSetFlag fires when its pipe has drained
    xc = np.flatnonzero(kind == K_XSYNC)
    for i in xc.tolist():
        role = cross_core_role(rows[i])  # a CROSS_CORE record is one of the three
        if role == "set":
            kind[i] = K_BAR
            fixed[i] = cost.set_flag_cycles
        elif role == "wait":
            kind[i] = K_XWAIT
            fixed[i] = cost.wait_flag_cycles
        else:
            fixed[i] = cost.syncall_cycles
    scalar = kind == K_SCALAR
    fixed[scalar] = cost.scalar_op_cycles
    element = np.flatnonzero(scalar & tables.gm_scalar[iid])
    on_gm = element[[gm_memory(rows[i]) != 0 for i in element.tolist()]]
    fixed[on_gm] = cost.scalar_gm_access_cycles  # GM goes through the DCache
    gm_scalar = int(on_gm.size)

    copies = np.flatnonzero(kind == K_COPY)
    if copies.size:
        p = pipe[copies]
        wrong = np.flatnonzero((p != PIPE_MTE2) & (p != PIPE_MTE3))
        if wrong.size:
            i = int(copies[wrong[0]])
            raise RuntimeError(f"record {i}: a GM copy on pipe {pipe[i]}, not MTE2 or MTE3")
        size = count[copies] * _DTYPE_SIZE[dt[copies]]
        blocks = repeats[copies]
        burst = np.where(blocks > 0, size / np.maximum(blocks, 1), 0.0)
        gm_offset = cols.copy_gm_start(copies)
        factor, bits = copy_factor(cost, burst, gm_offset)
        nbytes[copies] = size
        work[copies] = size * factor
        penalty[copies] = bits
        fixed[copies] = np.where(p == PIPE_MTE2, cost.mte2.latency_cycles,
                                 cost.mte3.latency_cycles)
    return CoreCosts(iid, kind.astype(np.int8), pipe, fixed, work, flag, nbytes, penalty,
                     default_costed, gm_scalar)
