#include "kernels/optimized/util/vec_parallel.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {
namespace {

// min(max(x, lo), hi) of n contiguous floats as lane-wise selects (ReLU6 is hardtanh(0, 6):
// MobileNet runs one after most convolutions); the ragged end through one padded vector.
// "v < lo" and "v > hi" are false for NaN, which passes through, as in torch; lo > hi
// gives hi.
struct HardtanhSpan {
  template <int W>
  TL_VEC_INLINE static void clamp(VecF<W>& v, const VecF<W>& lo, const VecF<W>& hi) {
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
  }

  template <int W>
  TL_VEC_INLINE static void run(const float* in, float* out, int64_t n, float low, float high) {
    const VecF<W> lo = low - VecF<W>{}, hi = high - VecF<W>{};  // x - 0 keeps a -0.0 bound
    VecF<W> v;
    int64_t i = 0;
    for (; i + W <= n; i += W) {
      vec_load<W>(in + i, v);
      clamp<W>(v, lo, hi);
      vec_store<W>(out + i, v);
    }
    if (i < n) {
      vec_load_partial<W>(in + i, n - i, 0.0f, v);
      clamp<W>(v, lo, hi);
      vec_store_partial<W>(out + i, n - i, v);
    }
  }
};

}  // namespace

// hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out)
// Float only (the other dtypes go to portable); any dim order, the same for self and out.
Tensor& hardtanh_out(KernelContext& ctx, const Tensor& self, const Scalar& min_val,
                     const Scalar& max_val, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, resize_like(out, self) == Error::Ok, InvalidArgument, out);
  TL_KERNEL_CHECK(ctx,
                  same_dtype_and_dim_order(self, out) && self.dtype() == ScalarType::Float,
                  InvalidArgument, out);

  // Compute: a NaN bound makes every output NaN, as portable's NaN-propagating min/max do.
  const float low = min_val.to<float>(), high = max_val.to<float>();
  const int64_t n = static_cast<int64_t>(self.numel());
  float* y = out.mutable_data<float>();
  if (low != low || high != high) {
    for (int64_t i = 0; i < n; ++i) y[i] = low != low ? low : high;
    return out;
  }
  vec_parallel_span<HardtanhSpan>(ctx, n, kVecCostSimple, self.const_data<float>(), y, low,
                                  high);
  return out;
}

}  // namespace tailor::optimized::native
