/**
 * ascsim's declaration of the AscendC kernel API, for `g++ -std=c++17 -fsyntax-only` only.
 *
 * Types, enums, templates and function signatures of exactly the surface ascsim simulates
 * (ascsim/ascendc.py): a kernel that compiles against this header uses nothing ascsim lacks.
 * Nothing here has a body; the code cannot be linked or run. Enum values follow ascsim (and,
 * for HardEvent, the AscendC numbering of impl/basic_api/kernel_event.h); the numeric values
 * of pipe_t and event_t come from the device compiler and are ascsim's here.
 *
 * GENERATED PARTS: the instruction declarations, i.e. every block between
 * `// BEGIN ascsim-generated: <section>` and `// END ascsim-generated: <section>` (the free
 * functions, and the instruction members of LocalTensor, GlobalTensor and TQue), are written
 * by `python -m ascsim.cppheader` from the `cpp` facets of ascsim's instruction registry
 * (ascsim/registry.py; the CppDecl texts live in ascsim/instructions/, sync.py, pipe.py
 * and memory.py). Change those texts and regenerate; never edit inside a block. Everything
 * outside the blocks is hand-written. tests/test_cpp_header.py checks the two agree.
 */
#ifndef ASCSIM_KERNEL_OPERATOR_H
#define ASCSIM_KERNEL_OPERATOR_H

#include <cstddef>
#include <cstdint>
#include <type_traits>

// ---- function and address-space qualifiers (meaningful to the device compiler only) ---------
#define __aicore__
#define __global__
#define __gm__
#define GM_ADDR __gm__ uint8_t *

// ---- scalar types the compiler provides --------------------------------------------------------
struct half {
    half();
    template <typename U, typename = std::enable_if_t<std::is_arithmetic_v<U>>>
    half(U value);
    operator float() const;

private:
    uint16_t bits_;  // gives sizeof(half) == 2
};

struct bfloat16_t {
    bfloat16_t();
    template <typename U, typename = std::enable_if_t<std::is_arithmetic_v<U>>>
    bfloat16_t(U value);
    operator float() const;

private:
    uint16_t bits_;  // gives sizeof(bfloat16_t) == 2
};

// ---- pipes and event ids (global, as the compiler declares them) -------------------------------
enum pipe_t { PIPE_S = 0, PIPE_V = 1, PIPE_MTE2 = 2, PIPE_MTE3 = 3, PIPE_ALL = 4 };

enum event_t {
    EVENT_ID0 = 0,
    EVENT_ID1 = 1,
    EVENT_ID2 = 2,
    EVENT_ID3 = 3,
    EVENT_ID4 = 4,
    EVENT_ID5 = 5,
    EVENT_ID6 = 6,
    EVENT_ID7 = 7,
};

namespace AscendC {

// ---- enums -------------------------------------------------------------------------------------
enum class TPosition : uint8_t { GM = 0, VECIN = 1, VECOUT = 2, VECCALC = 3, MAX = 4 };
using QuePosition = TPosition;

// Source pipe then destination pipe; values as in impl/basic_api/kernel_event.h.
enum class HardEvent : uint8_t {
    MTE2_MTE1 = 0,
    MTE1_MTE2 = 1,
    MTE1_M = 2,
    M_MTE1 = 3,
    MTE2_V = 4,
    V_MTE2 = 5,
    MTE3_V = 6,
    V_MTE3 = 7,
    M_V = 8,
    V_M = 9,
    V_V = 10,
    MTE3_MTE1 = 11,
    MTE1_MTE3 = 12,
    MTE1_V = 13,
    MTE2_M = 14,
    M_MTE2 = 15,
    V_MTE1 = 16,
    M_FIX = 17,
    FIX_M = 18,
    MTE3_MTE2 = 19,
    MTE2_MTE3 = 20,
    S_V = 21,
    V_S = 22,
    S_MTE2 = 23,
    MTE2_S = 24,
    S_MTE3 = 25,
    MTE3_S = 26,
    MTE2_FIX = 27,
    FIX_MTE2 = 28,
    FIX_S = 29,
    M_S = 30,
    FIX_MTE3 = 31,
    MTE1_FIX = 32,
    FIX_MTE1 = 33,
    FIX_FIX = 34,
    MAX = 35,
};
using TEventID = int8_t;  // an event id as the TPipe hands it out (0-7)

enum class RoundMode {
    CAST_NONE = 0,
    CAST_RINT = 1,
    CAST_FLOOR = 2,
    CAST_CEIL = 3,
    CAST_ROUND = 4,
    CAST_TRUNC = 5,
    CAST_ODD = 6,
};

enum class CMPMODE : uint8_t { LT = 0, GT = 1, EQ = 2, LE = 3, GE = 4, NE = 5 };

enum class SELMODE : uint8_t {
    VSEL_CMPMASK_SPR = 0,
    VSEL_TENSOR_SCALAR_MODE = 1,
    VSEL_TENSOR_TENSOR_MODE = 2,
};

// the vector mask register: a lane bit mask (NORMAL) or an element count (COUNTER)
enum class MaskMode : uint8_t { NORMAL = 0, COUNTER = 1 };
// the mask argument of a level-0 call with isSetMask = false (impl/basic_api/kernel_reg.h)
constexpr uint64_t MASK_PLACEHOLDER = 0;

// what WholeReduceMax/Min write per repeat (declaration order, ascendc_more.md 1.2)
enum class ReduceOrder {
    ORDER_VALUE_INDEX = 0,
    ORDER_INDEX_VALUE = 1,
    ORDER_ONLY_VALUE = 2,
    ORDER_ONLY_INDEX = 3,
};

// A scalar operand takes the tensor's T without taking part in deducing it, so that
// `Adds(halfDst, halfSrc, 1.0f, n)` converts the float as the AscendC overloads do.
template <typename T>
struct ScalarOf {
    using type = T;
};
template <typename T>
using ScalarT = typename ScalarOf<T>::type;

// ---- tensors -----------------------------------------------------------------------------------
template <typename T>
class LocalTensor {
public:
    using PrimType = T;
    __aicore__ LocalTensor();
    __aicore__ LocalTensor operator[](const uint32_t offset) const;
    template <typename U>
    __aicore__ LocalTensor<U> ReinterpretCast() const;
    __aicore__ uint32_t GetSize() const;
    __aicore__ void SetSize(const uint32_t size);
    __aicore__ uint64_t GetPhyAddr() const;
    // BEGIN ascsim-generated: LocalTensor members
    // GetValue: scalar read of one UB or GM element
    __aicore__ T GetValue(const uint32_t index) const;
    // SetValue: scalar write of one UB or GM element
    __aicore__ void SetValue(const uint32_t index, const ScalarT<T> value) const;
    // END ascsim-generated: LocalTensor members
};

template <typename T>
class GlobalTensor {
public:
    using PrimType = T;
    __aicore__ GlobalTensor();
    __aicore__ void SetGlobalBuffer(__gm__ T *buffer, uint64_t bufferSize);
    __aicore__ void SetGlobalBuffer(__gm__ T *buffer);
    __aicore__ GlobalTensor operator[](const uint64_t offset) const;
    __aicore__ uint64_t GetSize() const;
    __aicore__ __gm__ T *GetPhyAddr() const;
    // BEGIN ascsim-generated: GlobalTensor members
    // GetValue: scalar read of one UB or GM element
    __aicore__ T GetValue(const uint64_t index) const;
    // SetValue: scalar write of one UB or GM element
    __aicore__ void SetValue(const uint64_t index, const ScalarT<T> value);
    // END ascsim-generated: GlobalTensor members
};

// ---- TPipe, TQue, TBuf -------------------------------------------------------------------------
// TQue<pos, depth> is TQueBind<pos, pos, depth>; the queue calls are members of TQueBind.
template <TPosition src, TPosition dst, int32_t depth>
class TQueBind {
public:
    __aicore__ TQueBind();
    // BEGIN ascsim-generated: TQue members
    // AllocTensor: take the next free buffer of a TQue (its contents are unspecified)
    template <typename T>
    __aicore__ LocalTensor<T> AllocTensor();
    // EnQue: hand a filled buffer to the consumer pipe
    template <typename T>
    __aicore__ bool EnQue(const LocalTensor<T> &tensor);
    // DeQue: take the oldest enqueued buffer
    template <typename T>
    __aicore__ LocalTensor<T> DeQue();
    // FreeTensor: give a buffer back to the producer pipe
    template <typename T>
    __aicore__ void FreeTensor(LocalTensor<T> &tensor);
    // END ascsim-generated: TQue members
    __aicore__ bool VacantInQue();
    __aicore__ bool HasTensorInQue();
};

template <TPosition pos, int32_t depth>
class TQue : public TQueBind<pos, pos, depth> {
public:
    __aicore__ TQue();
};

template <TPosition pos = TPosition::VECCALC>
class TBuf {
public:
    __aicore__ TBuf();
    template <typename T>
    __aicore__ LocalTensor<T> Get();
    template <typename T>
    __aicore__ LocalTensor<T> Get(uint32_t len);
    template <typename T>
    __aicore__ LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset);
};

