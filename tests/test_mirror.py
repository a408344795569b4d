"""The mirror check: shipped kernels_py files transcribe their kernels_cpp twins statement by
statement; mutated copies are caught with both positions; the py-line -> cpp-line map."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ascsim import source
from ascsim.cli import main as cli_main
from ascsim.mirror import check_pair, find_pairs, line_map_for
from ascsim.mirror.pairs import FilePair

ROOT = Path(__file__).resolve().parents[1]
KERNEL_CPP = ROOT / "kernels_cpp/logit_grad/op_kernel/logit_grad_kernel.h"
KERNEL_PY = ROOT / "kernels_py/logit_grad/op_kernel/logit_grad_kernel.py"

SHIPPED = find_pairs(ROOT)


def _pair_id(p: FilePair) -> str:
    f = p.py or p.cpp[0]
    return str(f.relative_to(ROOT / ("kernels_py" if p.py else "kernels_cpp")))


def _line_of(path: Path, snippet: str) -> int:
    """The 1-based line of the only line of path containing snippet."""
    hits = [i for i, text in enumerate(path.read_text().splitlines(), 1) if snippet in text]
    assert len(hits) == 1, f"{snippet!r} occurs {len(hits)} times in {path}"
    return hits[0]


# ---- the shipped pairs ---------------------------------------------------------------------

def test_shipped_pairs_include_the_logit_grad_kernel():
    kernel = [p for p in SHIPPED if p.py == KERNEL_PY]
    assert kernel and kernel[0].cpp == [KERNEL_CPP]
    ops = {p.op_dir.name for p in SHIPPED}
    assert "logit_grad" in ops


@pytest.mark.parametrize("pair", SHIPPED, ids=_pair_id)
def test_shipped_pair_aligns_with_zero_unpaired_statements(pair):
    result = check_pair(pair)
    assert result.error is None, result.error
    if result.findings:
        report = "\n".join(f.format() for f in result.findings)
        pytest.fail(f"{len(result.findings)} unpaired statements:\n{report}", pytrace=False)
    assert result.pairs and all(eq for *_, eq in result.pairs)


def test_logit_grad_kernel_pairs_every_statement():
    result = check_pair(FilePair([KERNEL_CPP], KERNEL_PY, KERNEL_CPP.parents[1]))
    assert result.ok
    assert result.cpp_items == result.py_items == len(result.pairs) > 100


# ---- mutated copies ------------------------------------------------------------------------

@pytest.fixture
def tree(tmp_path):
    """A copy of the LogitGrad op_kernel files under tmp_path (kernels_cpp/ and kernels_py/)."""
    for side in ("kernels_cpp", "kernels_py"):
        src = ROOT / side / "logit_grad" / "op_kernel"
        shutil.copytree(src, tmp_path / side / "logit_grad" / "op_kernel",
                        ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def _files(tree: Path) -> tuple[Path, Path]:
    return (tree / "kernels_cpp/logit_grad/op_kernel/logit_grad_kernel.h",
            tree / "kernels_py/logit_grad/op_kernel/logit_grad_kernel.py")


def _edit(path: Path, fn) -> None:
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(fn(lines)))


def _check(tree: Path, capsys) -> tuple[list, int, str]:
    cpp, py = _files(tree)
    result = check_pair(FilePair([cpp], py, cpp.parents[1]))
    rc = cli_main(["mirror", "--root", str(tree), "logit_grad"])
    out = capsys.readouterr().out
    return result.findings, rc, out


def test_unmodified_copy_aligns(tree, capsys):
    findings, rc, out = _check(tree, capsys)
    assert findings == [] and rc == 0
    assert "0 unpaired" in out


def test_changed_argument_is_reported_with_both_positions(tree, capsys):
    cpp, py = _files(tree)
    py_line = _line_of(py, "Muls(tmp, xFp32, -1.0, calNum)")
    cpp_line = _line_of(cpp, "Muls(tmp, xFp32, -1.0f, calNum);")
    _edit(py, lambda ls: [t.replace("-1.0, calNum", "-2.0, calNum") for t in ls])
    findings, rc, out = _check(tree, capsys)
    assert rc == 1
    assert [(f.kind, f.cpp_at, f.py_at) for f in findings] == [
        ("differs", (str(cpp), cpp_line), (str(py), py_line))]
    assert f"{cpp}:{cpp_line}" in out and f"{py}:{py_line}" in out
    assert "Muls(tmp, xFp32, -2.0, calNum)" in out


def test_missing_call_is_reported_with_both_positions(tree, capsys):
    cpp, py = _files(tree)
    # the barrier right after Muls
    muls_py = _line_of(py, "Muls(tmp, xFp32, -1.0, calNum)")
    muls_cpp = _line_of(cpp, "Muls(tmp, xFp32, -1.0f, calNum);")
    assert "PipeBarrier" in py.read_text().splitlines()[muls_py]
    _edit(py, lambda ls: ls[:muls_py] + ls[muls_py + 1:])
    findings, rc, out = _check(tree, capsys)
    assert rc == 1
    assert len(findings) == 1
    f = findings[0]
    assert f.kind == "missing" and f.py is None
    assert f.cpp_at == (str(cpp), muls_cpp + 1)
    assert f.py_at == (str(py), muls_py + 1)  # where the barrier was expected
    assert f.cpp.text == "PipeBarrier[PIPE_V]()"
    assert f"{cpp}:{muls_cpp + 1}" in out and f"{py}:{muls_py + 1}" in out


def test_swapped_order_is_reported_with_both_positions(tree, capsys):
    cpp, py = _files(tree)
    set_py = _line_of(py, "SetFlag[HardEvent.MTE2_V](eventId)")
    wait_py = _line_of(py, "WaitFlag[HardEvent.MTE2_V](eventId)")
    assert wait_py == set_py + 1

    def swap(ls):
        ls[set_py - 1], ls[wait_py - 1] = ls[wait_py - 1], ls[set_py - 1]
        return ls
    _edit(py, swap)
    findings, rc, out = _check(tree, capsys)
    assert rc == 1
    assert len(findings) == 1 and findings[0].kind == "moved"
    f = findings[0]
    cpp_lines = {_line_of(cpp, "SetFlag<HardEvent::MTE2_V>(eventId);"),
                 _line_of(cpp, "WaitFlag<HardEvent::MTE2_V>(eventId);")}
    assert f.cpp_at[0] == str(cpp) and f.cpp_at[1] in cpp_lines
    assert f.py_at[0] == str(py) and f.py_at[1] in {set_py, wait_py}
    assert "order differs" in out and f"{py}:{f.py_at[1]}" in out


def test_extra_statement_is_reported_with_both_positions(tree, capsys):
    cpp, py = _files(tree)
    div_py = _line_of(py, "Div(dyFp32, dyFp32, tmp, calNum)")
    barrier_cpp = _line_of(cpp, "Div(dyFp32, dyFp32, tmp, calNum);") + 1
    _edit(py, lambda ls: ls[:div_py] + ["        Exp(tmp, tmp, calNum)\n"] + ls[div_py:])
    findings, rc, out = _check(tree, capsys)
    assert rc == 1
    assert len(findings) == 1
    f = findings[0]
    assert f.kind == "extra" and f.cpp is None
    assert f.py_at == (str(py), div_py + 1)
    assert f.cpp_at == (str(cpp), barrier_cpp)  # just after the paired Div
    assert "Exp(tmp, tmp, calNum)" in out and f"{cpp}:{barrier_cpp}" in out


def test_a_changed_cpp_side_is_reported_too(tree, capsys):
    cpp, py = _files(tree)
    cpp_line = _line_of(cpp, "CompareScalar(maskTwo, xFp32, hi_, CMPMODE::LE, alignedNum);")
    _edit(cpp, lambda ls: [t.replace("CMPMODE::LE", "CMPMODE::LT") for t in ls])
    findings, rc, _ = _check(tree, capsys)
    assert rc == 1
    assert [(f.kind, f.cpp_at[1]) for f in findings] == [("differs", cpp_line)]


def test_integer_division_must_be_floor_division(tree, capsys):
    cpp, py = _files(tree)
    line = _line_of(py, "tilesPerCore = tileCount // self.coreNum_")
    _edit(py, lambda ls: [t.replace("tileCount // self", "tileCount / self") for t in ls])
    findings, rc, _ = _check(tree, capsys)
    assert rc == 1
    assert [(f.kind, f.py_at[1]) for f in findings] == [("differs", line)]


def test_missing_twin_is_an_error(tree, capsys):
    _, py = _files(tree)
    py.unlink()
    rc = cli_main(["mirror", "--root", str(tree), "logit_grad"])
    out = capsys.readouterr().out
    assert rc == 1 and "has no Python twin" in out


# ---- the documented C++ <-> Python spellings ----------------------------------------------

def _snippet_findings(tmp_path: Path, cpp_body: str, py_body: str) -> list:
    cpp = tmp_path / "kernels_cpp/demo/op_kernel/demo.h"
    py = tmp_path / "kernels_py/demo/op_kernel/demo.py"
    cpp.parent.mkdir(parents=True, exist_ok=True)
    py.parent.mkdir(parents=True, exist_ok=True)
    cpp.write_text("#include \"kernel_operator.h\"\nusing namespace AscendC;\n"
                   "template <typename T>\nclass K {\npublic:\n"
                   "    __aicore__ inline void F(int64_t n, uint32_t m, float s,"
                   " LocalTensor<T> &t, uint64_t *out)\n    {\n"
                   + "".join(f"        {ln}\n" for ln in cpp_body.splitlines())
                   + "    }\n    int64_t count_ = 0;\n};\n")
    py.write_text("from ascsim.ascendc import *\n\n\nclass K(Generic[T]):\n"
                  "    def __init__(self):\n        self.count_ = 0\n\n"
                  "    def F(self, n, m, s, t, out):\n"
                  + "".join(f"        {ln}\n" for ln in py_body.splitlines()))
    return check_pair(FilePair([cpp], py, cpp.parents[1])).findings


SPELLINGS = [
    ("SetFlag<HardEvent::MTE2_V>(EVENT_ID0);", "SetFlag[HardEvent.MTE2_V](EVENT_ID0)"),
    ("PipeBarrier<PIPE_V>();", "PipeBarrier[PIPE_V]()"),
    ("LocalTensor<uint16_t> w = t.ReinterpretCast<uint16_t>();",
     "w = t.ReinterpretCast[uint16_t]()"),
    ("AscendC::DataCopyExtParams p{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};",
     "p = DataCopyExtParams(1, n * sizeof(self.T), 0, 0, 0)"),
    ("LocalTensor<float> x;", "x = LocalTensor[float]()"),
    ("if constexpr (std::is_same_v<T, half>) {\n    Muls(t, t, 1.5f, m);\n}",
     "if self.T is half:\n    Muls(t, t, 1.5, m)"),
    ("for (int64_t i = 0; i < n; i++) {\n    this->count_ += i;\n}",
     "for i in range(n):\n    self.count_ += i"),
    ("for (int64_t i = 2; i <= n; i += 2) {\n    count_--;\n}",
     "for i in range(2, n + 1, 2):\n    self.count_ -= 1"),
    ("int64_t q = n / 8 + (m > 0 && !(n < 0) ? 1 : 0);",
     "q = n // 8 + (1 if m > 0 and not n < 0 else 0)"),
    ("float r = s / 2.0f;", "r = s / 2.0"),
    ("float v = static_cast<float>(n);", "v = float(n)"),
    ("float nan = __builtin_nanf(\"\");", "nan = np.float32(np.nan)"),
    ("if (out == nullptr) {\n    return;\n} else if (n > 1) {\n    count_ = *out;\n} else {\n"
     "    out[0] = 2;\n}", "if out is None:\n    return\nelif n > 1:\n    self.count_ = out\n"
     "else:\n    out[0] = 2"),
    ("uint64_t k = std::max<uint64_t>(std::min({n, 4, m}), 1);", "k = max(min(n, 4, m), 1)"),
    ("Add(t, t, t, 64, 2, {1, 1, 1, 8, 8, 8});",
     "Add(t, t, t, 64, 2, BinaryRepeatParams(1, 1, 1, 8, 8, 8))"),
    ("GetCoreMemSize(CoreMemType::UB, m);", "m = GetCoreMemSize(CoreMemType.UB)"),
    # the mask state and the isSetMask template argument (ascsim/instructions/vmask.py)
    ("SetMaskCount();\nSetVectorMask<float, MaskMode::COUNTER>(0, n);\n"
     "Adds<float, false>(t, t, s, MASK_PLACEHOLDER, 1, {1, 1, 8, 8});\n"
     "SetMaskNorm();\nResetMask();",
     "SetMaskCount()\nSetVectorMask[float, MaskMode.COUNTER](0, n)\n"
     "Adds[float, False](t, t, s, MASK_PLACEHOLDER, 1, UnaryRepeatParams(1, 1, 8, 8))\n"
     "SetMaskNorm()\nResetMask()"),
    ("uint64_t mask[2] = {m, 0};\nMuls<T>(t, t, s, mask, 1, {1, 1, 8, 8});",
     "mask = [m, 0]\nMuls[self.T](t, t, s, mask, 1, UnaryRepeatParams(1, 1, 8, 8))"),
]


@pytest.mark.parametrize("cpp_body,py_body", SPELLINGS, ids=[c.split("\n")[0] for c, _ in
                                                            SPELLINGS])
def test_documented_spelling_pairs(tmp_path, cpp_body, py_body):
    findings = _snippet_findings(tmp_path, cpp_body, py_body)
    assert findings == [], "\n".join(f.format() for f in findings)


@pytest.mark.parametrize("cpp_body,py_body", [
    ("SetFlag<HardEvent::MTE2_V>(EVENT_ID0);", "SetFlag[HardEvent.V_MTE2](EVENT_ID0)"),
    ("int64_t q = n / 8;", "q = n / 8"),                 # integer division is //
    ("float r = s / 2.0f;", "r = s // 2.0"),             # float division is /
    ("Muls(t, t, 1.5f, m);", "Muls(t, t, 1.5, n)"),
    ("for (int64_t i = 0; i < n; i++) {\n    count_ += i;\n}",
     "for i in range(1, n):\n    self.count_ += i"),
    ("for (int64_t i = 0; i <= n; i++) {\n    count_ += i;\n}",
     "for i in range(n):\n    self.count_ += i"),
    ("if (n > 0) {\n    count_ = 1;\n}", "if n >= 0:\n    self.count_ = 1"),
    ("count_ = n;", "count_ = n"),                       # a member is self.count_
    ("float v = 1.0f;", "v = 1"),                        # a float constant stays a float
])
def test_different_statements_stay_different(tmp_path, cpp_body, py_body):
    findings = _snippet_findings(tmp_path, cpp_body, py_body)
    assert findings and all(f.kind == "differs" for f in findings)


def test_file_level_spellings(tmp_path):
    """#define constants, enums, function templates, out-of-class methods, static members,
    uninitialised fields, member initialisers and out-parameters."""
    cpp = tmp_path / "kernels_cpp/demo/op_host/demo.cpp"
    py = tmp_path / "kernels_py/demo/op_host/demo.py"
    cpp.parent.mkdir(parents=True)
    py.parent.mkdir(parents=True)
    cpp.write_text("""#include "kernel_operator.h"
