#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "kernels/portable/util/strided_copy.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// expand_copy.out(Tensor self, SymInt[] size, *, bool implicit=False, Tensor(a!) out)
//     -> Tensor(a!)
// Repeats dims of size 1 (and adds leading dims) to reach `size`; -1 keeps a dim.
Tensor& expand_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef size,
                        bool implicit, Tensor& out) {
  // Validate: self's dims align with the trailing entries of `size`.
  const int64_t rank = static_cast<int64_t>(size.size());
  const int64_t lead = rank - self.dim();
  TL_KERNEL_CHECK_MSG(ctx, lead >= 0 && rank <= int64_t(kMaxDims), InvalidArgument, out,
                      "expand_copy.out: size has %lld entries, fewer than the input's %lld "
                      "dims", static_cast<long long>(rank), static_cast<long long>(self.dim()));
  const StridedView in = contiguous_view(self);
  StridedView view;
  view.rank = rank;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t want = size[i];
    if (i < lead) {
      TL_KERNEL_CHECK_MSG(ctx, want >= 0, InvalidArgument, out,
                          "expand_copy.out: new leading dim %lld has size %lld; -1 is only "
                          "allowed for existing dims",
                          static_cast<long long>(i), static_cast<long long>(want));
      view.sizes[i] = want;
      view.strides[i] = 0;
      continue;
    }
    const int64_t have = in.sizes[i - lead];
    TL_KERNEL_CHECK_MSG(ctx, want == -1 || want == have || (have == 1 && want >= 0),
                        InvalidArgument, out,
                        "expand_copy.out: dim %lld of size %lld cannot expand to %lld",
                        static_cast<long long>(i), static_cast<long long>(have),
                        static_cast<long long>(want));
    view.sizes[i] = want == -1 ? have : want;
    view.strides[i] = view.sizes[i] == have ? in.strides[i - lead] : 0;
  }
  TL_KERNEL_CHECK(ctx, same_dtype_contiguous(self, out), InvalidArgument, out);

  // Resize
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(view.sizes, rank)) == Error::Ok,
                  InvalidArgument, out);

  // Copy: stride 0 repeats an element.
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "expand_copy.out", W, [&] {
    strided_copy(static_cast<const W*>(self.data()), static_cast<W*>(out.data()), view);
  });
  return out;
}

}  // namespace tailor::native