class TPipe {
public:
    __aicore__ TPipe();
    template <TPosition src, TPosition dst, int32_t depth>
    __aicore__ bool InitBuffer(TQueBind<src, dst, depth> &que, uint8_t num, uint32_t len);
    template <TPosition pos>
    __aicore__ bool InitBuffer(TBuf<pos> &buf, uint32_t len);
    __aicore__ void Destroy();
    __aicore__ void Reset();
    // BEGIN ascsim-generated: TPipe members
    // FetchEventID: the lowest event id of a HardEvent no queue or AllocEventID holds (not
    //   reserved)
    template <HardEvent evt>
    __aicore__ TEventID FetchEventID();
    __aicore__ TEventID FetchEventID(HardEvent evt);
    // AllocEventID: reserve the lowest free event id of a HardEvent until ReleaseEventID
    template <HardEvent evt>
    __aicore__ TEventID AllocEventID();
    // ReleaseEventID: give an event id reserved by AllocEventID back
    template <HardEvent evt>
    __aicore__ void ReleaseEventID(TEventID id);
    // END ascsim-generated: TPipe members
};
__aicore__ TPipe *GetTPipePtr();  // the TPipe the kernel created

// ---- debugging ---------------------------------------------------------------------------------
// printf / PRINTF take a C format string; DumpTensor prints dumpSize elements of a tensor;
// assert(cond[, fmt, ...]) stops the kernel when cond is false (ascsim spells it ascendc_assert,
// `assert` being a Python keyword; the macro below maps the C++ spelling onto it).
__aicore__ void printf(const char *fmt, ...);
template <typename T>
__aicore__ void DumpTensor(const LocalTensor<T> &tensor, uint32_t desc, uint32_t dumpSize);
template <typename T>
__aicore__ void DumpTensor(const GlobalTensor<T> &tensor, uint32_t desc, uint32_t dumpSize);
__aicore__ void ascendc_assert(bool condition, const char *fmt = nullptr, ...);

// ---- parameters of the data movement instructions ----------------------------------------------
// DataCopy: every field in 32-byte blocks. DataCopyPad: blockLen in bytes.
struct DataCopyParams {
    __aicore__ DataCopyParams();
    __aicore__ DataCopyParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn,
                              const uint16_t dstStrideIn);
    uint16_t blockCount;
    uint16_t blockLen;
    uint16_t srcStride;
    uint16_t dstStride;
};

struct DataCopyExtParams {
    __aicore__ DataCopyExtParams();
    __aicore__ DataCopyExtParams(const uint16_t count, const uint32_t len, const uint32_t srcStrideIn,
                                 const uint32_t dstStrideIn, const uint32_t rsvIn);
    uint16_t blockCount;
    uint32_t blockLen;
    uint32_t srcStride;
    uint32_t dstStride;
    uint32_t rsv;
};

template <typename T>
struct DataCopyPadExtParams {
    __aicore__ DataCopyPadExtParams();
    __aicore__ DataCopyPadExtParams(const bool isPadValue, const uint8_t leftPadValue,
                                    const uint8_t rightPadValue, const ScalarT<T> padValue);
    bool isPad;
    uint8_t leftPadding;
    uint8_t rightPadding;
    T paddingValue;
};

struct DataCopyPadParams {
    __aicore__ DataCopyPadParams();
    __aicore__ DataCopyPadParams(const bool isPadValue, const uint8_t leftPadValue,
                                 const uint8_t rightPadValue, const uint64_t padValue);
    bool isPad;
    uint8_t leftPadding;
    uint8_t rightPadding;
    uint64_t paddingValue;
};

// ---- parameters of the vector instructions' high-dimension form --------------------------------
// Count form `Op(dst, src..., count)`; high-dimension form `Op(dst, src..., mask, repeatTime,
// repeatParams)` with a continuous (uint64_t) or a bit (uint64_t[2]) mask.
struct UnaryRepeatParams {
    __aicore__ UnaryRepeatParams();
    __aicore__ UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn,
                                 const uint8_t dstRepStrideIn, const uint8_t srcRepStrideIn);
    uint16_t dstBlkStride;
    uint16_t srcBlkStride;
    uint8_t dstRepStride;
    uint8_t srcRepStride;
};

