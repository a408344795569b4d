/**
 * ascsim's declaration of `platform_ascendc::PlatformAscendC` (answered from the hardware profile
 * in ascsim/host.py), for the C++ syntax check only.
 */
#ifndef ASCSIM_TILING_PLATFORM_PLATFORM_ASCENDC_H
#define ASCSIM_TILING_PLATFORM_PLATFORM_ASCENDC_H

#include <cstdint>

namespace fe {
class PlatFormInfos;
}  // namespace fe

namespace platform_ascendc {
enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6 };

enum class SocVersion { ASCEND910B, ASCEND910_93, RESERVED_VERSION };

class PlatformAscendC {
public:
    explicit PlatformAscendC(fe::PlatFormInfos *platformInfo);
    uint32_t GetCoreNumAiv() const;
    uint32_t GetCoreNum() const;
    uint32_t GetCoreNumAic() const;
    void GetCoreMemSize(const CoreMemType &memType, uint64_t &size) const;
    uint32_t GetLibApiWorkSpaceSize() const;
    SocVersion GetSocVersion() const;
};
}  // namespace platform_ascendc

#endif  // ASCSIM_TILING_PLATFORM_PLATFORM_ASCENDC_H
