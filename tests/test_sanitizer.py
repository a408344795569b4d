# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""The sanitizer's modes, its findings as data and as a report, the debug aids (printf,
DumpTensor, assert, trace) and its command line. The bug corpus is tests/test_sanitizer_bugs.py;
the shipped kernels' zero-finding runs are tests/test_sanitizer_shipped.py."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from conftest import custom_profile

import ascsim
from ascsim.ascendc import *
from ascsim.cli import main as cli_main
from ascsim.debug import c_format
from ascsim.errors import (
    DeadlockError,
    OutOfRangeError,
    ParameterError,
    RaceError,
    SyncError,
)
from ascsim.recordstore import RecordStore
from ascsim.sanitizer import Finding, kernel_sync, sync_mode_of
from ascsim.sanitizer.report import format_report
from ascsim.sanitizer.trace import CapturingRecords, capture, format_trace
from kernels_py.logit_grad import logit_grad
from kernels_py.logit_grad.op_kernel.logit_grad import logit_grad as logit_grad_entry
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2.op_kernel import (
    sigmoid_cross_entropy_with_logits_grad_v2 as sce_entry,
)


def _gm(addr, dtype=float):
    g = GlobalTensor[dtype]()
    g.SetGlobalBuffer(addr)
    return g


def _ub(nbytes=4096):
    pipe = TPipe()
    buf = TBuf[TPosition.VECCALC]()
    pipe.InitBuffer(buf, nbytes)
    return pipe, buf


def _two_races():
    """V reads what MTE2 writes (no MTE2_V), then MTE3 reads what V writes (no V_MTE3)."""
    def kernel(x, out):
        pipe, buf = _ub()
        t = buf.Get[float]()
        DataCopy(t, _gm(x), 64)
        Muls(t, t, 2.0, 64)
        DataCopy(_gm(out), t, 64)
    return kernel


# ---- modes -----------------------------------------------------------------------------------

def test_launch_rejects_an_unknown_mode():
    with pytest.raises(ParameterError, match="sanitize"):
        ascsim.launch(_two_races(), 1, np.zeros(64, np.float32), np.zeros(64, np.float32),
                      sanitize="loud")


def test_off_mode_collects_nothing_and_says_nothing(capsys, caplog):
    x = np.ones(64, np.float32)
    with caplog.at_level(logging.DEBUG, logger="ascsim"):
        run = ascsim.launch(_two_races(), 1, x, np.zeros_like(x))
    assert run.findings == [] and capsys.readouterr().out == "" and not caplog.records


def test_check_mode_collects_findings_and_logs_the_report(capsys, caplog):
    x = np.ones(64, np.float32)
    out = np.zeros_like(x)
    with caplog.at_level(logging.INFO, logger="ascsim.sanitizer"):
        run = ascsim.launch(_two_races(), 1, x, out, sanitize="check", outputs=(1,))
    assert capsys.readouterr().out == ""  # the library prints nothing
    (record,) = caplog.records
    assert record.name == "ascsim.sanitizer" and record.levelno == logging.WARNING
    printed = record.getMessage()
    races = [f for f in run.findings if f.check == "RAW hazard"]
    assert [f.instruction for f in races] == ["Muls", "DataCopy"]
    assert [f.other.instruction for f in races] == ["DataCopy", "Muls"]
    assert [(f.pipe, f.other.pipe) for f in races] == [("V", "MTE2"), ("MTE3", "V")]
    assert run.errors == [f for f in run.findings if f.severity == "ERROR"]
    assert printed.strip().endswith(run.report().splitlines()[-1])
    assert "SUMMARY" in printed and "RAW hazard" in printed
    np.testing.assert_array_equal(out, 2 * x)  # the kernel still ran in full


def test_strict_mode_raises_the_earliest_offline_error(capsys):
    x = np.ones(64, np.float32)
    with pytest.raises(RaceError) as info:
        ascsim.launch(_two_races(), 1, x, np.zeros_like(x), sanitize="strict")
    err = info.value
    assert err.context["instruction"] == "Muls" and err.context["serial"] == 1
    assert "PIPE_MTE2" in str(err)