struct BinaryRepeatParams {
    __aicore__ BinaryRepeatParams();
    __aicore__ BinaryRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t src0BlkStrideIn,
                                  const uint8_t src1BlkStrideIn, const uint8_t dstRepStrideIn,
                                  const uint8_t src0RepStrideIn, const uint8_t src1RepStrideIn);
    uint8_t dstBlkStride;
    uint8_t src0BlkStride;
    uint8_t src1BlkStride;
    uint8_t dstRepStride;
    uint8_t src0RepStride;
    uint8_t src1RepStride;
};

// Copy (UB->UB): strides in 32-byte blocks, repeat sizes <= 4095.
struct CopyRepeatParams {
    __aicore__ CopyRepeatParams();
    __aicore__ CopyRepeatParams(const uint16_t dstStrideIn, const uint16_t srcStrideIn,
                                uint16_t dstRepeatSizeIn, uint16_t srcRepeatSizeIn);
    uint16_t dstStride;
    uint16_t srcStride;
    uint16_t dstRepeatSize;
    uint16_t srcRepeatSize;
};

struct BrcbRepeatParams {
    __aicore__ BrcbRepeatParams();
    __aicore__ BrcbRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t dstRepStrideIn);
    uint16_t dstBlkStride;
    uint16_t dstRepStride;
};

struct GatherMaskParams {
    __aicore__ GatherMaskParams();
    __aicore__ GatherMaskParams(const uint8_t src0BlockStrideIn, const uint16_t repeatTimesIn,
                                const uint16_t src0RepeatStrideIn,
                                const uint8_t src1RepeatStrideIn);
    uint8_t src0BlockStride;
    uint16_t repeatTimes;
    uint16_t src0RepeatStride;
    uint8_t src1RepeatStride;
};

// ---- instructions: free functions of namespace AscendC -----------------------------------------
// BEGIN ascsim-generated: free functions
// SetFlag: set an (event, id) flag on the event's source pipe
template <HardEvent event>
__aicore__ void SetFlag(int32_t eventID);
// WaitFlag: wait for and clear an (event, id) flag on the event's destination pipe
template <HardEvent event>
__aicore__ void WaitFlag(int32_t eventID);
// PipeBarrier: wait until every earlier instruction of a pipe has finished
template <pipe_t pipe>
__aicore__ void PipeBarrier();
// SetMaskNorm: vector mask state: Normal mode (the mask register is a lane bit mask)
__aicore__ inline void SetMaskNorm();
// SetMaskCount: vector mask state: Counter mode (the mask register is an element count)
__aicore__ inline void SetMaskCount();
// ResetMask: vector mask state: a full mask (the mode is kept)
__aicore__ inline void ResetMask();
// SetVectorMask: vector mask state: write the mask register (T decides the lanes of a length)
template <typename T, MaskMode mode = MaskMode::NORMAL>
__aicore__ static inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow);
template <typename T, MaskMode mode = MaskMode::NORMAL>
__aicore__ static inline void SetVectorMask(int32_t len);
// Cast: type conversion with a RoundMode
template <typename T, typename U>
__aicore__ void Cast(const LocalTensor<T> &dst, const LocalTensor<U> &src,
                     const RoundMode &roundMode, const uint32_t count);
template <typename T, typename U, bool isSetMask = true>
__aicore__ void Cast(const LocalTensor<T> &dst, const LocalTensor<U> &src,
                     const RoundMode &roundMode, const uint64_t mask, const uint8_t repeatTime,
                     const UnaryRepeatParams &repeatParams);
template <typename T, typename U, bool isSetMask = true>
__aicore__ void Cast(const LocalTensor<T> &dst, const LocalTensor<U> &src,
                     const RoundMode &roundMode, const uint64_t mask[], const uint8_t repeatTime,
                     const UnaryRepeatParams &repeatParams);