#define TILE_NUM 8
enum Mode : int64_t { kNone = 0, kSum, kMean = 4 };

template <typename T>
class Kernel : public Base {
public:
    explicit Kernel(int64_t n) : Base(n), length_(n * 2) {}
    __aicore__ inline void Run(uint64_t *size);

private:
    static constexpr int32_t DEPTH = 2;
    uint32_t count_;
    int64_t length_ = 0;
};

template <typename T>
__aicore__ inline void Kernel<T>::Run(uint64_t *size)
{
    *size = count_ / DEPTH + sizeof(T);
}

template <typename T>
void Launch(int64_t n, uint64_t *size)
{
    Kernel<T> k(n);
    k.Run(size);
}
""")
    py.write_text("""TILE_NUM = 8


class Mode(IntEnum):
    kNone = 0
    kSum = 1
    kMean = 4


kNone, kSum, kMean = Mode.kNone, Mode.kSum, Mode.kMean


class Kernel(Base, Generic[T]):
    def __init__(self, n):
        super().__init__(n)
        self.count_ = 0
        self.length_ = n * 2

    DEPTH = 2

    def Run(self):
        size = self.count_ // self.DEPTH + sizeof(self.T)
        return size


def Launch(T, n):
    k = Kernel[T](n)
    size = k.Run()
    return size