def test_strict_mode_raises_an_online_error_at_once():
    done = []

    def kernel():
        pipe, buf = _ub()
        SetFlag[HardEvent.V_MTE3](EVENT_ID0)
        SetFlag[HardEvent.V_MTE3](EVENT_ID0)
        done.append(True)
    with pytest.raises(SyncError, match="already set"):
        ascsim.launch(kernel, 1, sanitize="strict")
    assert not done


def test_check_mode_keeps_a_double_set_flag_and_goes_on(capsys):
    def kernel():
        pipe, buf = _ub()
        t = buf.Get[float]()
        SetFlag[HardEvent.V_MTE3](EVENT_ID0)
        SetFlag[HardEvent.V_MTE3](EVENT_ID0)
        WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
        Duplicate(t, 3.0, 8)
    run = ascsim.launch(kernel, 1, sanitize="check")
    assert [f.check for f in run.findings] == ["double SetFlag", "redundant sync"]
    assert run.findings[0].instruction == "SetFlag" and run.findings[0].pipe == "V"
    assert run.decoded(0)[-1].name == "Duplicate"


def test_a_deadlocked_core_does_not_stop_the_others(capsys):
    def kernel(out):
        pipe, buf = _ub()
        t = buf.Get[float]()
        Duplicate(t, 1.0, 8)
        if GetBlockIdx() == 1:
            WaitFlag[HardEvent.V_MTE3](EVENT_ID0)  # never set on core 1
        else:
            SetFlag[HardEvent.V_MTE3](EVENT_ID0)
            WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
        DataCopy(_gm(out)[GetBlockIdx() * 8], t, 8)
    out = np.zeros(24, np.float32)
    with pytest.raises(DeadlockError):
        ascsim.launch(kernel, 3, out)
    out[:] = 0
    run = ascsim.launch(kernel, 3, out, sanitize="check", outputs=(0,))
    dead = [f for f in run.findings if f.check == "deadlock"]
    assert len(dead) == 1 and dead[0].core == 1 and "V_MTE3" in dead[0].message
    assert dead[0].instruction == "WaitFlag"
    np.testing.assert_array_equal(out, [1] * 8 + [0] * 8 + [1] * 8)
    gap = [f for f in run.findings if f.check == "output not covered"]
    assert gap and (gap[0].start, gap[0].end) == (32, 64)


def test_findings_do_not_depend_on_the_thread_count(capsys):
    """Cores on threads and the per-core offline passes on the sanitizer's thread pool: the
    findings, their order included, are those of one thread."""
    def kernel(x, out):  # per-core races, a gap in the output and cores writing each other's
        pipe, buf = _ub()
        t = buf.Get[float]()
        i = GetBlockIdx()
        DataCopy(t, _gm(x)[i * 64], 64)
        if i % 2:
            Muls(t, t, 2.0, 64)
        DataCopy(_gm(out)[i * 48], t, 64)
    x = np.ones(8 * 64, np.float32)

    def findings(threads: int) -> list[str]:
        out = np.zeros(8 * 64, np.float32)
        run = ascsim.launch(kernel, 6, x, out, sanitize="check", outputs=(1,),
                            threads=threads)
        return [f.format() for f in run.findings]

    one = findings(1)
    checks = {f.split("\n")[0] for f in one}
    assert any("RAW hazard" in c for c in checks) and any("multi-core" in c for c in checks)
    assert findings(3) == one


def test_a_cores_findings_do_not_depend_on_the_cores_passed_before_it(capsys, monkeypatch):
    """One pass call runs a share of the cores and keeps its taint scratch from core to core:
    a core that reads UB it never wrote is reported whether or not a core before it in the
    same call wrote those bytes."""
    from ascsim.sanitizer import offline

    def kernel(x, out):
        pipe, buf = _ub()
        t = buf.Get[float]()
        i = GetBlockIdx()
        if i % 2 == 0:  # the even cores load their tile; the odd ones store UB never written
            DataCopy(t, _gm(x)[i * 64], 64)
            SetFlag[HardEvent.MTE2_MTE3](EVENT_ID0)
            WaitFlag[HardEvent.MTE2_MTE3](EVENT_ID0)
        DataCopy(_gm(out)[i * 64], t, 64)
    x = np.ones(4 * 64, np.float32)

    def findings(threads: int) -> list[str]:
        monkeypatch.setattr(offline, "_PASS_THREADS", threads)
        out = np.zeros(4 * 64, np.float32)
        run = ascsim.launch(kernel, 4, x, out, sanitize="check", outputs=(1,))
        return [f.format() for f in run.findings]

    one = findings(1)
    unwritten = [f for f in one if "uninitialised value reaches GM" in f.split("\n")[0]]
    assert [f.split("\n")[2].split(" by ")[0] for f in unwritten] == [
        "======    in block aiv(1)", "======    in block aiv(3)"]
    assert findings(2) == one and findings(4) == one


