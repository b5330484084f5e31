#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "kernels/portable/util/strided_copy.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// unbind_copy.int_out(Tensor self, int dim=0, *, Tensor(a!)[] out) -> ()
// One output per entry of dim `dim`: self with that dim selected away.
void unbind_copy_int_out(KernelContext& ctx, const Tensor& self, int64_t dim, TensorList out) {
  // Validate
  const int64_t rank = self.dim();
  int64_t d = 0;
  TL_KERNEL_CHECK_MSG(ctx, rank > 0 && normalize_dim(dim, rank, &d), InvalidArgument, ,
                      "unbind_copy.int_out: dim %lld out of range for a %lld-d input",
                      static_cast<long long>(dim), static_cast<long long>(rank));
  TL_KERNEL_CHECK_MSG(ctx, static_cast<int64_t>(out.size()) == self.size(d), InvalidArgument, ,
                      "unbind_copy.int_out: dim %lld has %lld entries but there are %zu "
                      "outputs", static_cast<long long>(d),
                      static_cast<long long>(self.size(d)), out.size());
  TL_KERNEL_CHECK(ctx, is_default_dim_order(self), InvalidArgument, );
  for (size_t i = 0; i < out.size(); ++i) {
    TL_KERNEL_CHECK(ctx, same_dtype(self, *out[i]) && is_default_dim_order(*out[i]),
                    InvalidArgument, );
  }

  // Resize and copy each entry: the view of one entry with that dim dropped.
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "unbind_copy.int_out", W, [&] {
    for (size_t i = 0; i < out.size(); ++i) {
      StridedView view = slice_view(self, d, static_cast<int64_t>(i), 1, 1);
      for (int64_t k = d; k + 1 < view.rank; ++k) {
        view.sizes[k] = view.sizes[k + 1];
        view.strides[k] = view.strides[k + 1];
      }
      --view.rank;
      if (resize_tensor(*out[i], IntArrayRef(view.sizes, view.rank)) != Error::Ok) {
        TL_LOG(Error, "unbind_copy.int_out: output %zu cannot hold its entry", i);
        ctx.fail(Error::InvalidArgument);
        return;
      }
      strided_copy(static_cast<const W*>(self.data()), static_cast<W*>(out[i]->data()), view);
    }
  });
}

}  // namespace tailor::native
