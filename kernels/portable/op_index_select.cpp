#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out) -> Tensor(a!)
// Picks the entries `index` (0-d or 1-d, Int or Long, each in [0, size)) of dim `dim`.
Tensor& index_select_out(KernelContext& ctx, const Tensor& self, int64_t dim,
                         const Tensor& index, Tensor& out) {
  // Validate
  int64_t d = 0;
  TL_KERNEL_CHECK_MSG(ctx, normalize_dim(dim, self.dim(), &d), InvalidArgument, out,
                      "index_select.out: dim %lld out of range for a %lld-d input",
                      static_cast<long long>(dim), static_cast<long long>(self.dim()));
  TL_KERNEL_CHECK_MSG(ctx, is_index_dtype(index.dtype()) && index.dim() <= 1, InvalidArgument,
                      out, "index_select.out: index must be a 0-d or 1-d Int or Long tensor");
  TL_KERNEL_CHECK_MSG(ctx, self.dim() > 0 || index.numel() == 1, InvalidArgument, out,
                      "index_select.out: a 0-d input takes exactly one index");
  TL_KERNEL_CHECK(ctx, same_dtype_contiguous(self, out), InvalidArgument, out);
  TL_KERNEL_CHECK_DTYPE_SELECTED(ctx, "index_select.out", self.dtype(), out);
  TL_KERNEL_CHECK_DTYPE_SELECTED(ctx, "index_select.out", index.dtype(), out);

  // Resize
  int64_t sizes[kMaxDims];
  int64_t outer = 1;
  int64_t inner = 1;
  for (int64_t i = 0; i < self.dim(); ++i) {
    sizes[i] = i == d ? static_cast<int64_t>(index.numel()) : self.size(i);
    outer *= i < d ? self.size(i) : 1;
    inner *= i > d ? self.size(i) : 1;
  }
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(sizes, self.dim())) == Error::Ok,
                  InvalidArgument, out);

  // Copy: for each outer position, one inner block per index.
  const int64_t size = self.dim() > 0 ? self.size(d) : 1;
  const size_t block = static_cast<size_t>(inner) * self.element_size();
  const size_t count = index.numel();
  for (size_t j = 0; j < count; ++j) {
    const int64_t at = index_value(index, j);
    TL_KERNEL_CHECK_MSG(ctx, at >= 0 && at < size, InvalidArgument, out,
                        "index_select.out: index %lld out of range for size %lld",
                        static_cast<long long>(at), static_cast<long long>(size));
  }
  const auto* src = static_cast<const uint8_t*>(self.data());
  auto* dst = static_cast<uint8_t*>(out.data());
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t j = 0; j < count; ++j) {
      const int64_t at = index_value(index, j);
      __builtin_memcpy(dst, src + (o * size + at) * block, block);
      dst += block;
    }
  }
  return out;
}

}  // namespace tailor::native