def test_check_mode_clips_gm_accesses_to_the_buffer(capsys):
    def kernel(x, out):
        pipe, buf = _ub()
        t = buf.Get[float]()
        DataCopy(t, _gm(x), 16)          # x has 8 floats
        SetFlag[HardEvent.MTE2_V](EVENT_ID0)
        WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
        Adds(t, t, 1.0, 16)
        SetFlag[HardEvent.V_MTE3](EVENT_ID0)
        WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
        DataCopy(_gm(out), t, 16)        # out has 8 floats
    x = np.arange(8, dtype=np.float32)
    backing = np.full(16, -7.0, np.float32)
    out = backing[:8]                    # the bytes after it belong to someone else
    with pytest.raises(OutOfRangeError, match="past its end"):
        ascsim.launch(kernel, 1, x, out)
    run = ascsim.launch(kernel, 1, x, out, sanitize="check")
    oob = [(f.write, f.memory, f.start, f.end) for f in run.findings if f.check == "out of range"]
    assert oob == [(False, "GM x", 32, 64), (True, "GM out", 32, 64)]
    np.testing.assert_array_equal(out, x + 1)
    assert (backing[8:] == -7.0).all()  # nothing written past the caller's array
    ub = run.cores[0].ub[32:64].view(np.float32)
    assert np.isnan(ub).all()  # the missing bytes read as the dummy pattern


def test_skipped_instruction_is_not_executed(capsys):
    def kernel():
        pipe, buf = _ub()
        t = buf.Get[float]()
        Duplicate(t, 1.0, 64)
        PipeBarrier[PIPE_V]()
        Adds(t, t, 1.0, 64, 300, UnaryRepeatParams())
    run = ascsim.launch(kernel, 1, sanitize="check")
    assert [f.check for f in run.findings] == ["invalid parameter"]
    assert (run.cores[0].ub[:256].view(np.float32) == 1.0).all()
    assert run.findings[0].serial == len(run.cores[0].records)


# ---- sync modes ------------------------------------------------------------------------------

def test_sync_mode_decorator():
    assert sync_mode_of(logit_grad_entry) == "manual"
    assert sync_mode_of(sce_entry) == "auto"
    assert sync_mode_of(lambda: None) == "auto"
    with pytest.raises(ValueError, match="auto"):
        kernel_sync("sometimes")


def test_auto_sync_trusts_vector_barriers_manual_does_not(capsys):
    def body():
        pipe, buf = _ub()
        t = buf.Get[float]()
        Duplicate(t, 1.0, 64)
        Adds(t, t, 1.0, 64)

    manual = ascsim.launch(kernel_sync("manual")(lambda: body()), 1, sanitize="check")
    auto = ascsim.launch(kernel_sync("auto")(lambda: body()), 1, sanitize="check")
    assert {f.check for f in manual.findings} == {"RAW hazard", "WAW hazard"}
    assert "PipeBarrier<PIPE_V>" in manual.findings[0].message
    assert auto.findings == []


# ---- findings and the report -------------------------------------------------------------------

def test_finding_names_both_source_positions(capsys):
    from bugs import sce_public_split
    run = sce_public_split.run("check")
    f = run.findings[0]
    assert f.py.startswith("kernels_py/sigmoid_cross_entropy_with_logits_grad_v2/")
    assert f.cpp.startswith("kernels_cpp/sigmoid_cross_entropy_with_logits_grad_v2/")
    assert f.py_line == int(f.py.rsplit(":", 1)[1]) and f.size == f.end - f.start == 16
    text = f.format()
    assert f.py in text and f.cpp in text and "serialNo:" in text and "aiv(0)" in text
    assert isinstance(f.to_error(), OutOfRangeError)


