#include "kernels/optimized/util/vec_parallel.h"
#include "kernels/portable/util/reduce.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {
namespace {

// out[o] = the mean of the `count` floats from in + o * count, o < n: each row by vectors
// (a squeeze-and-excitation block's mean over H x W; an RMS norm's over its row).
struct MeanRows {
  template <int W>
  TL_VEC_INLINE static void run(const float* in, float* out, int64_t n, int64_t count) {
    for (int64_t o = 0; o < n; ++o) {
      out[o] = vec_row_sum<W>(in + o * count, count) / static_cast<float>(count);
    }
  }
};

// Float in and out: the reduced dims after the kept ones by rows of vectors over the
// threads, any others by portable's walk (its order of additions).
Tensor& mean_float(KernelContext& ctx, const Tensor& self, IntArrayRef dims, bool keepdim,
                   Optional<ScalarType> dtype, const char* op, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx, self.dtype() == ScalarType::Float && out.dtype() == ScalarType::Float &&
                               dtype.value_or(ScalarType::Float) == ScalarType::Float,
                      InvalidArgument, out, "%s: Float in and out only (the other dtypes go to "
                      "portable)", op);
  tailor::native::ReducePlan plan;
  if (!tailor::native::plan_reduction(ctx, self, dims.data(), dims.size(), dims.empty(), keepdim,
                                      op, out, &plan)) {
    return out;
  }

  // Compute
  const float* src = self.const_data<float>();
  float* dst = out.mutable_data<float>();
  const int64_t count = plan.reduce_numel();
  if (count == 0) {
    for (int64_t o = 0; o < plan.out_numel(); ++o) dst[o] = math::quiet_nan<float>();
  } else if (plan.trailing()) {
    ctx.parallel_range(plan.out_numel(), count, [&](int64_t begin, int64_t end, KernelScratch&) {
      vec_run<MeanRows>(src + begin * count, dst + begin, end - begin, count);
    });
  } else {
    for (int64_t o = 0; o < plan.out_numel(); ++o) {
      float acc = 0.0f;
      plan.visit(plan.base_offset(o), [&](int64_t offset, int64_t) { acc += src[offset]; });
      dst[o] = acc / static_cast<float>(count);
    }
  }
  return out;
}

}  // namespace

// mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
//          Tensor(a!) out) -> Tensor(a!)
Tensor& mean_out(KernelContext& ctx, const Tensor& self, Optional<IntArrayRef> dim,
                 bool keepdim, Optional<ScalarType> dtype, Tensor& out) {
  return mean_float(ctx, self, dim.value_or(IntArrayRef()), keepdim, dtype, "mean.out", out);
}

// mean.dtype_out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)
Tensor& mean_dtype_out(KernelContext& ctx, const Tensor& self, Optional<ScalarType> dtype,
                       Tensor& out) {
  return mean_float(ctx, self, IntArrayRef(), false, dtype, "mean.dtype_out", out);
}

}  // namespace tailor::optimized::native
