#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "kernels/portable/util/strided_copy.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// split_copy.Tensor_out(Tensor self, SymInt split_size, int dim=0, *, Tensor(a!)[] out)
//     -> ()
// Pieces of split_size entries of dim `dim`, the last one shorter if it does not divide;
// an empty dim gives one empty piece.
void split_copy_tensor_out(KernelContext& ctx, const Tensor& self, int64_t split_size,
                           int64_t dim, TensorList out) {
  // Validate
  int64_t d = 0;
  TL_KERNEL_CHECK_MSG(ctx, self.dim() > 0 && normalize_dim(dim, self.dim(), &d),
                      InvalidArgument, ,
                      "split_copy.Tensor_out: dim %lld out of range for a %lld-d input",
                      static_cast<long long>(dim), static_cast<long long>(self.dim()));
  const int64_t size = self.size(d);
  TL_KERNEL_CHECK_MSG(ctx, split_size > 0 || (split_size == 0 && size == 0), InvalidArgument,
                      , "split_copy.Tensor_out: split_size %lld cannot split a dim of %lld",
                      static_cast<long long>(split_size), static_cast<long long>(size));
  const int64_t pieces = size == 0 ? 1 : (size + split_size - 1) / split_size;
  TL_KERNEL_CHECK_MSG(ctx, static_cast<int64_t>(out.size()) == pieces, InvalidArgument, ,
                      "split_copy.Tensor_out: %lld pieces but %zu outputs",
                      static_cast<long long>(pieces), out.size());
  TL_KERNEL_CHECK(ctx, is_default_dim_order(self), InvalidArgument, );
  for (size_t i = 0; i < out.size(); ++i) {
    TL_KERNEL_CHECK(ctx, same_dtype(self, *out[i]) && is_default_dim_order(*out[i]),
                    InvalidArgument, );
  }

  // Resize and copy each piece.
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "split_copy.Tensor_out", W, [&] {
    for (int64_t i = 0; i < pieces; ++i) {
      const int64_t start = i * split_size;
      const int64_t length = size - start < split_size ? size - start : split_size;
      const StridedView view = slice_view(self, d, start, length, 1);
      if (resize_tensor(*out[i], IntArrayRef(view.sizes, view.rank)) != Error::Ok) {
        TL_LOG(Error, "split_copy.Tensor_out: output %lld cannot hold its piece",
               static_cast<long long>(i));
        ctx.fail(Error::InvalidArgument);
        return;
      }
      strided_copy(static_cast<const W*>(self.data()), static_cast<W*>(out[i]->data()), view);
    }
  });
}

}  // namespace tailor::native