def test_report_groups_findings_and_counts(capsys):
    from bugs import rc_logit_grad_no_barrier
    run = rc_logit_grad_no_barrier.run("check")
    report = format_report(run.findings, "k")
    assert report.count("====== ERROR: racecheck: RAW hazard") == 1
    assert "(2 more like this on core(s) 0)" in report
    assert report.splitlines()[-1] == ("====== SUMMARY in k: 6 error(s), 0 warning(s) "
                                       "(racecheck 6)")


def test_empty_report_is_the_summary_line():
    assert format_report([], "k") == "====== SUMMARY in k: 0 error(s), 0 warning(s)"
    f = Finding("synccheck", "WARNING", "redundant sync", "m", core=0, serial=3)
    assert "1 warning(s)" in format_report([f])


# ---- debug aids ----------------------------------------------------------------------------------

def test_c_format():
    assert c_format("%d|%5u|%-3lld|%zu|%x|%08.3f|%s|%c|%%", -1, 7, 2, 3, 255, 1.5, "ab",
                    "z") == "-1|    7|2  |3|ff|0001.500|ab|z|%"
    assert c_format("%*d", 4, 9) == "   9"


def test_printf_and_dump_tensor_are_tagged_and_collected(capsys, caplog):
    caplog.set_level(logging.INFO, logger="ascsim.kernel")
    def kernel(x):
        pipe, buf = _ub()
        t = buf.Get[half]()
        DataCopy(t, _gm(x, half), 16)
        SetFlag[HardEvent.MTE2_V](EVENT_ID0)
        WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
        printf("block %d of %d\n", GetBlockIdx(), GetBlockNum())
        DumpTensor(t, 7, 3)
    run = ascsim.launch(kernel, 2, np.arange(16, dtype=np.float16))
    log = run.log()
    assert log[0] == "[core 0, serialNo 3] block 0 of 2"
    assert log[1] == ("[core 0, serialNo 3] DumpTensor: desc=7, addr=0, data_type=float16, "
                      "position=UB, dump_size=3")
    assert log[2] == "[core 0, serialNo 3] [0., 1., 2.]"
    assert log[3].startswith("[core 1, ") and len(log) == 6
    # when the launch ends, the lines go to the ascsim.kernel logger; nothing is printed
    assert capsys.readouterr().out == ""
    assert [r.getMessage() for r in caplog.records if r.name == "ascsim.kernel"] == log


def test_assert_stops_the_kernel():
    def kernel():
        n = 3
        ascendc_assert(n > 0)
        ascendc_assert(n > 5, "n is %d", n)
        printf("not reached\n")
    with pytest.raises(ascsim.errors.KernelAssertError, match="n is 3"):
        ascsim.launch(kernel, 1)


def test_trace_captures_values_for_one_core_only(capsys):
    x = np.linspace(0.1, 0.9, 300).astype(np.float32)
    with capture(core=1, values=3):
        _, run = logit_grad(np.tile(x, 100), np.tile(x, 100), -1.0, return_run=True)
    assert type(run.cores[0].records) is RecordStore  # packed; the traced core keeps its list
    traced = run.cores[1].records
    assert isinstance(traced, CapturingRecords) and traced.values
    text = format_trace(run.cores[1], limit=20)
    assert text.startswith(f"core 1: {len(traced)} instruction(s)")
    assert "DataCopyPad" in text and "R GM x[" in text and "W UB[" in text
    assert "kernels_py/logit_grad/op_kernel/logit_grad_kernel.py:" in text
    assert "kernels_cpp/logit_grad/op_kernel/logit_grad_kernel.h:" in text
    muls = next(line for line in text.splitlines() if " Muls " in line)
    after = text.splitlines()[text.splitlines().index(muls) + 1]
    assert after.strip().startswith("W0: [-") and after.count(",") == 2
    _, run = logit_grad(x, x, -1.0, return_run=True)
    assert type(run.cores[0].records) is RecordStore  # nothing captured outside capture()


