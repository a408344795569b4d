"""Hardware profiles: the numbers and semantic options of one SoC, loaded from a TOML file.

Every number in a profile file is written as `key = { value = ..., source = "..." }`, so that
each one says where it comes from (a document, an .ini, a measurement, or "assumed"). The
shipped profiles live in `ascsim/profiles/`; a user passes a name (`"Ascend910B2"`) or the path
of a file of their own with the same schema.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["HardwareProfile", "ProfileError", "load_profile", "profile_names", "DEFAULT_PROFILE"]

DEFAULT_PROFILE = "Ascend910B2"
PROFILE_DIR = Path(__file__).with_name("profiles")


class ProfileError(ValueError):
    """A profile file that is missing, malformed or out of range."""


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
        "dummy_fill": ((str,), lambda v: v in ("nan", "first_element", "zero"),
                       "what the bytes the hardware leaves unspecified read as"),
    },
}


@dataclass(frozen=True)
class HardwareProfile:
    """The parts of a SoC that the simulator models. Costs live in `cost` (see the timing model)."""

    name: str
    description: str
    aiv_cores: int
    clock_mhz: float
    ub_bytes: int
    ub_reserved_bytes: int
    bf16: bool
    saturation: bool
    dummy_fill: str
    path: str
    sources: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    cost: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

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
    return HardwareProfile(name=meta["name"], description=str(meta.get("description", "")),
                           path=str(path), sources=sources, cost=data.get("cost", {}), **values)


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
