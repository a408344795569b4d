"""Hardware profiles: the numbers and semantic options of one SoC, loaded from a TOML file.

Every number in a profile file is written as `key = { value = ..., source = "..." }`, so that
each one says where it comes from (a document, an .ini, a measurement, or "assumed"). The
shipped profiles live in `ascsim/profiles/`; a user passes a name (`"Ascend910B2"`) or the path
of a file of their own with the same schema.

The optional `[cost]` section holds the timing model's numbers (docs/timing.md explains each
formula): `[cost]` launch and header costs and the HBM bandwidth, `[cost.scalar]`, `[cost.sync]`,
`[cost.gm]` (transfer-size and alignment penalties), `[cost.mte2]`/`[cost.mte3]` (per-core copy
engines) and `[cost.vector]` with one `[cost.vector.<cost class>]` table per instruction cost
class (`[cost.vector.default]` for the rest). A vector number may depend on the dtype:
`cycles_per_repeat = { value = { default = 8, float = 4 }, source = "..." }`. A profile without
`[cost]` runs kernels but cannot be timed.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from .dtypes import BY_NAME
from .errors import ProfileError

__all__ = ["HardwareProfile", "ProfileError", "load_profile", "profile_names", "DEFAULT_PROFILE",
           "CostParams", "MteCost", "VectorCost"]

DEFAULT_PROFILE = "Ascend910B2"
PROFILE_DIR = Path(__file__).with_name("profiles")


# section -> key -> (python types accepted, check, description)
_SCHEMA: dict[str, dict[str, tuple[tuple[type, ...], Any, str]]] = {
    "core": {
        "aiv_cores": ((int,), lambda v: v >= 1, "AI Vector cores"),
        "clock_mhz": ((int, float), lambda v: v > 0, "core clock in MHz"),
        "ub_bytes": ((int,), lambda v: v > 0 and v % 32 == 0, "Unified Buffer bytes per core"),
        "ub_reserved_bytes": ((int,), lambda v: v >= 0 and v % 32 == 0,
                              "top of UB reserved for library temp (TMP_UB_OFFSET..end)"),
        "bf16": ((bool,), None, "bf16 supported by the vector unit and the aclnn dtype lists"),
    },
    "semantics": {
        "saturation": ((bool,), None, "saturating float conversion mode (CTRL bit 48)"),
        "dummy_fill": ((str,), lambda v: v in ("nan", "first_element", "zero",
                                               "pad_if_isPad_else_first_elem"),
                       "what the bytes the hardware leaves unspecified read as (nan or zero; "
                       "the other two read as 0xFF too) and DataCopyPad's dummy bytes without "
                       "left/right padding: that byte, the block's first element, or with "
                       "isPad the pad value and else the first element"),
        "pad_reg_init": ((int,), lambda v: 0 <= v < 1 << 64,
                         "the MOV_PAD_VAL register (DataCopyPad's pad value) at kernel start"),
        # reductions (ascendc_more.md 1; instructions/reduce.py): UNKNOWN behaviours
        "reduce_masked_lane": ((str,), lambda v: v == "zero",
                               "how a masked lane enters a reduction's sum tree"),
        "reduce_nan": ((str,), lambda v: v == "propagate", "NaN lanes in a reduction"),
        "pair_one_lane": ((str,), lambda v: v == "copy_active",
                          "PairReduceSum on a pair with one enabled lane"),
        "acc_reduce_writes_partials": ((bool,), lambda v: v is False,
                                       "count-form ReduceSum writes per-repeat partials to dst"),
        "reduce_tree": ((str,), lambda v: v in ("pairwise", "sequential"),
                        "the shape of a sum's adder tree over a repeat's (block's) lanes: a "
                        "binary tree of adjacent pairs, or lane order; every addition rounded "
                        "to T"),
        "acc_dtype": ((str,), lambda v: v in ("T", "float"),
                      "precision of the count-form ReduceSum's in-order sum of repeat sums"),
        "reduce_tmp_clobber": ((bool,), None,
                               "ReduceMax/Min write their intermediates into sharedTmpBuffer"),
        "maxmin_spr_index": ((str,), lambda v: v in ("global", "per_repeat"),
                             "the MAX_MIN_CNT index: r*E + lane, or the lane"),
        "atomic_type_mismatch": ((str,), lambda v: v == "error",
                                 "a DMA atomic whose T differs from the copied dtype"),
        "user_ws_offset": ((int,), lambda v: v >= 0 and v % 32 == 0,
                           "bytes of system workspace before GetUserWorkspace's user part"),
        # the next vector ops (ascendc_more.md 5): UNKNOWN behaviours
        "gather_repeat_wrap": ((str,), lambda v: v in ("emulate", "none"),
                               "Gather count form from 256 repeats on: the uint8 repeat count "
                               "wraps (emulate) or not (none)"),
        "axpy_fma": ((bool,), None, "Axpy rounds scalar*src + dst once (fused) or twice"),
        "shift_full": ((str,), lambda v: v == "zero_or_sign",
                       "ShiftLeft/ShiftRight by the full width: 0, or the sign (signed)"),
        "shift_round": ((str,), lambda v: v == "add_half_then_shift",
                        "ShiftRight's roundEn: add 2**(n-1), then shift"),
        "power_impl": ((str,), lambda v: v == "powf",
                       "Power: one correctly rounded fp32 powf (the composition is unknown)"),
        "advmath_impl": ((str,), lambda v: v in ("div", "reciprocal"),
                         "Sigmoid and Tanh: their quotient as Duplicate(1) + Div (div), or as "
                         "Reciprocal of the denominator (reciprocal: sigmoid = 1/(1 + e^-x), "
                         "tanh = 1 - 2/(e^2x + 1))"),
        # the algorithms of the transcendental and IEEE-like vector math are not public
        # (instructions/numerics.py describes each alternative and its error bound)
        "exp_impl": ((str,), lambda v: v in ("correctly_rounded", "fp32_poly"),
                     "Exp: correctly_rounded (float64, rounded once) or fp32_poly (Cody-Waite "
                     "range reduction, degree-7 polynomial in fp32, < 2 ULP)"),
        "ln_impl": ((str,), lambda v: v in ("correctly_rounded", "fp32_poly"),
                    "Ln: correctly_rounded (float64, rounded once) or fp32_poly (m * 2**e, "
                    "atanh series in fp32, < 3 ULP)"),
        "sqrt_impl": ((str,), lambda v: v in ("correctly_rounded", "rsqrt_mul"),
                      "Sqrt: correctly_rounded (IEEE) or rsqrt_mul (x * fl(1/sqrt x), < 1.5 ULP)"),
        "reciprocal_impl": ((str,), lambda v: v in ("exact", "estimate_newton"),
                            "Reciprocal: exact (IEEE 1/x) or estimate_newton (256-entry seed "
                            "table, one fp32 Newton step, relative error < 2**-17)"),
        "div_impl": ((str,), lambda v: v in ("correctly_rounded", "reciprocal_mul"),
                     "Div: correctly_rounded (IEEE a/b) or reciprocal_mul (a * fl(1/b), two "
                     "roundings)"),
        # level-0 Cast / Compare / Select (ascendc_more.md 2.3): UNKNOWN layouts
        "cast_narrow_blkstride": ((str,), lambda v: v == "per_32B_block",
                                  "Cast level 0: the narrower operand's block stride counts "
                                  "its own 32-byte blocks"),
        "int_narrow": ((str,), lambda v: v in ("saturate", "wrap"),
                       "Cast int32_t -> int16_t and int64_t -> int32_t out of range: clamp to "
                       "the destination range, or keep the low bits"),
        "cmp_dst_stride": ((str,), lambda v: v == "ignored",
                           "Compare level 0: the dst strides have no effect (dense bits)"),
        "sel_mode1_mask_stride": ((str,), lambda v: v == "dense",
                                  "Select level 0, mode 1: selMask bits E per repeat, "
                                  "src1RepStride does not move them"),
    },
}


_NUM = (int, float)
_NON_NEG = (lambda v: v >= 0, ">= 0")
_POS = (lambda v: v > 0, "> 0")

# [cost] and its sub-tables: section -> key -> (check, description). Every value is a number.
_COST_SCHEMA: dict[str, dict[str, tuple[tuple[Any, str], str]]] = {
    "cost": {
        "launch_us": (_NON_NEG, "task scheduling before any core runs, microseconds"),
        "header_cycles": (_NON_NEG, "per-core start-up and kernel header work on the scalar "
                                    "unit before the first recorded instruction"),
        "hbm_gb_per_s": (_POS, "HBM bandwidth shared by all cores' copies, GB/s"),
    },
    "cost.scalar": {
        "issue_cycles": (_NON_NEG, "scalar cycles to issue one instruction to a pipe"),
        "op_cycles": (_NON_NEG, "a scalar-pipe instruction (queue bookkeeping, UB GetValue/"
                                "SetValue)"),
        "gm_access_cycles": (_NON_NEG, "a GetValue/SetValue on GM (through the DCache)"),
    },
    "cost.sync": {
        "set_flag_cycles": (_NON_NEG, "SetFlag on its source pipe"),
        "wait_flag_cycles": (_NON_NEG, "WaitFlag on its destination pipe once the flag is set"),
        "barrier_cycles": (_NON_NEG, "PipeBarrier after its pipe has drained"),
        "syncall_cycles": (_NON_NEG, "SyncAll: from the last core's arrival until every core "
                                     "goes on"),
    },
    "cost.gm": {
        "small_transfer_bytes": (_POS, "copies below this many bytes per burst are penalised"),
        "small_transfer_penalty": ((lambda v: 1 <= v <= 2, "in [1, 2]"),
                                   "bandwidth cost factor of a tiny copy (falls linearly to 1 "
                                   "at small_transfer_bytes; at most 2 keeps time monotone in "
                                   "size)"),
        "align_bytes": (_POS, "GM address alignment that reaches full bandwidth"),
        "unaligned_bandwidth_factor": ((lambda v: 0 < v <= 1, "in (0, 1]"),
                                       "bandwidth fraction of a copy whose GM address is not "
                                       "align_bytes aligned"),
    },
    "cost.mte2": {
        "latency_cycles": (_NON_NEG, "fixed cycles per GM->UB copy"),
        "bytes_per_cycle": (_POS, "per-core GM->UB bandwidth"),
        "overlap_cycles": (_NON_NEG, "how much of a copy's latency the next MTE2 instruction "
                                     "may overlap"),
    },
    "cost.mte3": {
        "latency_cycles": (_NON_NEG, "fixed cycles per UB->GM copy"),
        "bytes_per_cycle": (_POS, "per-core UB->GM bandwidth"),
        "overlap_cycles": (_NON_NEG, "how much of a copy's latency the next MTE3 instruction "
                                     "may overlap"),
    },
    "cost.vector": {
        "overlap_cycles": (_NON_NEG, "how much of a vector instruction's startup the next "
                                     "vector instruction may overlap"),
    },
}
_VECTOR_KEYS = {"startup": "fixed cycles per vector instruction",
                "cycles_per_repeat": "cycles per 256-byte repeat"}


@dataclass(frozen=True)
class VectorCost:
    """`startup + repeats x cycles_per_repeat` for one cost class; numbers by dtype name, with
    a "default" entry for the other dtypes."""

    startup: Mapping[str, float]
    cycles_per_repeat: Mapping[str, float]

    def for_dtype(self, dtype_name: str | None) -> tuple[float, float]:
        s, c = self.startup, self.cycles_per_repeat
        return (s.get(dtype_name, s["default"]) if dtype_name else s["default"],
                c.get(dtype_name, c["default"]) if dtype_name else c["default"])


@dataclass(frozen=True)
class MteCost:
    """One copy engine of a core: `latency + effective bytes / bandwidth`."""

    latency_cycles: float
    bytes_per_cycle: float
    overlap_cycles: float


@dataclass(frozen=True)
class CostParams:
    """The `[cost]` section of a profile: every number the timing model uses."""

    launch_us: float
    header_cycles: float
    hbm_gb_per_s: float
    scalar_issue_cycles: float
    scalar_op_cycles: float
    scalar_gm_access_cycles: float
    set_flag_cycles: float
    wait_flag_cycles: float
    barrier_cycles: float
    syncall_cycles: float
    small_transfer_bytes: float
    small_transfer_penalty: float
    gm_align_bytes: int
    unaligned_bandwidth_factor: float
    mte2: MteCost
    mte3: MteCost
    vector_overlap_cycles: float
    vector: Mapping[str, VectorCost]  # cost class -> numbers; "default" is always present

    def vector_cost(self, cost_class: str) -> VectorCost:
        return self.vector.get(cost_class) or self.vector["default"]


@dataclass(frozen=True)
class HardwareProfile:
    """The parts of a SoC that the simulator models. Costs live in `cost` (None when the file has
    no [cost] section; see docs/timing.md)."""

    name: str
    description: str
    aiv_cores: int
    clock_mhz: float
    ub_bytes: int
    ub_reserved_bytes: int
    bf16: bool
    saturation: bool
    dummy_fill: str
    pad_reg_init: int
    reduce_masked_lane: str
    reduce_nan: str
    pair_one_lane: str
    acc_reduce_writes_partials: bool
    reduce_tree: str
    acc_dtype: str
    reduce_tmp_clobber: bool
    maxmin_spr_index: str
    atomic_type_mismatch: str
    user_ws_offset: int
    gather_repeat_wrap: str
    axpy_fma: bool
    shift_full: str
    shift_round: str
    power_impl: str
    advmath_impl: str
    exp_impl: str
    ln_impl: str
    sqrt_impl: str
    reciprocal_impl: str
    div_impl: str
    cast_narrow_blkstride: str
    int_narrow: str
    cmp_dst_stride: str
    sel_mode1_mask_stride: str
    path: str
    sources: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    cost: CostParams | None = field(default=None, compare=False, repr=False)

    @property
    def tmp_ub_offset(self) -> int:
        """First byte of the library temp area (TMP_UB_OFFSET = 188416 on A2/A3)."""
        return self.ub_bytes - self.ub_reserved_bytes


def profile_names() -> list[str]:
    return sorted(p.stem for p in PROFILE_DIR.glob("*.toml"))


def _leaf(path: str, section: str, key: str, raw: Any) -> tuple[Any, str]:
    if not isinstance(raw, dict) or "value" not in raw or "source" not in raw:
        raise ProfileError(f"{path}: [{section}] {key} must be {{ value = ..., source = \"...\" }}"
                           f" (every number says where it comes from), got {raw!r}")
    if not isinstance(raw["source"], str) or not raw["source"].strip():
        raise ProfileError(f"{path}: [{section}] {key}: source must be a non-empty string")
    return raw["value"], raw["source"]


def _parse(path: Path) -> HardwareProfile:
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ProfileError(f"no profile file {path}") from None
    except tomllib.TOMLDecodeError as e:
        raise ProfileError(f"{path}: not valid TOML: {e}") from None
    meta = data.get("profile", {})
    if not isinstance(meta.get("name"), str):
        raise ProfileError(f"{path}: [profile] name = \"...\" is required")
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for section, keys in _SCHEMA.items():
        table = data.get(section)
        if not isinstance(table, dict):
            raise ProfileError(f"{path}: section [{section}] is missing")
        for key, (types, check, what) in keys.items():
            if key not in table:
                raise ProfileError(f"{path}: [{section}] {key} ({what}) is missing")
            value, source = _leaf(str(path), section, key, table[key])
            if not isinstance(value, types) or (bool not in types and isinstance(value, bool)):
                names = "/".join(t.__name__ for t in types)
                raise ProfileError(f"{path}: [{section}] {key} must be {names}, got {value!r}")
            if check is not None and not check(value):
                raise ProfileError(f"{path}: [{section}] {key} = {value!r} is out of range"
                                   f" ({what})")
            values[key] = value
            sources[f"{section}.{key}"] = source
        unknown = set(table) - set(keys)
        if unknown:
            raise ProfileError(f"{path}: unknown keys in [{section}]: {sorted(unknown)}")
    if values["ub_reserved_bytes"] >= values["ub_bytes"]:
        raise ProfileError(f"{path}: ub_reserved_bytes must be smaller than ub_bytes")
    cost = _parse_cost(str(path), data["cost"], sources) if "cost" in data else None
    return HardwareProfile(name=meta["name"], description=str(meta.get("description", "")),
                           path=str(path), sources=sources, cost=cost, **values)


def _number(path: str, section: str, key: str, value: Any, check: tuple[Any, str] | None,
            what: str) -> float:
    if not isinstance(value, _NUM) or isinstance(value, bool):
        raise ProfileError(f"{path}: [{section}] {key} must be a number ({what}), got {value!r}")
    if check is not None and not check[0](value):
        raise ProfileError(f"{path}: [{section}] {key} = {value!r} is out of range: must be "
                           f"{check[1]} ({what})")
    return value


def _subtable(path: str, data: dict[str, Any], dotted: str) -> dict[str, Any]:
    table: Any = data
    for part in dotted.split("."):
        table = table.get(part) if isinstance(table, dict) else None
    if not isinstance(table, dict):
        raise ProfileError(f"{path}: section [{dotted}] is missing (a [cost] section needs "
                           f"all of {', '.join('[' + k + ']' for k in _COST_SCHEMA)})")
    return table


def _vector_number(path: str, section: str, key: str, raw: Any,
                   sources: dict[str, str]) -> dict[str, float]:
    value, source = _leaf(path, section, key, raw)
    sources[f"{section}.{key}"] = source
    what = _VECTOR_KEYS[key]
    if not isinstance(value, dict):
        return {"default": _number(path, section, key, value, _NON_NEG, what)}
    if "default" not in value:
        raise ProfileError(f"{path}: [{section}] {key}: a per-dtype table needs a \"default\" "
                           f"entry, got {sorted(value)}")
    out = {}
    for dtype_name, v in value.items():
        if dtype_name != "default" and dtype_name not in BY_NAME:
            raise ProfileError(f"{path}: [{section}] {key}: unknown dtype {dtype_name!r}; use "
                               f"\"default\" or one of {', '.join(BY_NAME)}")
        out[dtype_name] = _number(path, section, f"{key}.{dtype_name}", v, _NON_NEG, what)
    return out


def _parse_cost(path: str, data: Any, sources: dict[str, str]) -> CostParams:
    """Validate the [cost] section (schema in _COST_SCHEMA) into CostParams."""
    if not isinstance(data, dict):
        raise ProfileError(f"{path}: [cost] must be a table")
    root = {"cost": data}
    v: dict[str, float] = {}
    for section, keys in _COST_SCHEMA.items():
        table = _subtable(path, root, section)
        for key, (check, what) in keys.items():
            if key not in table:
                raise ProfileError(f"{path}: [{section}] {key} ({what}) is missing")
            value, source = _leaf(path, section, key, table[key])
            v[f"{section}.{key}"] = _number(path, section, key, value, check, what)
            sources[f"{section}.{key}"] = source
        if section == "cost":  # the sub-tables
            allowed = set(keys) | {name.split(".")[1] for name in _COST_SCHEMA if "." in name}
        elif section == "cost.vector":  # one table per cost class
            allowed = set(keys) | {k for k, t in table.items()
                                   if isinstance(t, dict) and "value" not in t}
        else:
            allowed = set(keys)
        unknown = set(table) - allowed
        if unknown:
            raise ProfileError(f"{path}: unknown keys in [{section}]: {sorted(unknown)}")
    vector: dict[str, VectorCost] = {}
    for name, entry in data["vector"].items():
        if name in _COST_SCHEMA["cost.vector"]:
            continue
        section = f"cost.vector.{name}"
        missing = [k for k in _VECTOR_KEYS if k not in entry]
        if missing:
            raise ProfileError(f"{path}: [{section}] needs {' and '.join(missing)} "
                               f"({'; '.join(_VECTOR_KEYS[k] for k in missing)})")
        unknown = set(entry) - set(_VECTOR_KEYS)
        if unknown:
            raise ProfileError(f"{path}: unknown keys in [{section}]: {sorted(unknown)}")
        vector[name] = VectorCost(*(_vector_number(path, section, k, entry[k], sources)
                                    for k in _VECTOR_KEYS))
    if "default" not in vector:
        raise ProfileError(f"{path}: [cost.vector.default] is missing (the numbers of every "
                           "vector cost class without a table of its own)")
    align = v["cost.gm.align_bytes"]
    if int(align) != align:
        raise ProfileError(f"{path}: [cost.gm] align_bytes must be a whole number of bytes")

    def mte(name: str) -> MteCost:
        return MteCost(v[f"cost.{name}.latency_cycles"], v[f"cost.{name}.bytes_per_cycle"],
                       v[f"cost.{name}.overlap_cycles"])

    return CostParams(
        launch_us=v["cost.launch_us"], header_cycles=v["cost.header_cycles"],
        hbm_gb_per_s=v["cost.hbm_gb_per_s"],
        scalar_issue_cycles=v["cost.scalar.issue_cycles"],
        scalar_op_cycles=v["cost.scalar.op_cycles"],
        scalar_gm_access_cycles=v["cost.scalar.gm_access_cycles"],
        set_flag_cycles=v["cost.sync.set_flag_cycles"],
        wait_flag_cycles=v["cost.sync.wait_flag_cycles"],
        barrier_cycles=v["cost.sync.barrier_cycles"],
        syncall_cycles=v["cost.sync.syncall_cycles"],
        small_transfer_bytes=v["cost.gm.small_transfer_bytes"],
        small_transfer_penalty=v["cost.gm.small_transfer_penalty"],
        gm_align_bytes=int(align),
        unaligned_bandwidth_factor=v["cost.gm.unaligned_bandwidth_factor"],
        mte2=mte("mte2"), mte3=mte("mte3"),
        vector_overlap_cycles=v["cost.vector.overlap_cycles"], vector=vector)


@cache
def _load_cached(path: str) -> HardwareProfile:
    return _parse(Path(path))


def load_profile(profile: str | Path | HardwareProfile | None = None) -> HardwareProfile:
    """A profile by name (`"Ascend910B2"`), by file path, or passed through; None = default."""
    if isinstance(profile, HardwareProfile):
        return profile
    if profile is None:
        profile = DEFAULT_PROFILE
    text = str(profile)
    candidate = PROFILE_DIR / f"{text}.toml"
    if not text.endswith(".toml") and candidate.exists():
        return _load_cached(str(candidate))
    path = Path(text)
    if not path.exists():
        raise ProfileError(f"unknown hardware profile {text!r}: not a file and not one of "
                           f"{', '.join(profile_names())}")
    return _load_cached(str(path.resolve()))


def semantic_options() -> dict[str, str]:
    """{option: what it decides} of the [semantics] section: the hardware behaviours the public
    documents leave open, which every profile file must set (README's assumption table)."""
    return {key: spec[2] for key, spec in _SCHEMA["semantics"].items()}