# ---- command line --------------------------------------------------------------------------------

def test_cli_sanitize_passes_a_shipped_kernel(capsys):
    rc = cli_main(["sanitize", "logit_grad", "--shape", "3,8200"])
    out = capsys.readouterr().out
    assert rc == 0 and "0 error(s), 0 warning(s)" in out


def test_cli_sanitize_fails_on_errors(tmp_path, capsys):
    # a chip whose library temp area starts at 131072: LogitGrad's scratch lies over it
    profile = custom_profile(tmp_path, "ub_reserved_bytes", "65536")
    rc = cli_main(["sanitize", "logit_grad", "--shape", "9000", "--profile", str(profile)])
    out = capsys.readouterr().out
    assert rc == 1 and "buffer over reserved UB" in out and "2 error(s)" in out  # 2 cores
    rc = cli_main(["sanitize", "logit_grad", "--shape", "9000", "--profile", str(profile),
                   "--strict"])
    assert rc == 1 and "reserved" in capsys.readouterr().out


def test_cli_trace(capsys):
    rc = cli_main(["trace", "sigmoid_cross_entropy_with_logits_grad_v2", "--shape", "64",
                   "--reduction", "none", "--core", "0", "--values", "2"])
    out = capsys.readouterr().out
    assert rc == 0 and out.startswith("core 0: ")
    assert "AllocTensor" in out and "EnQue" in out and "(queue)" in out and "W0: [" in out
    assert cli_main(["trace", "logit_grad", "--shape", "64", "--core", "5"]) == 2


# ---- precision of the checks on the less common forms -------------------------------------------

def _checks(kernel, *gm, outputs=()):
    run = ascsim.launch(kernel, 1, *gm, sanitize="check", outputs=outputs)
    return [(f.kind, f.check) for f in run.findings]


def test_high_dimension_overlap_rules(capsys):
    def in_place():
        pipe, buf = _ub()
        t = buf.Get[float]()
        Duplicate(t, 1.0, 64, 4, 1, 8)
        PipeBarrier[PIPE_V]()
        Adds(t, t, 1.0, 64, 4, UnaryRepeatParams(1, 1, 8, 8))

    def feeds_later_repeat():
        pipe, buf = _ub()
        t = buf.Get[float]()
        Duplicate(t, 1.0, 64, 4, 1, 8)
        PipeBarrier[PIPE_V]()
        Adds(t[64], t, 1.0, 64, 3, UnaryRepeatParams(1, 1, 8, 8))  # dst r = src r + 1

    def documented_exception():
        pipe, buf = _ub()
        t = buf.Get[float]()
        Duplicate(t, 1.0, 64, 16, 1, 8)
        PipeBarrier[PIPE_V]()
        Add(t[64], t[512], t[64], 64, 3, BinaryRepeatParams(1, 1, 1, 8, 8, 0))  # src1RepStride 0

    def overlapping_repeats():
        pipe, buf = _ub()
        t = buf.Get[float]()
        Duplicate(t, 1.0, 64, 4, 1, 8)
        PipeBarrier[PIPE_V]()
        Muls(t, t, 2.0, 64, 3, UnaryRepeatParams(1, 1, 3, 3))  # repeats 96 bytes apart

    assert _checks(in_place) == []
    assert _checks(overlapping_repeats) == [("memcheck", "dst overlaps a later repeat's src")]
    assert _checks(feeds_later_repeat) == [("memcheck", "dst overlaps a later repeat's src")]
    assert _checks(documented_exception) == []


