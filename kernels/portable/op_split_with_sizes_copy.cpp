#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "kernels/portable/util/strided_copy.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// split_with_sizes_copy.out(Tensor self, SymInt[] split_sizes, int dim=0, *,
//                           Tensor(a!)[] out) -> ()
// out[i] gets the next split_sizes[i] entries of dim `dim`; the sizes must add up to it.
void split_with_sizes_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef split_sizes,
                               int64_t dim, TensorList out) {
  // Validate
  int64_t d = 0;
  TL_KERNEL_CHECK_MSG(ctx, self.dim() > 0 && normalize_dim(dim, self.dim(), &d),
                      InvalidArgument, ,
                      "split_with_sizes_copy.out: dim %lld out of range for a %lld-d input",
                      static_cast<long long>(dim), static_cast<long long>(self.dim()));
  TL_KERNEL_CHECK_MSG(ctx, split_sizes.size() == out.size(), InvalidArgument, ,
                      "split_with_sizes_copy.out: %zu sizes but %zu outputs",
                      split_sizes.size(), out.size());
  int64_t total = 0;
  for (size_t i = 0; i < split_sizes.size(); ++i) {
    TL_KERNEL_CHECK_MSG(ctx, split_sizes[i] >= 0, InvalidArgument, ,
                        "split_with_sizes_copy.out: split size %zu is negative", i);
    TL_KERNEL_CHECK_MSG(ctx, !__builtin_add_overflow(total, split_sizes[i], &total),
                        InvalidArgument, , "split_with_sizes_copy.out: the sizes' sum overflows");
  }
  TL_KERNEL_CHECK_MSG(ctx, total == self.size(d), InvalidArgument, ,
                      "split_with_sizes_copy.out: sizes add up to %lld, dim %lld has %lld",
                      static_cast<long long>(total), static_cast<long long>(d),
                      static_cast<long long>(self.size(d)));
  TL_KERNEL_CHECK(ctx, is_default_dim_order(self), InvalidArgument, );
  for (size_t i = 0; i < out.size(); ++i) {
    TL_KERNEL_CHECK(ctx, same_dtype(self, *out[i]) && is_default_dim_order(*out[i]),
                    InvalidArgument, );
  }

  // Resize and copy each piece.
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "split_with_sizes_copy.out", W, [&] {
    int64_t start = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      const StridedView view = slice_view(self, d, start, split_sizes[i], 1);
      start += split_sizes[i];
      if (resize_tensor(*out[i], IntArrayRef(view.sizes, view.rank)) != Error::Ok) {
        TL_LOG(Error, "split_with_sizes_copy.out: output %zu cannot hold its piece", i);
        ctx.fail(Error::InvalidArgument);
        return;
      }
      strided_copy(static_cast<const W*>(self.data()), static_cast<W*>(out[i]->data()), view);
    }
  });
}

}  // namespace tailor::native
