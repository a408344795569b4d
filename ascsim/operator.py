"""`ascsim.Operator`: everything ascsim needs to run an operator on random inputs, check it bit
for bit against its numpy model, sweep its tiling choices and offer its options on the command
line. An operator module defines one:

    OPERATOR = ascsim.Operator(
        name="silu_grad",                       # what tables and summaries call it
        run=run,                                # (inputs, options, **device) -> (out, Run|None)
        make_inputs=make_inputs,                # (shape, dtype, rng, options) -> {name: array}
        model=model,                            # (inputs, options) -> expected output
        dtypes=("float32", "float16", "bfloat16"),
        options=(ascsim.Option("x_range", float, 8.0, "x is drawn from [-X, X]"),),
        knobs=(CORES, TILE),                    # ascsim.tuning.TilingKnob: what `sweep` varies
    )

`options` are plain dicts {name: value} with every default filled in. The device keywords of
`run` are `profile`, `sanitize` and `threads` (None: the default); `ascsim.launch` takes them.
`ascsim.oprunner.load_operator` finds operators (shipped names, the `ascsim.ops` entry-point
group, `path/to/op.py`, `pkg.module`). Text the user typed (shapes, dtypes) is parsed here too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import dtypes
from .errors import UsageError
from .tuning import TilingKnob, knobs_of, register_knob

__all__ = ["Operator", "Option", "Inputs", "Options", "DTYPES", "parse_shape", "parse_dtype"]

Inputs = dict[str, "np.ndarray | None"]
Options = dict[str, Any]

class _DtypeNames(Mapping[str, type]):
    """--dtype names -> numpy scalar types. bf16's (ml_dtypes.bfloat16) is imported when it is
    first asked for: importing ml_dtypes costs about 0.8 s, which an fp32 run does not need."""

    TYPES = {"float32": dtypes.float, "float": dtypes.float, "fp32": dtypes.float,
             "float16": dtypes.half, "half": dtypes.half, "fp16": dtypes.half,
             "bfloat16": dtypes.bfloat16_t, "bf16": dtypes.bfloat16_t}

    def __getitem__(self, name: str) -> type:
        return self.TYPES[name].numpy.type

    def __iter__(self) -> Iterator[str]:
        return iter(self.TYPES)

    def __len__(self) -> int:
        return len(self.TYPES)


DTYPES = _DtypeNames()

_SHAPE = re.compile(r"\d+(\s*[,x]\s*\d+)*\s*,?")


def parse_shape(text: str | Sequence[int]) -> tuple[int, ...]:
    """"64,8192" (or "64x8192", or a sequence of ints) as a shape; "" or "()" is a scalar."""
    if not isinstance(text, str):
        shape = tuple(int(d) for d in text)
        if any(d < 0 for d in shape):
            raise UsageError(f"bad shape {list(shape)}: negative dimension")
        return shape
    text = text.strip()
    if text in ("", "()", "scalar"):
        return ()
    if not _SHAPE.fullmatch(text):
        raise UsageError(f"bad --shape {text!r} (use e.g. 64,8192)")
    return tuple(int(p) for p in re.split(r"[,x]", text) if p.strip())


def parse_dtype(text: str | np.dtype | type) -> np.dtype:
    """"float32" / "fp16" / "bf16" / ... (or a numpy dtype) as a numpy dtype."""
    if not isinstance(text, str):
        return np.dtype(text)
    return _named(text).numpy


def dtype_name(text: str | np.dtype | type) -> str:
    """The numpy name of parse_dtype(text) ("float32", "float16", "bfloat16"), without making
    the dtype (bf16's would import ml_dtypes)."""
    if not isinstance(text, str):
        return np.dtype(text).name
    t = _named(text)
    return "bfloat16" if t is dtypes.bfloat16_t else t.numpy.name


def _named(text: str) -> dtypes.DType:
    try:
        return _DtypeNames.TYPES[text.lower()]
    except KeyError:
        raise UsageError(f"unknown --dtype {text!r}; use one of "
                         f"{', '.join(sorted(DTYPES))}") from None


@dataclass(frozen=True)
class Option:
    """An operator attribute or input-generator setting (`--eps`, `--reduction`, ...).

    `name` is a Python identifier (the key in the options dict; `--name-with-dashes` on the
    command line); `type` turns command-line text into the value (`bool` makes an on/off flag
    whose default is False); `choices` limits the values."""

    name: str
    type: Callable[[str], Any] = float
    default: Any = None
    help: str = ""
    choices: tuple[Any, ...] | None = None

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise UsageError(f"option name {self.name!r} is not a Python identifier")
        if self.type is bool and self.default not in (None, False):
            raise UsageError(f"option {self.name}: a bool option is a flag; its default is False")

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def parser_kwargs(self) -> dict[str, Any]:
        """The keywords of `ArgumentParser.add_argument(self.flag, **kwargs)` (the command line
        does the parsing; this only describes the option)."""
        shown = self.type is not bool and self.default is not None and "default" not in self.help
        text = self.help + (f" (default {self.default})" if shown else "")
        if self.type is bool:
            return {"dest": self.name, "action": "store_true", "default": False, "help": text}
        kwargs: dict[str, Any] = {"dest": self.name, "type": self.type, "default": self.default,
                                  "help": text}
        if self.choices is not None:
            kwargs["choices"] = self.choices
        return kwargs


@dataclass(frozen=True)
class Operator:
    """The description of one operator (see the module docstring for a complete one).

    - `name`: how tables, summaries and errors call it;
    - `run(inputs, options, *, profile=None, sanitize=None, threads=None) -> (out, run)`: call
      the op; `run` is its `ascsim.Run` (None when nothing was launched, e.g. empty inputs);
    - `make_inputs(shape, dtype, rng, options) -> {name: array or None}`: random inputs;
    - `model(inputs, options) -> array`: the expected output, bit-exact to the kernel;
    - `op_type`: the key its tiling knobs are registered under (default: `name`); the op's
      tiling calls `ascsim.tuning.apply_overrides(op_type, context)` so that sweeps can force
      them;
    - `dtypes`: the dtypes `make_inputs` accepts (the first is the default);
    - `options`: its `Option`s (attributes, input ranges);
    - `knobs`: `TilingKnob`s, registered under `op_type` on construction (knobs registered
      there by other code count too: see `tiling_knobs`);
    - `tiles(inputs, options) -> int`: the number of tiles, if the op knows it;
    - `doc`: one line for listings.
    """

    name: str
    run: Callable[..., tuple[Any, Any]]
    make_inputs: Callable[[tuple[int, ...], np.dtype, np.random.Generator, Options], Inputs]
    model: Callable[[Inputs, Options], np.ndarray]
    op_type: str = ""
    dtypes: tuple[str, ...] = ("float32",)
    options: tuple[Option, ...] = ()
    knobs: tuple[TilingKnob, ...] = ()
    tiles: Callable[[Inputs, Options], int] | None = None
    doc: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise UsageError("an Operator needs a name")
        for what in ("run", "make_inputs", "model"):
            if not callable(getattr(self, what)):
                raise UsageError(f"Operator {self.name}: {what} must be callable")
        # frozen: normalise through object.__setattr__ (tuples, canonical dtype names)
        object.__setattr__(self, "op_type", self.op_type or self.name)
        dtypes = (self.dtypes,) if isinstance(self.dtypes, str) else self.dtypes
        names = tuple(dtype_name(d) for d in dtypes)
        if not names:
            raise UsageError(f"Operator {self.name}: dtypes is empty")
        object.__setattr__(self, "dtypes", names)
        object.__setattr__(self, "options", tuple(self.options))
        object.__setattr__(self, "knobs", tuple(self.knobs))
        if not all(isinstance(o, Option) for o in self.options):
            raise UsageError(f"Operator {self.name}: options must be ascsim.Option values")
        if not all(isinstance(k, TilingKnob) for k in self.knobs):
            raise UsageError(f"Operator {self.name}: knobs must be ascsim.tuning.TilingKnob values")
        seen = [o.name for o in self.options]
        if len(set(seen)) != len(seen):
            raise UsageError(f"Operator {self.name}: duplicate option names in {seen}")
        for knob in self.knobs:  # apply_overrides finds knobs by op_type
            register_knob(self.op_type, knob)

    def tiling_knobs(self) -> dict[str, TilingKnob]:
        """Every knob registered under `op_type`, in registration order."""
        return knobs_of(self.op_type)

    def dtype(self, dtype: str | np.dtype | type | None = None) -> np.dtype:
        """`dtype` parsed and checked against `dtypes` (None: the first of them)."""
        dt = parse_dtype(self.dtypes[0] if dtype is None else dtype)
        if dt.name not in self.dtypes:
            raise UsageError(f"{self.name} takes dtype {', '.join(self.dtypes)}, not {dt.name}")
        return dt

    def option_values(self, given: Mapping[str, Any] | None = None) -> Options:
        """Every option's value: `given` over the defaults; an unknown name is an error."""
        given = dict(given or {})
        unknown = sorted(set(given) - {o.name for o in self.options})
        if unknown:
            have = ", ".join(o.name for o in self.options) or "none"
            raise UsageError(f"{self.name} has no option {', '.join(unknown)}; its options: "
                             f"{have}")
        values = {o.name: (False if o.type is bool else o.default) for o in self.options}
        values.update(given)
        return values

    def prepare(self, shape: str | Sequence[int], dtype: str | np.dtype | type | None = None,
                seed: int = 0, options: Mapping[str, Any] | None = None
                ) -> tuple[Inputs, Options]:
        """Random inputs of `shape` and `dtype` (seeded) and the full option values."""
        values = self.option_values(options)
        inputs = self.make_inputs(parse_shape(shape), self.dtype(dtype),
                                  np.random.default_rng(seed), values)
        return inputs, values