def test_strided_copies_and_padding(capsys):
    def strided(x, out):
        pipe, buf = _ub(8192)
        t = buf.Get[float]()
        # 4 blocks of 2 DataBlocks (16 floats), a gap of 1 DataBlock between them in UB
        DataCopy(t, _gm(x), DataCopyParams(4, 2, 0, 1))
        SetFlag[HardEvent.MTE2_V](EVENT_ID0)
        WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
        # in place, a repeat every 3 DataBlocks, its first 2 enabled (mask 16)
        Muls(t, t, 2.0, 16, 4, UnaryRepeatParams(1, 1, 3, 3))
        SetFlag[HardEvent.V_MTE3](EVENT_ID0)
        WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
        DataCopy(_gm(out), t, DataCopyParams(4, 2, 1, 0))

    def padded(x, out, is_pad):
        pipe, buf = _ub(1024)
        t = buf.Get[float]()
        # 3 floats with 2 padding floats on each side: [pad pad x x x pad pad dummy]
        pad = DataCopyPadExtParams[float](is_pad, 2, 2, 0.5)
        DataCopyPad(t, _gm(x), DataCopyExtParams(1, 12, 0, 0, 0), pad)
        SetFlag[HardEvent.MTE2_V](EVENT_ID0)
        WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
        Adds(t, t, 1.0, 7)
        SetFlag[HardEvent.V_MTE3](EVENT_ID0)
        WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
        DataCopyPad(_gm(out), t, DataCopyExtParams(1, 28, 0, 0, 0))  # pads and data

    x = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    assert _checks(strided, x, out, outputs=(1,)) == []
    np.testing.assert_array_equal(out, 2 * x)
    out7 = np.zeros(7, np.float32)
    assert _checks(lambda a, b: padded(a, b, True), x[:3], out7, outputs=(1,)) == []
    np.testing.assert_array_equal(out7, [1.5, 1.5, 1, 2, 3, 1.5, 1.5])
    run = ascsim.launch(lambda a, b: padded(a, b, False), 1, x[:3], out7, sanitize="check",
                        outputs=(1,))
    [f] = run.findings
    assert f.check == "uninitialised value reaches GM" and (f.start, f.end) == (0, 28)
    assert f.other.instruction == "Adds"


def test_scalar_reads_of_uninitialised_ub_warn(capsys):
    def kernel():
        pipe, buf = _ub()
        t = buf.Get[float]()
        Duplicate(t, 1.0, 8)
        SetFlag[HardEvent.V_S](EVENT_ID0)
        WaitFlag[HardEvent.V_S](EVENT_ID0)
        t.GetValue(7)
        t.GetValue(8)  # never written
    assert _checks(kernel) == [("initcheck", "uninitialised scalar read")]


def test_select_and_compare_propagate_taint_bit_by_bit(capsys):
    def kernel(x, out, n_out):
        pipe, buf = _ub(8192)
        ub = buf.Get[uint8_t]()
        v = ub.ReinterpretCast[float]()
        mask = ub[2048]
        params = DataCopyExtParams(1, 5 * sizeof(float), 0, 0, 0)
        DataCopyPad(v, _gm(x), params, DataCopyPadExtParams[float](False, 0, 0, 0.0))
        SetFlag[HardEvent.MTE2_V](EVENT_ID0)
        WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
        CompareScalar(mask, v, 0.5, CMPMODE.GE, 64)   # bits 5..63 come from dummy floats
        PipeBarrier[PIPE_V]()
        Select(v[512], mask, v, 0.0, SELMODE.VSEL_TENSOR_SCALAR_MODE, n_out)
        SetFlag[HardEvent.V_MTE3](EVENT_ID0)
        WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
        DataCopyPad(_gm(out), v[512], DataCopyExtParams(1, n_out * 4, 0, 0, 0))

    x = np.linspace(0, 1, 5).astype(np.float32)
    assert _checks(lambda a, b: kernel(a, b, 5), x, np.zeros(5, np.float32), outputs=(1,)) == []
    run = ascsim.launch(lambda a, b: kernel(a, b, 6), 1, x, np.zeros(6, np.float32),
                        sanitize="check", outputs=(1,))
    [f] = run.findings
    assert (f.start, f.end) == (20, 24) and f.other.instruction == "CompareScalar"


# ---- the C++ side of the debug aids ------------------------------------------------------------

