#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/distance.h"
#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native::cdist_detail {

// x1 row a and x2 row b through |a|^2 + |b|^2 - 2 a.b, clamped at 0: torch's matrix
// product form of the Euclidean distance, which it takes for p = 2 when compute_mode is 1,
// or is 0 (the default) and either input has more than 25 rows.
template <typename M, typename T>
M euclidean_by_products(const T* a, const T* b, int64_t m) {
  M aa = M(0);
  M bb = M(0);
  M ab = M(0);
  for (int64_t k = 0; k < m; ++k) {
    const M x = static_cast<M>(a[k]);
    const M y = static_cast<M>(b[k]);
    aa += x * x;
    bb += y * y;
    ab += x * y;
  }
  const M d2 = aa + bb - M(2) * ab;
  return math::sqrt(d2 > M(0) ? d2 : M(0));
}

}  // namespace tailor::native::cdist_detail

namespace tailor::native {

// _cdist_forward.out(Tensor x1, Tensor x2, float p, int? compute_mode, *, Tensor(a!) out)
//     -> Tensor(a!)
// The p-norm distance of every row of x1 (*, P, M) to every row of x2 (*, R, M): out is
// (*, P, R), the batch dims broadcast.
Tensor& _cdist_forward_out(KernelContext& ctx, const Tensor& x1, const Tensor& x2, double p,
                           Optional<int64_t> compute_mode, Tensor& out) {
  // Validate
  const int64_t r1 = x1.dim();
  const int64_t r2 = x2.dim();
  TL_KERNEL_CHECK_MSG(ctx,
                      r1 >= 2 && r2 >= 2 && r1 <= int64_t(kMaxDims) && r2 <= int64_t(kMaxDims) &&
                          x1.size(r1 - 1) == x2.size(r2 - 1),
                      InvalidArgument, out,
                      "_cdist_forward.out: x1 and x2 must be (*, P, M) and (*, R, M) with the "
                      "same M");
  TL_KERNEL_CHECK_MSG(ctx, p >= 0.0, InvalidArgument, out,
                      "_cdist_forward.out: p must be non-negative, got %g", p);
  const int64_t mode = compute_mode.value_or(0);
  TL_KERNEL_CHECK_MSG(ctx, mode >= 0 && mode <= 2, InvalidArgument, out,
                      "_cdist_forward.out: compute_mode %lld is not 0, 1 or 2",
                      static_cast<long long>(mode));
  TL_KERNEL_CHECK(ctx,
                  same_dtype(x1, out) && same_dtype(x2, out) && is_default_dim_order(x1) &&
                      is_default_dim_order(x2) && is_default_dim_order(out),
                  InvalidArgument, out);

  // The batch dims, broadcast from the right; x1's and x2's strides over them (0 where
  // broadcast).
  const int64_t batch_rank = (r1 > r2 ? r1 : r2) - 2;
  int64_t sizes[kMaxDims];
  int64_t stride1[kMaxDims];
  int64_t stride2[kMaxDims];
  const int64_t rows1 = x1.size(r1 - 2);
  const int64_t rows2 = x2.size(r2 - 2);
  const int64_t m = x1.size(r1 - 1);
  int64_t s1 = rows1 * m;
  int64_t s2 = rows2 * m;
  for (int64_t i = batch_rank - 1; i >= 0; --i) {
    const int64_t d1 = i - (batch_rank - (r1 - 2));
    const int64_t d2 = i - (batch_rank - (r2 - 2));
    const int64_t n1 = d1 >= 0 ? x1.size(d1) : 1;
    const int64_t n2 = d2 >= 0 ? x2.size(d2) : 1;
    TL_KERNEL_CHECK_MSG(ctx, n1 == n2 || n1 == 1 || n2 == 1, InvalidArgument, out,
                        "_cdist_forward.out: batch dims %lld and %lld do not broadcast",
                        static_cast<long long>(n1), static_cast<long long>(n2));
    sizes[i] = n1 == 1 ? n2 : n1;
    stride1[i] = n1 == 1 ? 0 : s1;
    stride2[i] = n2 == 1 ? 0 : s2;
    s1 *= n1;
    s2 *= n2;
  }
  sizes[batch_rank] = rows1;
  sizes[batch_rank + 1] = rows2;

  // Resize
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(sizes, batch_rank + 2)) == Error::Ok,
                  InvalidArgument, out);
  if (out.numel() == 0) {
    return out;
  }

  // Compute
  const bool by_products = p == 2.0 && (mode == 1 || (mode == 0 && (rows1 > 25 || rows2 > 25)));
  TL_SWITCH_FLOAT_TYPES(out.dtype(), ctx, "_cdist_forward.out", T, [&] {
    using M = acc_t<T>;
    T* dst = out.mutable_data<T>();
    int64_t counter[kMaxDims] = {};
    const int64_t batches = static_cast<int64_t>(out.numel()) / (rows1 * rows2);
    for (int64_t b = 0; b < batches; ++b) {
      int64_t o1 = 0;
      int64_t o2 = 0;
      for (int64_t i = 0; i < batch_rank; ++i) {
        o1 += counter[i] * stride1[i];
        o2 += counter[i] * stride2[i];
      }
      const T* a = x1.const_data<T>() + o1;
      const T* c = x2.const_data<T>() + o2;
      for (int64_t i = 0; i < rows1; ++i) {
        for (int64_t j = 0; j < rows2; ++j) {
          *dst++ = static_cast<T>(
              by_products ? cdist_detail::euclidean_by_products<M>(a + i * m, c + j * m, m)
                          : p_distance<M>(a + i * m, c + j * m, m, p));
        }
      }
      for (int64_t i = batch_rank - 1; i >= 0; --i) {
        if (++counter[i] < sizes[i]) {
          break;
        }
        counter[i] = 0;
      }
    }
  });
  return out;
}

}  // namespace tailor::native
