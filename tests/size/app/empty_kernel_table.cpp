// A kernel table with no kernels: linked in place of gen/register_kernels.cpp to
// measure the core runtime (loader, executor, registry, platform) without any kernel.
#include "runtime/kernel/registry.h"

namespace tailor::gen {

// One placeholder row: C++ has no zero-length arrays; kNumKernels keeps it unused.
const KernelEntry kKernels[1] = {{"", "", nullptr}};
const size_t kNumKernels = 0;
const internal::PrepackPath* const kPrepackPath = nullptr;

}  // namespace tailor::gen