def test_mirror_pairs_cpp_assert_with_ascendc_assert(tmp_path):
    from ascsim.mirror import check_pair
    from ascsim.mirror.pairs import FilePair

    def pair(cpp_stmt: str, py_stmt: str) -> list:
        cpp = tmp_path / "kernels_cpp/demo/op_kernel/demo.h"
        py = tmp_path / "kernels_py/demo/op_kernel/demo.py"
        cpp.parent.mkdir(parents=True, exist_ok=True)
        py.parent.mkdir(parents=True, exist_ok=True)
        cpp.write_text('#include "kernel_operator.h"\nusing namespace AscendC;\n'
                       "__aicore__ inline void F(int32_t n)\n{\n"
                       f"    {cpp_stmt}\n    printf(\"n=%d\\n\", n);\n}}\n")
        py.write_text("from ascsim.ascendc import *\n\n\ndef F(n):\n"
                      f"    {py_stmt}\n    printf(\"n=%d\\n\", n)\n")
        return check_pair(FilePair([cpp], py, cpp.parents[1])).findings

    assert pair('assert(n > 0, "n is %u", n);', 'ascendc_assert(n > 0, "n is %d", n)') == []
    assert pair("assert(n > 0);", "ascendc_assert(n > 0)") == []
    assert pair("assert(n > 0);", "ascendc_assert(n > 1)")  # a different condition differs


@pytest.mark.skipif(__import__("shutil").which("g++") is None, reason="needs g++")
def test_cpp_header_accepts_the_debug_calls(tmp_path):
    import subprocess
    from pathlib import Path
    include = Path(__file__).resolve().parents[1] / "tools" / "ascendc_include"
    src = tmp_path / "debug.cpp"
    src.write_text('#include "kernel_operator.h"\nusing namespace AscendC;\n'
                   "__aicore__ void F(LocalTensor<float> t, GlobalTensor<half> g, int32_t n) {\n"
                   '    assert(n > 0);\n    assert(n > 0, "n = %d", n);\n'
                   '    printf("n = %d\\n", n);\n    PRINTF("x");\n'
                   "    DumpTensor(t, 5, 32);\n    DumpTensor(g, 6, 8);\n}\n")
    proc = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-x", "c++", f"-I{include}",
                           str(src)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_the_first_finding_is_the_one_to_fix() -> None:
    """Root causes first, follow-ons after them, each naming its cause (sanitizer/report.py)."""
    import bugs.mcore_overlap as overlap
    import bugs.q_initbuffer_capacity as capacity
    import bugs.sc_deadlock_chain as chain
    found = chain.run("check").findings
    assert [(f.check, f.follows != "") for f in found] == [
        ("deadlock", False), ("deadlock", True), ("unpaired SetFlag", True)]
    root = found[0].py
    assert root.endswith(":24") and all(f.follows == f"the deadlock at {root}" for f in found[1:])
    assert "was issued but is held on PIPE_V behind WaitFlag<MTE2_V id 1>" in found[1].message
    found = capacity.run("check").findings
    assert [f.check for f in found] == ["UB capacity", "out of range"]
    assert found[1].follows.startswith("the UB capacity at ")
    found = overlap.run("check").findings
    assert found[-1].check == "output not covered" and found[-1].follows
    assert not any(f.follows for f in found[:-1])
    assert "follow-on of the multi-core write overlap" in overlap.run("check").report()


def test_a_short_copy_is_named_as_the_likely_cause() -> None:
    import bugs.ic_blocklen_elements as slip
    (f,) = slip.run("check").findings
    copy_line = next(i for i, t in enumerate(open(slip.__file__).read().splitlines(), 1)
                     if t.strip().startswith("DataCopyPad(t, xGm"))
    assert f"likely cause: DataCopyPad at tests/bugs/ic_blocklen_elements.py:{copy_line} " \
           "wrote only UB [0, 256) (256 bytes) of the [0, 1024) that Muls reads" in f.message
    assert "256 elements are 1024 bytes" in f.message


@pytest.mark.parametrize("seed", range(20))
def test_coverage_gaps_match_a_byte_map(seed):
    """The uncovered ranges of an output (its writes, never empty, in any order, overlapping
    or none) are the runs of bytes that no write covers."""
    from ascsim.sanitizer.offline import _gaps
    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 200))
    n = int(rng.integers(0, 12))
    lo = rng.integers(0, size, n)
    hi = np.minimum(lo + rng.integers(1, 40, n), size)
    covered = np.zeros(size, bool)
    for a, b in zip(lo, hi, strict=True):
        covered[a:b] = True
    # uncovered runs start where `~covered` turns on and end where it turns off
    turns = np.diff(np.concatenate([[0], ~covered, [0]]).astype(np.int8))
    want = list(zip(np.flatnonzero(turns == 1).tolist(), np.flatnonzero(turns == -1).tolist(),
                    strict=True))
    assert _gaps(lo.astype(np.int64), hi.astype(np.int64), size) == want


