#include "kernels/portable/util/reduce.h"
#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *,
//             Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)
// The k largest (or smallest) elements along `dim` and their indices (Long), best first.
// NaN counts as larger than every number, as in torch. Equal elements come in index
// order (torch leaves their order open); `sorted=False` gets the same sorted result,
// which is one of the orders it allows.
void topk_values(KernelContext& ctx, const Tensor& self, int64_t k, int64_t dim, bool largest,
                 bool sorted, Tensor& values, Tensor& indices) {
  (void)sorted;
  // Validate
  int64_t d = 0;
  TL_KERNEL_CHECK_MSG(ctx, normalize_dim(dim, self.dim(), &d), InvalidArgument, ,
                      "topk.values: dim %lld out of range for a %lld-d input",
                      static_cast<long long>(dim), static_cast<long long>(self.dim()));
  const int64_t n = self.dim() > 0 ? self.size(d) : 1;
  TL_KERNEL_CHECK_MSG(ctx, k >= 0 && k <= n, InvalidArgument, ,
                      "topk.values: k %lld out of range for a dim of size %lld",
                      static_cast<long long>(k), static_cast<long long>(n));
  TL_KERNEL_CHECK_MSG(ctx, same_dtype(self, values) && indices.dtype() == ScalarType::Long,
                      InvalidArgument, ,
                      "topk.values: values must have self's dtype %s and indices Long",
                      scalar_type_name(self.dtype()));
  TL_KERNEL_CHECK(ctx,
                  is_default_dim_order(self) && is_default_dim_order(values) &&
                      is_default_dim_order(indices) && self.dim() <= int64_t(kMaxDims),
                  InvalidArgument, );

  // Resize: self's shape with k along dim.
  int64_t sizes[kMaxDims];
  for (int64_t i = 0; i < self.dim(); ++i) {
    sizes[i] = i == d ? k : self.size(i);
  }
  const IntArrayRef out_sizes(sizes, static_cast<size_t>(self.dim()));
  TL_KERNEL_CHECK(ctx,
                  resize_tensor(values, out_sizes) == Error::Ok &&
                      resize_tensor(indices, out_sizes) == Error::Ok,
                  InvalidArgument, );

  // Compute: per row (outer x inner positions), insert each element into the sorted
  // top-k kept in the outputs themselves; O(n k), no scratch memory.
  int64_t outer = 1;
  int64_t inner = 1;
  for (int64_t i = 0; i < self.dim(); ++i) {
    if (i < d) {
      outer *= self.size(i);
    } else if (i > d) {
      inner *= self.size(i);
    }
  }
  TL_SWITCH_REALHBF16_TYPES(self.dtype(), ctx, "topk.values", T, [&] {
    const T* src = self.const_data<T>();
    T* top = values.mutable_data<T>();
    int64_t* at = indices.mutable_data<int64_t>();
    // torch's orders: NaN is the largest value, for both directions.
    const auto better = [largest](T v, T other) {
      return largest ? (is_nan_value(v) && !is_nan_value(other)) || v > other
                     : (!is_nan_value(v) && is_nan_value(other)) || v < other;
    };
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < inner; ++j) {
        const T* row = src + o * n * inner + j;
        T* row_top = top + o * k * inner + j;
        int64_t* row_at = at + o * k * inner + j;
        int64_t kept = 0;
        for (int64_t i = 0; i < n; ++i) {
          const T v = row[i * inner];
          // Where v goes: after every kept element it does not beat (ties stay in order).
          int64_t slot = kept;
          while (slot > 0 && better(v, row_top[(slot - 1) * inner])) {
            --slot;
          }
          if (slot >= k) {
            continue;
          }
          const int64_t last = kept < k ? kept : k - 1;
          for (int64_t s = last; s > slot; --s) {
            row_top[s * inner] = row_top[(s - 1) * inner];
            row_at[s * inner] = row_at[(s - 1) * inner];
          }
          row_top[slot * inner] = v;
          row_at[slot * inner] = i;
          kept = kept < k ? kept + 1 : k;
        }
      }
    }
  });
}

}  // namespace tailor::native
