// The scratch size of a runtime linked without gen/register_kernels.cpp (test and size
// apps that bring their own kernel table): none. Weak, so the generated table's value
// replaces it; kept in a file of its own so the compiler cannot fold it.
#include "runtime/kernel/kernel_scratch.h"

namespace tailor::gen {

extern const size_t kKernelScratchBytes __attribute__((weak)) = 0;

}  // namespace tailor::gen
