#include "kernels/optimized/util/vec_parallel.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {
namespace {

// max(x, 0) of n contiguous floats as a lane-wise select, so no branch depends on the
// sign of the data (portable's scalar loop mispredicts on half of a random input); the
// ragged end goes through one padded vector.
struct ReluSpan {
  template <int W>
  TL_VEC_INLINE static void run(const float* in, float* out, int64_t n) {
    VecF<W> v;
    const VecF<W> zero = {};
    int64_t i = 0;
    for (; i + W <= n; i += W) {
      vec_load<W>(in + i, v);
      v = v < zero ? zero : v;  // "< 0", not "> 0": NaN passes through, as in torch
      vec_store<W>(out + i, v);
    }
    if (i < n) {
      vec_load_partial<W>(in + i, n - i, 0.0f, v);
      v = v < zero ? zero : v;
      vec_store_partial<W>(out + i, n - i, v);
    }
  }
};

}  // namespace

// relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// Float only (the other dtypes go to portable); any dim order, the same for self and out.
Tensor& relu_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, resize_like(out, self) == Error::Ok, InvalidArgument, out);
  TL_KERNEL_CHECK(ctx,
                  same_dtype_and_dim_order(self, out) && self.dtype() == ScalarType::Float,
                  InvalidArgument, out);

  // Compute
  vec_parallel_span<ReluSpan>(ctx, static_cast<int64_t>(self.numel()), kVecCostSimple,
                              self.const_data<float>(), out.mutable_data<float>());
  return out;
}

}  // namespace tailor::optimized::native