// SetDeqScale: write DEQSCALE, the scale Cast int32_t -> half (vconv_deq) multiplies by
__aicore__ void SetDeqScale(half scale);
// Exp: dst = e ** src (element-wise, unary)
template <typename T>
__aicore__ void Exp(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void Exp(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask,
                    const uint8_t repeatTime, const UnaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void Exp(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[],
                    const uint8_t repeatTime, const UnaryRepeatParams &repeatParams);
// Ln: dst = natural logarithm of src (element-wise, unary)
template <typename T>
__aicore__ void Ln(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void Ln(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask,
                   const uint8_t repeatTime, const UnaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void Ln(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[],
                   const uint8_t repeatTime, const UnaryRepeatParams &repeatParams);
// Abs: dst = |src| (element-wise, unary)
template <typename T>
__aicore__ void Abs(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void Abs(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask,
                    const uint8_t repeatTime, const UnaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void Abs(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[],
                    const uint8_t repeatTime, const UnaryRepeatParams &repeatParams);
// Sqrt: dst = square root of src (element-wise, unary)
template <typename T>
__aicore__ void Sqrt(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void Sqrt(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask,
                     const uint8_t repeatTime, const UnaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void Sqrt(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[],
                     const uint8_t repeatTime, const UnaryRepeatParams &repeatParams);
// Reciprocal: dst = 1 / src (element-wise, unary)
template <typename T>
__aicore__ void Reciprocal(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                           const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void Reciprocal(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask,
                           const uint8_t repeatTime, const UnaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void Reciprocal(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                           const uint64_t mask[], const uint8_t repeatTime,
                           const UnaryRepeatParams &repeatParams);
// Not: dst = bitwise not of src (element-wise, unary)
template <typename T>
__aicore__ void Not(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void Not(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask,
                    const uint8_t repeatTime, const UnaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void Not(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[],
                    const uint8_t repeatTime, const UnaryRepeatParams &repeatParams);
// Relu: dst = max(src, 0), NaN if src is, +0 for -0 (the Max rule) (element-wise, unary)
template <typename T>
__aicore__ void Relu(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void Relu(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask,
                     const uint8_t repeatTime, const UnaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void Relu(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[],
                     const uint8_t repeatTime, const UnaryRepeatParams &repeatParams);
// Rsqrt: dst = 1 / square root of src (element-wise, unary)
template <typename T>
__aicore__ void Rsqrt(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void Rsqrt(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask,
                      const uint8_t repeatTime, const UnaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void Rsqrt(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[],
                      const uint8_t repeatTime, const UnaryRepeatParams &repeatParams);
// Adds: dst = src + scalar (element-wise, scalar)
template <typename T>
__aicore__ void Adds(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                     const ScalarT<T> &scalarValue, const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void Adds(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                     const ScalarT<T> &scalarValue, uint64_t mask, const uint8_t repeatTime,
                     const UnaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void Adds(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                     const ScalarT<T> &scalarValue, const uint64_t mask[], const uint8_t repeatTime,
                     const UnaryRepeatParams &repeatParams);
// Muls: dst = src * scalar (element-wise, scalar)
template <typename T>
__aicore__ void Muls(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                     const ScalarT<T> &scalarValue, const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void Muls(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                     const ScalarT<T> &scalarValue, uint64_t mask, const uint8_t repeatTime,
                     const UnaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void Muls(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                     const ScalarT<T> &scalarValue, const uint64_t mask[], const uint8_t repeatTime,
                     const UnaryRepeatParams &repeatParams);
// Maxs: dst = max(src, scalar), NaN if either is (element-wise, scalar)
template <typename T>
__aicore__ void Maxs(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                     const ScalarT<T> &scalarValue, const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void Maxs(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                     const ScalarT<T> &scalarValue, uint64_t mask, const uint8_t repeatTime,
                     const UnaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void Maxs(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                     const ScalarT<T> &scalarValue, const uint64_t mask[], const uint8_t repeatTime,
                     const UnaryRepeatParams &repeatParams);
// Mins: dst = min(src, scalar), NaN if either is (element-wise, scalar)
template <typename T>
__aicore__ void Mins(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                     const ScalarT<T> &scalarValue, const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void Mins(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                     const ScalarT<T> &scalarValue, uint64_t mask, const uint8_t repeatTime,
                     const UnaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void Mins(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                     const ScalarT<T> &scalarValue, const uint64_t mask[], const uint8_t repeatTime,
                     const UnaryRepeatParams &repeatParams);
// LeakyRelu: dst = src if src >= 0 else src * scalar (alpha) (element-wise, scalar)
template <typename T>
__aicore__ void LeakyRelu(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                          const ScalarT<T> &scalarValue, const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void LeakyRelu(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                          const ScalarT<T> &scalarValue, uint64_t mask, const uint8_t repeatTime,
                          const UnaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void LeakyRelu(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                          const ScalarT<T> &scalarValue, const uint64_t mask[],
                          const uint8_t repeatTime, const UnaryRepeatParams &repeatParams);
// ShiftLeft: dst = src << scalar (0..width; a signed src keeps its sign bit) (element-wise, scalar)
template <typename T>
__aicore__ void ShiftLeft(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                          const ScalarT<T> &scalarValue, const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void ShiftLeft(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                          const ScalarT<T> &scalarValue, uint64_t mask, const uint8_t repeatTime,
                          const UnaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void ShiftLeft(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                          const ScalarT<T> &scalarValue, const uint64_t mask[],
                          const uint8_t repeatTime, const UnaryRepeatParams &repeatParams);
// ShiftRight: dst = src >> scalar (0..width; arithmetic for signed types) (element-wise, scalar)
template <typename T>
__aicore__ void ShiftRight(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                           const ScalarT<T> &scalarValue, const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void ShiftRight(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                           const ScalarT<T> &scalarValue, uint64_t mask, const uint8_t repeatTime,
                           const UnaryRepeatParams &repeatParams, bool roundEn = false);
template <typename T, bool isSetMask = true>
__aicore__ void ShiftRight(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                           const ScalarT<T> &scalarValue, const uint64_t mask[],
                           const uint8_t repeatTime, const UnaryRepeatParams &repeatParams,
                           bool roundEn = false);
// Add: dst = src0 + src1 (element-wise, binary)
template <typename T>
__aicore__ void Add(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                    const LocalTensor<T> &src1, const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void Add(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                    const LocalTensor<T> &src1, uint64_t mask, const uint8_t repeatTime,
                    const BinaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void Add(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                    const LocalTensor<T> &src1, const uint64_t mask[], const uint8_t repeatTime,
                    const BinaryRepeatParams &repeatParams);
// Sub: dst = src0 - src1 (element-wise, binary)
template <typename T>
__aicore__ void Sub(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                    const LocalTensor<T> &src1, const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void Sub(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                    const LocalTensor<T> &src1, uint64_t mask, const uint8_t repeatTime,
                    const BinaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void Sub(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                    const LocalTensor<T> &src1, const uint64_t mask[], const uint8_t repeatTime,
                    const BinaryRepeatParams &repeatParams);
// Mul: dst = src0 * src1 (element-wise, binary)
template <typename T>
__aicore__ void Mul(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                    const LocalTensor<T> &src1, const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void Mul(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                    const LocalTensor<T> &src1, uint64_t mask, const uint8_t repeatTime,
                    const BinaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void Mul(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                    const LocalTensor<T> &src1, const uint64_t mask[], const uint8_t repeatTime,
                    const BinaryRepeatParams &repeatParams);
// Div: dst = src0 / src1 (element-wise, binary)
template <typename T>
__aicore__ void Div(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                    const LocalTensor<T> &src1, const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void Div(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                    const LocalTensor<T> &src1, uint64_t mask, const uint8_t repeatTime,
                    const BinaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void Div(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                    const LocalTensor<T> &src1, const uint64_t mask[], const uint8_t repeatTime,
                    const BinaryRepeatParams &repeatParams);
// Max: dst = max(src0, src1), NaN if either is (element-wise, binary)
template <typename T>
__aicore__ void Max(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                    const LocalTensor<T> &src1, const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void Max(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                    const LocalTensor<T> &src1, uint64_t mask, const uint8_t repeatTime,
                    const BinaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void Max(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                    const LocalTensor<T> &src1, const uint64_t mask[], const uint8_t repeatTime,
                    const BinaryRepeatParams &repeatParams);
// Min: dst = min(src0, src1), NaN if either is (element-wise, binary)
template <typename T>
__aicore__ void Min(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                    const LocalTensor<T> &src1, const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void Min(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                    const LocalTensor<T> &src1, uint64_t mask, const uint8_t repeatTime,
                    const BinaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void Min(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                    const LocalTensor<T> &src1, const uint64_t mask[], const uint8_t repeatTime,
                    const BinaryRepeatParams &repeatParams);
// And: dst = src0 & src1 (bitwise) (element-wise, binary)
template <typename T>
__aicore__ void And(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                    const LocalTensor<T> &src1, const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void And(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                    const LocalTensor<T> &src1, uint64_t mask, const uint8_t repeatTime,
                    const BinaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void And(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                    const LocalTensor<T> &src1, const uint64_t mask[], const uint8_t repeatTime,
                    const BinaryRepeatParams &repeatParams);
// Or: dst = src0 | src1 (bitwise) (element-wise, binary)
template <typename T>
__aicore__ void Or(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                   const LocalTensor<T> &src1, const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void Or(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                   const LocalTensor<T> &src1, uint64_t mask, const uint8_t repeatTime,
                   const BinaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void Or(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                   const LocalTensor<T> &src1, const uint64_t mask[], const uint8_t repeatTime,
                   const BinaryRepeatParams &repeatParams);
// Duplicate: fill elements with a scalar
template <typename T>
__aicore__ void Duplicate(const LocalTensor<T> &dst, const ScalarT<T> &scalarValue,
                          const int32_t &count);
template <typename T, bool isSetMask = true>
__aicore__ void Duplicate(const LocalTensor<T> &dst, const ScalarT<T> &scalarValue, uint64_t mask,
                          const uint8_t repeatTime, const uint16_t dstBlockStride,
                          const uint8_t dstRepeatStride);
template <typename T, bool isSetMask = true>
__aicore__ void Duplicate(const LocalTensor<T> &dst, const ScalarT<T> &scalarValue,
                          const uint64_t mask[], const uint8_t repeatTime,
                          const uint16_t dstBlockStride, const uint8_t dstRepeatStride);
// Compare: element-wise comparison of two tensors into a bit mask
template <typename T, typename U>
__aicore__ void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0,
                        const LocalTensor<T> &src1, CMPMODE cmpMode, uint32_t count);
template <typename T, typename U, bool isSetMask = true>
__aicore__ void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0,
                        const LocalTensor<T> &src1, CMPMODE cmpMode, const uint64_t mask,
                        uint8_t repeatTime, const BinaryRepeatParams &repeatParams);
template <typename T, typename U, bool isSetMask = true>
__aicore__ void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0,
                        const LocalTensor<T> &src1, CMPMODE cmpMode, const uint64_t mask[],
                        uint8_t repeatTime, const BinaryRepeatParams &repeatParams);
// CompareScalar: element-wise comparison with a scalar into a bit mask (also spelled Compares)
template <typename T, typename U>
__aicore__ void CompareScalar(const LocalTensor<U> &dst, const LocalTensor<T> &src0,
                              const ScalarT<T> src1Scalar, CMPMODE cmpMode, uint32_t count);
template <typename T, typename U>
__aicore__ void Compares(const LocalTensor<U> &dst, const LocalTensor<T> &src0,
                         const ScalarT<T> src1Scalar, CMPMODE cmpMode, uint32_t count);
template <typename T, typename U, bool isSetMask = true>
__aicore__ void CompareScalar(const LocalTensor<U> &dst, const LocalTensor<T> &src0,
                              const ScalarT<T> src1Scalar, CMPMODE cmpMode, const uint64_t mask,
                              uint8_t repeatTime, const UnaryRepeatParams &repeatParams);
template <typename T, typename U, bool isSetMask = true>
__aicore__ void CompareScalar(const LocalTensor<U> &dst, const LocalTensor<T> &src0,
                              const ScalarT<T> src1Scalar, CMPMODE cmpMode, const uint64_t mask[],
                              uint8_t repeatTime, const UnaryRepeatParams &repeatParams);
template <typename T, typename U, bool isSetMask = true>
__aicore__ void Compares(const LocalTensor<U> &dst, const LocalTensor<T> &src0,
                         const ScalarT<T> src1Scalar, CMPMODE cmpMode, const uint64_t mask,
                         uint8_t repeatTime, const UnaryRepeatParams &repeatParams);
template <typename T, typename U, bool isSetMask = true>
__aicore__ void Compares(const LocalTensor<U> &dst, const LocalTensor<T> &src0,
                         const ScalarT<T> src1Scalar, CMPMODE cmpMode, const uint64_t mask[],
                         uint8_t repeatTime, const UnaryRepeatParams &repeatParams);
// Select: per-element choice between two sources (or a source and a scalar) by a bit mask
template <typename T, typename U>
__aicore__ void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask,
                       const LocalTensor<T> &src0, const LocalTensor<T> &src1, SELMODE selMode,
                       uint32_t count);
template <typename T, typename U>
__aicore__ void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask,
                       const LocalTensor<T> &src0, ScalarT<T> src1, SELMODE selMode,
                       uint32_t count);
template <typename T, typename U, bool isSetMask = true>
__aicore__ void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask,
                       const LocalTensor<T> &src0, const LocalTensor<T> &src1, SELMODE selMode,
                       const uint64_t mask, uint8_t repeatTime,
                       const BinaryRepeatParams &repeatParams);
template <typename T, typename U, bool isSetMask = true>
__aicore__ void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask,
                       const LocalTensor<T> &src0, const LocalTensor<T> &src1, SELMODE selMode,
                       const uint64_t mask[], uint8_t repeatTime,
                       const BinaryRepeatParams &repeatParams);
template <typename T, typename U, bool isSetMask = true>
__aicore__ void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask,
                       const LocalTensor<T> &src0, T src1, SELMODE selMode, const uint64_t mask,
                       uint8_t repeatTime, const BinaryRepeatParams &repeatParams);
template <typename T, typename U, bool isSetMask = true>
__aicore__ void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask,
                       const LocalTensor<T> &src0, T src1, SELMODE selMode, const uint64_t mask[],
                       uint8_t repeatTime, const BinaryRepeatParams &repeatParams);
// DataCopy: contiguous or block-strided copy GM->UB (MTE2), UB->GM (MTE3), UB->UB (V)
template <typename T>
__aicore__ void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src,
                         const uint32_t count);
template <typename T>
__aicore__ void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src,
                         const uint32_t count);
template <typename T>
__aicore__ void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                         const uint32_t count);
template <typename T>
__aicore__ void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src,
                         const DataCopyParams &repeatParams);
template <typename T>
__aicore__ void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src,
                         const DataCopyParams &repeatParams);
template <typename T>
__aicore__ void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                         const DataCopyParams &repeatParams);
// DataCopyPad: copy with byte-granular blocks and padding, GM->UB (MTE2) or UB->GM (MTE3)
template <typename T>
__aicore__ void DataCopyPad(const LocalTensor<T> &dst, const GlobalTensor<T> &src,
                            const DataCopyExtParams &dataCopyParams,
                            const DataCopyPadExtParams<T> &padParams);
template <typename T>
__aicore__ void DataCopyPad(const GlobalTensor<T> &dst, const LocalTensor<T> &src,
                            const DataCopyExtParams &dataCopyParams);
template <typename T>
__aicore__ void DataCopyPad(const LocalTensor<T> &dst, const GlobalTensor<T> &src,
                            const DataCopyParams &dataCopyParams,
                            const DataCopyPadParams &padParams);
template <typename T>
__aicore__ void DataCopyPad(const GlobalTensor<T> &dst, const LocalTensor<T> &src,
                            const DataCopyParams &dataCopyParams);
// SetPadValue: write MOV_PAD_VAL, the pad value DataCopyPad GM->UB uses without isPad
template <typename T, TPosition pos = TPosition::MAX>
__aicore__ void SetPadValue(T paddingValue);
// SyncAll: barrier over every AIV core of the launch (hard; or soft, through GM counters)
template <bool isAIVOnly = true>
__aicore__ void SyncAll();
template <bool isAIVOnly = true>
__aicore__ void SyncAll(const GlobalTensor<int32_t> &gmWorkspace,
                        const LocalTensor<int32_t> &ubWorkspace, const int32_t usedCores = 0);
// CrossCoreSetFlag: add 1 to a cross-core flag counter of the cores the mode names
template <uint8_t modeId, pipe_t pipe>
__aicore__ void CrossCoreSetFlag(uint16_t flagId);
// CrossCoreWaitFlag: wait while this core's cross-core flag counter is 0, then decrement it
__aicore__ void CrossCoreWaitFlag(uint16_t flagId);
// SetAtomicAdd: later UB->GM copies add into GM (in T)
template <typename T>
__aicore__ void SetAtomicAdd();
// SetAtomicMax: later UB->GM copies keep the maximum (in T)
template <typename T>
__aicore__ void SetAtomicMax();
// SetAtomicMin: later UB->GM copies keep the minimum (in T)
template <typename T>
__aicore__ void SetAtomicMin();
// SetAtomicNone: later UB->GM copies overwrite GM again
__aicore__ void SetAtomicNone();
// DisableDmaAtomic: later UB->GM copies overwrite GM again (the new name of SetAtomicNone)
__aicore__ void DisableDmaAtomic();
// Sigmoid: high-level API: 1 / (1 + e^-x) as Muls, Exp, Adds, Duplicate, Div over a tmp buffer; the
//   record is its scalar bookkeeping, the vector work is its recorded sub-instructions
template <typename T, bool isReuseSource = false>
__aicore__ void Sigmoid(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                        const LocalTensor<uint8_t> &sharedTmpBuffer, const uint32_t calCount);
template <typename T, bool isReuseSource = false>
__aicore__ void Sigmoid(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                        const uint32_t calCount);
// Tanh: high-level API: tanh in fp32 as clip +-8.8, Exp(2x), (e - 1) / (e + 1) over a tmp buffer;
//   the record is its scalar bookkeeping, the vector work is its recorded sub-instructions
template <typename T, bool isReuseSource = false>
__aicore__ void Tanh(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                     const LocalTensor<uint8_t> &sharedTmpBuffer, const uint32_t calCount);
template <typename T, bool isReuseSource = false>
__aicore__ void Tanh(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t calCount);
// Log: high-level API: natural logarithm (Ln); the record is its scalar bookkeeping, the vector
//   work is its recorded sub-instructions
template <typename T, bool isReuseSource = false>
__aicore__ void Log(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                    const LocalTensor<uint8_t> &sharedTmpBuffer, const uint32_t calCount);
template <typename T, bool isReuseSource = false>
__aicore__ void Log(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t calCount);
// Log2: high-level API: Ln then Muls by 1/ln 2 (half through fp32 in a tmp buffer); the record is
//   its scalar bookkeeping, the vector work is its recorded sub-instructions
template <typename T, bool isReuseSource = false>
__aicore__ void Log2(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                     const LocalTensor<uint8_t> &sharedTmpBuffer, const uint32_t calCount);
template <typename T, bool isReuseSource = false>
__aicore__ void Log2(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t calCount);
// Log10: high-level API: Ln then Muls by 1/ln 10 (half through fp32 in a tmp buffer); the record is
//   its scalar bookkeeping, the vector work is its recorded sub-instructions
template <typename T, bool isReuseSource = false>
__aicore__ void Log10(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                      const LocalTensor<uint8_t> &sharedTmpBuffer, const uint32_t calCount);
template <typename T, bool isReuseSource = false>
__aicore__ void Log10(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                      const uint32_t calCount);
// Brcb: 8 source elements per repeat, each broadcast to one 32-byte DataBlock of dst
template <typename T>
__aicore__ void Brcb(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint8_t repeatTime,
                     const BrcbRepeatParams &repeatParams);
// Axpy: dst = scalar * src + dst (dst is read)
template <typename T, typename U>
__aicore__ void Axpy(const LocalTensor<T> &dst, const LocalTensor<U> &src, const U scalarValue,
                     const int32_t &count);
template <typename T, typename U, bool isSetMask = true>
__aicore__ void Axpy(const LocalTensor<T> &dst, const LocalTensor<U> &src, const U scalarValue,
                     uint64_t mask, const uint8_t repeatTime,
                     const UnaryRepeatParams &repeatParams);
template <typename T, typename U, bool isSetMask = true>
__aicore__ void Axpy(const LocalTensor<T> &dst, const LocalTensor<U> &src, const U scalarValue,
                     const uint64_t mask[], const uint8_t repeatTime,
                     const UnaryRepeatParams &repeatParams);
// Gather: dst[i] = the element at byte src + srcBaseAddr + srcOffset[i]
template <typename T>
__aicore__ void Gather(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                       const LocalTensor<uint32_t> &srcOffset, const uint32_t srcBaseAddr,
                       const uint32_t count);
template <typename T>
__aicore__ void Gather(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                       const LocalTensor<uint32_t> &srcOffset, const uint32_t srcBaseAddr,
                       const uint64_t mask, const uint8_t repeatTime, const uint16_t dstRepStride);
template <typename T>
__aicore__ void Gather(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                       const LocalTensor<uint32_t> &srcOffset, const uint32_t srcBaseAddr,
                       const uint64_t mask[], const uint8_t repeatTime,
                       const uint16_t dstRepStride);
// GatherMask: the lanes a pattern selects, compacted into dst; rsvdCnt = how many
template <typename T, typename U>
__aicore__ void GatherMask(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                           const LocalTensor<U> &src1Pattern, const bool reduceMode,
                           const uint32_t mask, const GatherMaskParams &gatherMaskParams,
                           uint64_t &rsvdCnt);
template <typename T>
__aicore__ void GatherMask(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                           const uint8_t src1Pattern, const bool reduceMode, const uint32_t mask,
                           const GatherMaskParams &gatherMaskParams, uint64_t &rsvdCnt);
// Copy: masked UB->UB copy in repeats of 8 DataBlocks (A2: level-0 form only)
template <typename T, bool isSetMask = true>
__aicore__ void Copy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask,
                     const uint8_t repeatTime, const CopyRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void Copy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[],
                     const uint8_t repeatTime, const CopyRepeatParams &repeatParams);
// WholeReduceSum: one tree sum per repeat (vcadd)
template <typename T, bool isSetMask = true>
__aicore__ void WholeReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                               const uint64_t mask[], const int32_t repeatTime,
                               const int32_t dstRepStride, const int32_t srcBlkStride,
                               const int32_t srcRepStride);
template <typename T, bool isSetMask = true>
__aicore__ void WholeReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                               const int32_t mask, const int32_t repeatTime,
                               const int32_t dstRepStride, const int32_t srcBlkStride,
                               const int32_t srcRepStride);
// WholeReduceMax: the maximum of each repeat and its lane (vcmax)
template <typename T, bool isSetMask = true>
__aicore__ void WholeReduceMax(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                               const uint64_t mask[], const int32_t repeatTime,
                               const int32_t dstRepStride, const int32_t srcBlkStride,
                               const int32_t srcRepStride,
                               ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX);
template <typename T, bool isSetMask = true>
__aicore__ void WholeReduceMax(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                               const int32_t mask, const int32_t repeatTime,
                               const int32_t dstRepStride, const int32_t srcBlkStride,
                               const int32_t srcRepStride,
                               ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX);
// WholeReduceMin: the minimum of each repeat and its lane (vcmin)
template <typename T, bool isSetMask = true>
__aicore__ void WholeReduceMin(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                               const uint64_t mask[], const int32_t repeatTime,
                               const int32_t dstRepStride, const int32_t srcBlkStride,
                               const int32_t srcRepStride,
                               ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX);
template <typename T, bool isSetMask = true>
__aicore__ void WholeReduceMin(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                               const int32_t mask, const int32_t repeatTime,
                               const int32_t dstRepStride, const int32_t srcBlkStride,
                               const int32_t srcRepStride,
                               ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX);
// RepeatReduceSum: WholeReduceSum with a continuous mask (dstBlkStride ignored)
template <typename T, bool isSetMask = true>
__aicore__ void RepeatReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                                const int32_t repeatTime, const int32_t mask,
                                const int32_t dstBlkStride, const int32_t srcBlkStride,
                                const int32_t dstRepStride, const int32_t srcRepStride);
// BlockReduceSum: one sum per 32-byte block, 8 per repeat
template <typename T, bool isSetMask = true>
__aicore__ void BlockReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                               const int32_t repeatTime, const uint64_t mask[],
                               const int32_t dstRepStride, const int32_t srcBlkStride,
                               const int32_t srcRepStride);
template <typename T, bool isSetMask = true>
__aicore__ void BlockReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                               const int32_t repeatTime, const int32_t mask,
                               const int32_t dstRepStride, const int32_t srcBlkStride,
                               const int32_t srcRepStride);
// BlockReduceMax: one max per 32-byte block, 8 per repeat
template <typename T, bool isSetMask = true>
__aicore__ void BlockReduceMax(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                               const int32_t repeatTime, const uint64_t mask[],
                               const int32_t dstRepStride, const int32_t srcBlkStride,
                               const int32_t srcRepStride);
template <typename T, bool isSetMask = true>
__aicore__ void BlockReduceMax(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                               const int32_t repeatTime, const int32_t mask,
                               const int32_t dstRepStride, const int32_t srcBlkStride,
                               const int32_t srcRepStride);
// BlockReduceMin: one min per 32-byte block, 8 per repeat
template <typename T, bool isSetMask = true>
__aicore__ void BlockReduceMin(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                               const int32_t repeatTime, const uint64_t mask[],
                               const int32_t dstRepStride, const int32_t srcBlkStride,
                               const int32_t srcRepStride);
template <typename T, bool isSetMask = true>
__aicore__ void BlockReduceMin(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                               const int32_t repeatTime, const int32_t mask,
                               const int32_t dstRepStride, const int32_t srcBlkStride,
                               const int32_t srcRepStride);
// PairReduceSum: sums of adjacent lane pairs (vcpadd)
template <typename T, bool isSetMask = true>
__aicore__ void PairReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                              const int32_t repeatTime, const uint64_t mask[],
                              const int32_t dstRepStride, const int32_t srcBlkStride,
                              const int32_t srcRepStride);
template <typename T, bool isSetMask = true>
__aicore__ void PairReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                              const int32_t repeatTime, const int32_t mask,
                              const int32_t dstRepStride, const int32_t srcBlkStride,
                              const int32_t srcRepStride);
// ReduceSum: sum of all elements into dst[0] (count form: ACC_VAL)
template <typename T, bool isSetMask = true>
__aicore__ void ReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                          const LocalTensor<T> &sharedTmpBuffer, const int32_t count);
template <typename T>
__aicore__ void ReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                          const LocalTensor<T> &sharedTmpBuffer, const uint64_t mask[],
                          const int32_t repeatTime, const int32_t srcRepStride);
template <typename T>
__aicore__ void ReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                          const LocalTensor<T> &sharedTmpBuffer, const int32_t mask,
                          const int32_t repeatTime, const int32_t srcRepStride);
// ReduceMax: maximum into dst[0], its index into dst[1] (calIndex)
template <typename T>
__aicore__ void ReduceMax(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                          const LocalTensor<T> &sharedTmpBuffer, const int32_t count,
                          bool calIndex = false);
template <typename T>
__aicore__ void ReduceMax(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                          const LocalTensor<T> &sharedTmpBuffer, const uint64_t mask[],
                          const int32_t repeatTime, const int32_t srcRepStride,
                          bool calIndex = false);
template <typename T>
__aicore__ void ReduceMax(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                          const LocalTensor<T> &sharedTmpBuffer, const int32_t mask,
                          const int32_t repeatTime, const int32_t srcRepStride,
                          bool calIndex = false);
// ReduceMin: minimum into dst[0], its index into dst[1] (calIndex)
template <typename T>
__aicore__ void ReduceMin(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                          const LocalTensor<T> &sharedTmpBuffer, const int32_t count,
                          bool calIndex = false);
template <typename T>
__aicore__ void ReduceMin(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                          const LocalTensor<T> &sharedTmpBuffer, const uint64_t mask[],
                          const int32_t repeatTime, const int32_t srcRepStride,
                          bool calIndex = false);
template <typename T>
__aicore__ void ReduceMin(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                          const LocalTensor<T> &sharedTmpBuffer, const int32_t mask,
                          const int32_t repeatTime, const int32_t srcRepStride,
                          bool calIndex = false);
// GetAccVal: read ACC_VAL (the count-form ReduceSum's result) on the scalar pipe
template <typename T>
__aicore__ inline T GetAccVal();
__aicore__ inline int64_t GetAccVal();
// GetReduceMaxMinCount: read MAX_MIN_CNT (the last WholeReduceMax/Min's extreme and index)
template <typename T>
__aicore__ inline void GetReduceMaxMinCount(T &maxMinValue, T &maxMinIndex);
// Power: high-level API: dst = src0 ** src1 per element as one fp32 powf (tensor or scalar base and
//   exponent; the A2 composition is not public, profile power_impl = powf); clobbers its tmp
template <typename T, bool isReuseSource = false>
__aicore__ void Power(const LocalTensor<T> &dstTensor, const LocalTensor<T> &src0Tensor,
                      const LocalTensor<T> &src1Tensor, const LocalTensor<uint8_t> &sharedTmpBuffer,
                      const uint32_t calCount);
template <typename T, bool isReuseSource = false>
__aicore__ void Power(const LocalTensor<T> &dstTensor, const LocalTensor<T> &src0Tensor,
                      const LocalTensor<T> &src1Tensor, const uint32_t calCount);
template <typename T, bool isReuseSource = false>
__aicore__ void Power(const LocalTensor<T> &dstTensor, const LocalTensor<T> &src0Tensor,
                      const T &src1Scalar, const LocalTensor<uint8_t> &sharedTmpBuffer,
                      const uint32_t calCount);
template <typename T, bool isReuseSource = false>
__aicore__ void Power(const LocalTensor<T> &dstTensor, const LocalTensor<T> &src0Tensor,
                      const T &src1Scalar, const uint32_t calCount);
template <typename T, bool isReuseSource = false>
__aicore__ void Power(const LocalTensor<T> &dstTensor, const T &src0Scalar,
                      const LocalTensor<T> &src1Tensor, const LocalTensor<uint8_t> &sharedTmpBuffer,
                      const uint32_t calCount);
template <typename T, bool isReuseSource = false>
__aicore__ void Power(const LocalTensor<T> &dstTensor, const T &src0Scalar,
                      const LocalTensor<T> &src1Tensor, const uint32_t calCount);
// END ascsim-generated: free functions

// ---- cores and tiling --------------------------------------------------------------------------
__aicore__ int64_t GetBlockIdx();
__aicore__ int64_t GetBlockNum();
__aicore__ int64_t GetSubBlockIdx();
__aicore__ int64_t GetTaskRation();
__aicore__ int64_t GetTaskRatio();

// ---- workspace and GM initialisation (ascsim: instructions/crosscore.py) -------------------------
__aicore__ GM_ADDR GetUserWorkspace(GM_ADDR workspace);
__aicore__ GM_ADDR GetSysWorkSpacePtr();
__aicore__ void SetSysWorkspace(GM_ADDR workspace);
template <typename T>
__aicore__ void InitGlobalMemory(GlobalTensor<T> &gmWorkspaceAddr, const uint64_t size,
                                 const T value);

namespace ascsim_detail {
template <typename T>
__aicore__ T ReadTilingData(GM_ADDR tiling);
__aicore__ bool TilingKeyIs(uint64_t key);
__aicore__ void KernelTaskType(int32_t kernelType);
}  // namespace ascsim_detail

// KERNEL_TASK_TYPE_DEFAULT's kernel types (CANN's KernelMetaType, in its order).
enum KernelMetaType : int32_t {
    KERNEL_TYPE_AIV_ONLY,
    KERNEL_TYPE_AIC_ONLY,
    KERNEL_TYPE_MIX_AIV_1_0,
    KERNEL_TYPE_MIX_AIC_1_0,
    KERNEL_TYPE_MIX_AIC_1_1,
    KERNEL_TYPE_MIX_AIC_1_2,
};

}  // namespace AscendC

// REGISTER_TILING_DEFAULT(Struct), in the __global__ entry before GET_TILING_DATA, names the
// plain C++ struct the tiling is (CANN: a sizeof(Struct) record for the build, no runtime code).
// Here it declares the local type GET_TILING_DATA reads, so a kernel that leaves it out fails to
// compile with that type's name in the error. REGISTER_TILING_FOR_TILINGKEY("<condition on
// TILING_KEY_VAR>", Struct) registers a struct for some keys and needs the default first; such
// structs are read with GET_TILING_DATA_WITH_STRUCT.
#define REGISTER_TILING_DEFAULT(STRUCT)                                                    \
    using REGISTER_TILING_DEFAULT_is_required_before_GET_TILING_DATA = STRUCT;             \
    static_assert(sizeof(STRUCT) > 0, "REGISTER_TILING_DEFAULT needs a complete struct")

#define REGISTER_TILING_FOR_TILINGKEY(CONDITION, STRUCT)                                  \
    static_assert(sizeof(REGISTER_TILING_DEFAULT_is_required_before_GET_TILING_DATA) > 0 && \
                      sizeof(STRUCT) > 0,                                                 \
                  CONDITION)

#define GET_TILING_DATA(NAME, TILING)                                                     \
    const REGISTER_TILING_DEFAULT_is_required_before_GET_TILING_DATA NAME =                \
        ::AscendC::ascsim_detail::ReadTilingData<                                          \
            REGISTER_TILING_DEFAULT_is_required_before_GET_TILING_DATA>(TILING)

#define GET_TILING_DATA_WITH_STRUCT(STRUCT, NAME, TILING) \
    const STRUCT NAME = ::AscendC::ascsim_detail::ReadTilingData<STRUCT>(TILING)

#define TILING_KEY_IS(KEY) (::AscendC::ascsim_detail::TilingKeyIs(KEY))
#define KERNEL_TASK_TYPE_DEFAULT(TYPE) (::AscendC::ascsim_detail::KernelTaskType(TYPE))

// AscendC's assert takes an optional format and arguments after the condition.
#undef assert
#define assert(...) (::AscendC::ascendc_assert(__VA_ARGS__))
#define PRINTF ::AscendC::printf

#endif  // ASCSIM_KERNEL_OPERATOR_H
