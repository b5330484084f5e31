#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out) -> Tensor(a!)
// out.size(i) = self.size(dims[i]); elements are copied, never aliased.
Tensor& permute_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef dims,
                         Tensor& out) {
  // Validate: dims must be a permutation of [0, rank).
  const int64_t rank = self.dim();
  TL_KERNEL_CHECK_MSG(ctx, static_cast<int64_t>(dims.size()) == rank && rank <= int64_t(kMaxDims),
                      InvalidArgument, out, "permute_copy.out: dims has the wrong length");
  int64_t perm[kMaxDims];
  bool seen[kMaxDims] = {};
  for (int64_t i = 0; i < rank; ++i) {
    TL_KERNEL_CHECK_MSG(ctx, normalize_dim(dims[i], rank, &perm[i]) && !seen[perm[i]],
                        InvalidArgument, out, "permute_copy.out: dims is not a permutation");
    seen[perm[i]] = true;
  }
  TL_KERNEL_CHECK(ctx,
                  same_dtype(self, out) && is_default_dim_order(self) &&
                      is_default_dim_order(out),
                  InvalidArgument, out);

  // Resize
  int64_t out_sizes[kMaxDims];
  for (int64_t i = 0; i < rank; ++i) {
    out_sizes[i] = self.size(perm[i]);
  }
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(out_sizes, rank)) == Error::Ok,
                  InvalidArgument, out);

  // Compute: walk `out` in order, stepping through `self` with permuted strides.
  int64_t self_sizes[kMaxDims];
  int64_t self_strides[kMaxDims];
  for (int64_t d = 0; d < rank; ++d) {
    self_sizes[d] = self.size(d);
  }
  contiguous_strides(IntArrayRef(self_sizes, rank), self_strides);
  const size_t elem = self.element_size();
  const auto* src = static_cast<const uint8_t*>(self.data());
  auto* dst = static_cast<uint8_t*>(out.data());
  int64_t counter[kMaxDims] = {};
  int64_t offset = 0;  // in elements, into self
  const size_t numel = out.numel();
  for (size_t i = 0; i < numel; ++i) {
    __builtin_memcpy(dst + i * elem, src + offset * elem, elem);
    for (int64_t d = rank - 1; d >= 0; --d) {
      offset += self_strides[perm[d]];
      if (++counter[d] < out_sizes[d]) {
        break;
      }
      offset -= self_strides[perm[d]] * out_sizes[d];
      counter[d] = 0;
    }
  }
  return out;
}

}  // namespace tailor::native