""")
    result = check_pair(FilePair([cpp], py, cpp.parents[1]))
    assert result.error is None
    assert result.findings == [], "\n".join(f.format() for f in result.findings)
    assert len(result.pairs) == 19
    # the out-parameter's value must leave Launch by a return, at the C++ closing brace
    py.write_text(py.read_text()[:-len("    return size\n")])
    result = check_pair(FilePair([cpp], py, cpp.parents[1]))
    assert [(f.kind, f.cpp_at[1], f.cpp.text) for f in result.findings] == [
        ("missing", len(cpp.read_text().splitlines()), "return size")]


# ---- the py-line -> cpp-line map -------------------------------------------------------------

MAPPED = [
    ("Muls(tmp, xFp32, -1.0, calNum)", "Muls(tmp, xFp32, -1.0f, calNum);"),
    ("Select(xFp32, maskOne, dyFp32, self.fill_,", "Select(xFp32, maskOne, dyFp32, fill_,"),
    ("SetFlag[HardEvent.MTE3_MTE2](EVENT_ID0)", "SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);"),
    ("DataCopyPad(staging, self.dyGm_[offset]", "DataCopyPad(staging, dyGm_[offset]"),
    ("self.pipe_ = TPipe()", "TPipe pipe_;"),
    ("self.coreNum_ = 1", "int64_t coreNum_ = 1;"),
    ("self.elementNum_ = tiling.elementNum", "elementNum_ = tiling.elementNum;"),
    ("alignedNum = (calNum", "uint32_t alignedNum = (calNum"),
    ("for i in range(myTiles):", "for (int64_t i = 0; i < myTiles; i++)"),
    ("def Compute(self, calNum, setBase):", "void Compute(uint32_t calNum, uint32_t setBase)"),
]


def test_py_to_cpp_map_of_logit_grad_kernel():
    mapping = line_map_for(str(KERNEL_PY))
    for py_snippet, cpp_snippet in MAPPED:
        py_line, cpp_line = _line_of(KERNEL_PY, py_snippet), _line_of(KERNEL_CPP, cpp_snippet)
        assert mapping.get(py_line) == (str(KERNEL_CPP), cpp_line), py_snippet
        assert source.cpp_position(str(KERNEL_PY), py_line) == (str(KERNEL_CPP), cpp_line)


def test_every_line_of_a_multi_line_statement_maps_to_it(tree):
    _, py = _files(tree)
    text = py.read_text().replace("Select(xFp32, maskOne, dyFp32, self.fill_, ",
                                  "Select(xFp32, maskOne,\n               dyFp32, self.fill_, ")
    py.write_text(text)
    start = _line_of(py, "Select(xFp32, maskOne,")
    mapping = line_map_for(str(py))
    assert mapping[start] == mapping[start + 1]
    assert mapping[start][1] == _line_of(_files(tree)[0], "Select(xFp32, maskOne, dyFp32, fill_,")


def test_map_is_cached_and_follows_edits(tree):
    _, py = _files(tree)
    first = line_map_for(str(py))
    assert line_map_for(str(py)) is first  # cached per file version
    muls = _line_of(py, "Muls(tmp, xFp32, -1.0, calNum)")
    _edit(py, lambda ls: ls[:muls - 1] + ["        # a new comment line\n"] + ls[muls - 1:])
    second = line_map_for(str(py))
    assert second is not first
    assert second[muls + 1] == first[muls]


def test_files_outside_kernels_py_have_no_cpp_position():
    assert source.cpp_position(__file__, 10) is None
    assert line_map_for(str(ROOT / "ascsim" / "runtime.py")) == {}


def test_describe_position_shows_the_mirrored_cpp_line():
    # a code object whose line table says "logit_grad_kernel.py, the Muls line", as a record's
    muls = _line_of(KERNEL_PY, "Muls(tmp, xFp32, -1.0, calNum)")
    code = compile("\n" * (muls - 1) + "Muls()\n", str(KERNEL_PY), "exec")
    lasti = next(off for off, _, line in code.co_lines() if line == muls)
    py, cpp = source.describe_position(code, lasti)
    assert py == f"kernels_py/logit_grad/op_kernel/logit_grad_kernel.py:{muls}"
    expected = _line_of(KERNEL_CPP, "Muls(tmp, xFp32, -1.0f, calNum);")
    assert cpp == f"kernels_cpp/logit_grad/op_kernel/logit_grad_kernel.h:{expected}"


def test_mapper_can_be_switched_off():
    try:
        source.set_cpp_mapper(None)
        assert source.cpp_position(str(KERNEL_PY), 1) is None
    finally:
        source.set_cpp_mapper(source._UNSET)


# ---- the command-line front ends ----------------------------------------------------------

def test_cli_on_logit_grad(capsys):
    rc = cli_main(["mirror", "--root", str(ROOT), "logit_grad"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "logit_grad_kernel.py" in out and " 0 unpaired" in out


def test_cli_unknown_target(capsys):
    assert cli_main(["mirror", "--root", str(ROOT), "no_such_op"]) == 2
    assert "no kernels_cpp" in capsys.readouterr().out


def test_tools_script_runs_the_same_check():
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "mirror_check.py"),
                           str(KERNEL_PY), "--map"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    muls = _line_of(KERNEL_PY, "Muls(tmp, xFp32, -1.0, calNum)")
    assert f"logit_grad_kernel.py:{muls} -> kernels_cpp/logit_grad/op_kernel/" in proc.stdout


def test_shipped_pairs_include_the_cross_entropy_loss_op():
    """CrossEntropyLoss: every kernels_py file of the op has its C++ twin (the parametrized
    test above then pairs each statement), the kernel header with most of the statements."""
    root = ROOT / "kernels_py/cross_entropy_loss"
    pairs = {p.py.relative_to(root).as_posix(): p for p in SHIPPED
             if p.py is not None and root in p.py.parents}
    assert set(pairs) >= {"op_kernel/cross_entropy_loss_kernel.py",
                          "op_kernel/cross_entropy_loss.py",
                          "op_kernel/cross_entropy_loss_tiling_data.py",
                          "op_host/cross_entropy_loss_tiling.py",
                          "op_host/cross_entropy_loss_def.py",
                          "op_host/cross_entropy_loss_infershape.py",
                          "op_api/aclnn_cross_entropy_loss.py"}
    kernel = check_pair(pairs["op_kernel/cross_entropy_loss_kernel.py"])
    assert kernel.ok and kernel.cpp_items == kernel.py_items == len(kernel.pairs) > 400


def test_mse_loss_v2_pairs_every_file_and_statement():
    """MSELossV2: every C++ file has its Python twin (kernel entry, base / none / sum / mean
    classes, tiling data and keys, def, infershape, tiling, aclnn API) and every statement
    pairs."""
    pairs = [p for p in SHIPPED if p.op_dir.name == "mse_loss_v2"]
    stems = {(p.py or p.cpp[0]).stem for p in pairs}
    assert stems == {"mse_loss_v2", "mse_loss_v2_base", "mse_loss_v2_none", "mse_loss_v2_sum",
                     "mse_loss_v2_mean", "mse_loss_v2_tiling_data", "mse_loss_v2_tiling_key",
                     "mse_loss_v2_def", "mse_loss_v2_infershape", "mse_loss_v2_tiling",
                     "aclnn_mse_loss"}
    for pair in pairs:
        assert pair.py is not None and pair.cpp, pair
        result = check_pair(pair)
        assert result.ok and result.cpp_items == result.py_items == len(result.pairs), pair.py
