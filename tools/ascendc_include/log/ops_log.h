/**
 * ascsim: op_host's error log, `OP_LOGE(context->GetNodeName(), fmt, ...)` (CANN's ops_log.h),
 * for the C++ syntax check only. The Python twin is ascsim.host.OP_LOGE, whose message the
 * aclnn layer's tiling error (561002) carries.
 */
#ifndef ASCSIM_LOG_OPS_LOG_H
#define ASCSIM_LOG_OPS_LOG_H

namespace ops::internal {
void LogHostError(const char *node, const char *format, ...) __attribute__((format(printf, 2, 3)));
}  // namespace ops::internal

#define OP_LOGE(...) ::ops::internal::LogHostError(__VA_ARGS__)

#endif  // ASCSIM_LOG_OPS_LOG_H
