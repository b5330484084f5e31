#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// empty_permuted.out(SymInt[] size, int[] physical_layout, *, Tensor(a!) out) -> Tensor(a!)
// What empty_like exports as: out resized to `size`, its values unset as in torch. The
// physical layout (a permutation of the dims) is out's planned dim order's business.
Tensor& empty_permuted_out(KernelContext& ctx, IntArrayRef size, IntArrayRef physical_layout,
                           Tensor& out) {
  // Validate: a permutation of size's dims.
  bool seen[kMaxTensorDim] = {};
  bool permutation = physical_layout.size() == size.size() && size.size() <= kMaxTensorDim;
  for (size_t i = 0; permutation && i < physical_layout.size(); ++i) {
    const int64_t d = physical_layout[i];
    permutation = d >= 0 && d < static_cast<int64_t>(size.size()) && !seen[d];
    if (permutation) seen[d] = true;
  }
  TL_KERNEL_CHECK_MSG(ctx, permutation, InvalidArgument, out,
                      "empty_permuted.out: physical_layout must be a permutation of the %zu "
                      "dims of size", size.size());
  TL_KERNEL_CHECK_MSG(ctx, resize_tensor(out, size) == Error::Ok, InvalidArgument, out,
                      "empty_permuted.out: out cannot take the requested size");
  return out;
}

}  // namespace tailor::native
