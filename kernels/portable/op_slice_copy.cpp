#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "kernels/portable/util/strided_copy.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// slice_copy.Tensor_out(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None,
//                       SymInt step=1, *, Tensor(a!) out) -> Tensor(a!)
// As self[..., start:end:step, ...]: negative bounds count from the end, bounds outside
// the dim are clamped, and an empty range gives size 0.
Tensor& slice_copy_tensor_out(KernelContext& ctx, const Tensor& self, int64_t dim,
                              Optional<int64_t> start, Optional<int64_t> end, int64_t step,
                              Tensor& out) {
  // Validate
  int64_t d = 0;
  TL_KERNEL_CHECK_MSG(ctx, self.dim() > 0 && normalize_dim(dim, self.dim(), &d),
                      InvalidArgument, out,
                      "slice_copy.Tensor_out: dim %lld out of range for a %lld-d input",
                      static_cast<long long>(dim), static_cast<long long>(self.dim()));
  TL_KERNEL_CHECK_MSG(ctx, step > 0, InvalidArgument, out,
                      "slice_copy.Tensor_out: step must be positive, got %lld",
                      static_cast<long long>(step));
  TL_KERNEL_CHECK(ctx, same_dtype_contiguous(self, out), InvalidArgument, out);

  // Resize
  const StridedView view = python_slice_view(self, d, start, end, step);
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(view.sizes, view.rank)) == Error::Ok,
                  InvalidArgument, out);

  // Copy
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "slice_copy.Tensor_out", W, [&] {
    strided_copy(static_cast<const W*>(self.data()), static_cast<W*>(out.data()), view);
  });
  return out;
}

}  // namespace tailor::native