def test_end_of_kernel_findings_name_their_own_core_and_record():
    """The end-of-kernel checks read every core's records joined: each finding still names its
    core and the record's index in that core. Core c runs c Duplicates first, so its records
    sit at other indices than its neighbours'; core 1 leaves its flag set, core 2 repeats a
    WaitFlag."""
    def kernel():
        pipe, buf = _ub()
        t = buf.Get[float]()
        for _ in range(GetBlockIdx()):
            Duplicate(t, 1.0, 8)
        SetFlag[HardEvent.V_MTE3](EVENT_ID1)
        WaitFlag[HardEvent.V_MTE3](EVENT_ID1)
        if GetBlockIdx() == 1:
            SetFlag[HardEvent.V_MTE3](EVENT_ID0)  # never waited for
        if GetBlockIdx() == 2:
            WaitFlag[HardEvent.V_MTE3](EVENT_ID1)  # nothing set it again: redundant
    run = ascsim.launch(kernel, 3, sanitize="check")
    got = {(f.check, f.core): f for f in run.findings if f.kind == "synccheck"}
    assert set(got) >= {("unpaired SetFlag", 1), ("redundant sync", 2)}, run.report()
    for (_, core), f in got.items():
        assert run.decoded(core)[f.serial].name == f.instruction
    assert got["unpaired SetFlag", 1].serial == len(run.decoded(1)) - 1


def _cause_by_scan(f, roots):
    """report.py's follow-on rules, each a scan of every root (what report._Causes indexes)."""
    from ascsim.findings import ERROR as E
    same_core = [r for r in roots if r.core == f.core and r is not f]
    if f.check == "output not covered":
        return next((r for r in roots if r.severity == E and r.check != f.check), None)
    if f.check == "deadlock":
        return next((r for r in roots if r.severity == E and r.check != "deadlock"
                     and (r.core != f.core or (r.serial or 0) <= (f.serial or 0))), None)
    if f.check in ("unpaired SetFlag", "double SetFlag", "EnQue without DeQue",
                   "AllocTensor without FreeTensor", "redundant sync"):
        return next((r for r in same_core if r.check == "deadlock"), None)
    if f.check == "out of range":
        return next((r for r in same_core if r.check == "UB capacity"
                     and (r.serial or 0) <= (f.serial or 0)), None)
    return None


@pytest.mark.parametrize("seed", range(30))
def test_follow_on_rules_index_matches_a_scan(seed):
    """report.root_causes_first looks causes up in an index built once (a report of 16k
    redundant syncs took 9.5 s when every finding scanned every root): it must mark the same
    follow-ons as scanning does."""
    import dataclasses

    from ascsim.findings import ERROR as E
    from ascsim.findings import WARNING as W
    from ascsim.findings import Finding
    from ascsim.sanitizer.report import _name, root_causes_first, sort_key
    rng = np.random.default_rng(seed)
    checks = ["output not covered", "deadlock", "unpaired SetFlag", "redundant sync",
              "out of range", "UB capacity", "RAW hazard", "multi-core write overlap"]
    findings = [Finding(kind="k", severity=(E, W)[int(rng.integers(0, 2))],
                        check=checks[int(rng.integers(0, len(checks)))], message=str(i),
                        core=None if rng.random() < 0.1 else int(rng.integers(0, 3)),
                        serial=None if rng.random() < 0.1 else int(rng.integers(0, 20)),
                        py=f"k.py:{i}")
                for i in range(int(rng.integers(1, 60)))]
    ordered = sorted(findings, key=sort_key)
    roots = [f for f in ordered if not f.follows]
    expected = []
    for f in ordered:
        cause = _cause_by_scan(f, roots)
        expected.append(dataclasses.replace(f, follows=_name(cause)) if cause else f)
    assert root_causes_first(findings) == sorted(expected, key=sort_key)
