#include "kernels/portable/util/distance.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// _pdist_forward.out(Tensor self, float p=2., *, Tensor(a!) out) -> Tensor(a!)
// The p-norm distance of every pair of rows i < j of the (N, M) input, in row-major pair
// order: N * (N - 1) / 2 values.
Tensor& _pdist_forward_out(KernelContext& ctx, const Tensor& self, double p, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx, self.dim() == 2, InvalidArgument, out,
                      "_pdist_forward.out: self must be 2-d (N, M), got %lld dims",
                      static_cast<long long>(self.dim()));
  TL_KERNEL_CHECK_MSG(ctx, p >= 0.0, InvalidArgument, out,
                      "_pdist_forward.out: p must be non-negative, got %g", p);
  TL_KERNEL_CHECK(ctx, same_dtype_contiguous(self, out), InvalidArgument, out);

  // Resize
  const int64_t n = self.size(0);
  const int64_t m = self.size(1);
  const int64_t size[1] = {n > 1 ? n * (n - 1) / 2 : 0};
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(size, 1)) == Error::Ok, InvalidArgument,
                  out);

  // Compute
  TL_SWITCH_FLOAT_TYPES(self.dtype(), ctx, "_pdist_forward.out", T, [&] {
    const T* rows = self.const_data<T>();
    T* dst = out.mutable_data<T>();
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = i + 1; j < n; ++j) {
        *dst++ = static_cast<T>(p_distance<acc_t<T>>(rows + i * m, rows + j * m, m, p));
      }
    }
  });
  return out;
}

}  // namespace tailor::native
