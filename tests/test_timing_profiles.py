"""Hardware profiles: the shipped ones carry a sourced [cost] section; malformed files are
rejected with a message that names the section and key."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ascsim
from ascsim.ascendc import Adds, QuePosition, TBuf, TPipe, float
from ascsim.profile import PROFILE_DIR, ProfileError, load_profile, profile_names
from ascsim.timing import profile_run

B2_TEXT = (PROFILE_DIR / "Ascend910B2.toml").read_text()
_MTE2 = B2_TEXT.index("[cost.mte2]\n")
MTE2_LATENCY_LINE = B2_TEXT[_MTE2:B2_TEXT.index("\n", _MTE2 + 12) + 1]  # header + latency


def variant(tmp_path: Path, old: str, new: str, name: str = "custom.toml") -> Path:
    assert old in B2_TEXT, old
    path = tmp_path / name
    path.write_text(B2_TEXT.replace(old, new, 1))
    return path


def test_shipped_profiles_have_sourced_costs():
    assert set(profile_names()) >= {"Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910B4",
                                    "Ascend910_93"}
    for name in profile_names():
        p = load_profile(name)
        assert p.cost is not None, name
        cost_sources = {k: v for k, v in p.sources.items() if k.startswith("cost")}
        assert len(cost_sources) >= 30
        for key, source in cost_sources.items():
            tagged = "assumed" in source or any(t in source for t in ("[OFF", "[INI", "[3P",
                                                                     "[DER", "UNCONF"))
            assert tagged, f"{name} {key}: {source!r} names no source kind"
        assert p.cost.vector_cost("Add") is p.cost.vector["default"]
        assert p.cost.vector["Exp"].for_dtype("float") == (20, 4)
        assert p.cost.vector["Exp"].for_dtype("half") == (20, 8)
        # the functional keys are unchanged by the cost section
        assert p.ub_bytes == 196608 and p.tmp_ub_offset == 188416


def test_910b4_hbm_holds_the_calibration_runs_eight_cores():
    # msopprof sample_double_buffer's 8 cores did not slow each other (docs/timing.md), and the
    # model runs them in lock step: its cap must carry 8 cores' MTE2 + MTE3 at full rate
    b4 = load_profile("Ascend910B4")
    demand = 8 * (b4.cost.mte2.bytes_per_cycle + b4.cost.mte3.bytes_per_cycle) * b4.clock_mhz
    assert b4.cost.hbm_gb_per_s * 1000 >= demand
    assert load_profile("Ascend910B2").cost.hbm_gb_per_s * 1000 < demand


def test_a_user_file_with_the_same_schema_loads(tmp_path):
    path = variant(tmp_path, 'latency_cycles = { value = 458,', 'latency_cycles = { value = 450,')
    p = load_profile(str(path))
    assert p.cost.mte2.latency_cycles == 450
    assert load_profile(path) is p  # cached per file


@pytest.mark.parametrize("old, new, message", [
    (MTE2_LATENCY_LINE, '[cost.mte2]\n',
     "[cost.mte2] latency_cycles (fixed cycles per GM->UB copy) is missing"),
    ('barrier_cycles = { value = 18,', 'barrier_cycles = { value = "18",',
     "[cost.sync] barrier_cycles must be a number"),
    ('issue_cycles = { value = 10,', 'issue_cycles = { value = -1,',
     "[cost.scalar] issue_cycles = -1 is out of range: must be >= 0"),
    ('small_transfer_penalty = { value = 2.0,', 'small_transfer_penalty = { value = 3.0,',
     "[cost.gm] small_transfer_penalty = 3.0 is out of range: must be in [1, 2]"),
    ('hbm_gb_per_s = { value = 1600, source', 'hbm_gb_per_s = { value = 1600, note',
     "[cost] hbm_gb_per_s must be { value = ..., source = \"...\" }"),
    ('[cost.sync]\n', '[cost.sync]\nset_cycles = { value = 1, source = "typo" }\n',
     "unknown keys in [cost.sync]: ['set_cycles']"),
    ('[cost.gm]\n', '[cost.gmm]\n', "unknown keys in [cost]: ['gmm']"),
    ('value = { default = 8, float = 4 }', 'value = { half = 8, float = 4 }',
     "[cost.vector.Exp] cycles_per_repeat: a per-dtype table needs a \"default\" entry"),
    ('value = { default = 8, float = 4 }', 'value = { default = 8, fp32 = 4 }',
     "[cost.vector.Exp] cycles_per_repeat: unknown dtype 'fp32'"),
    ('[cost.vector.default]', '[cost.vector.Default]',
     "[cost.vector.default] is missing"),
    ('[cost.vector.Div]\nstartup', '[cost.vector.Div]\nstart',
     "[cost.vector.Div] needs startup"),
    ('align_bytes = { value = 512,', 'align_bytes = { value = 512.5,',
     "[cost.gm] align_bytes must be a whole number of bytes"),
    ('[cost.vector]\noverlap_cycles = { value = 0,',
     '[cost.vector]\noverlap_cycles = { value = true,',
     "[cost.vector] overlap_cycles must be a number"),
])
def test_malformed_cost_sections_are_rejected_clearly(tmp_path, old, new, message):
    path = variant(tmp_path, old, new)
    with pytest.raises(ProfileError) as err:
        load_profile(str(path))
    assert message in str(err.value)
    assert str(path) in str(err.value)


def test_missing_cost_table_is_named(tmp_path):
    start, end = B2_TEXT.index("[cost.gm]"), B2_TEXT.index("[cost.mte2]")
    path = tmp_path / "no_gm.toml"
    path.write_text(B2_TEXT[:start] + B2_TEXT[end:])
    with pytest.raises(ProfileError, match=r"section \[cost.gm\] is missing"):
        load_profile(path)


def test_profile_without_costs_runs_but_cannot_be_timed(tmp_path):
    path = tmp_path / "functional.toml"
    path.write_text(B2_TEXT[:B2_TEXT.index("\n# ---- timing model")])
    prof = load_profile(str(path))
    assert prof.cost is None

    def kernel():
        pipe = TPipe()
        buf = TBuf[QuePosition.VECCALC]()
        pipe.InitBuffer(buf, 1024)
        t = buf.Get[float]()
        Adds(t[64], t, 1.0, 64)

    run = ascsim.launch(kernel, 1, profile=prof)
    with pytest.raises(ProfileError, match="has no \\[cost\\] section"):
        profile_run(run)
    assert np.isfinite(run.timeline("Ascend910B2").total_us)


def test_profiles_command_lists_costs(capsys):
    from ascsim.cli import main
    assert main(["profiles"]) == 0
    out = capsys.readouterr().out
    assert "Ascend910B4" in out and "HBM GB/s" in out
    assert main(["profiles", "--show", "Ascend910B2"]) == 0
    out = capsys.readouterr().out
    assert "cost.mte2.latency_cycles = 458" in out and "PyPTO" in out
