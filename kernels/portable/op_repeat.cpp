#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "kernels/portable/util/strided_copy.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// repeat.out(Tensor self, SymInt[] repeats, *, Tensor(a!) out) -> Tensor(a!)
// self tiled repeats[d] times along each dim d; extra leading repeats add dims. A copy of
// a view: each repeated dim d reads as (repeats[d] with stride 0, size[d] with its stride).
Tensor& repeat_out(KernelContext& ctx, const Tensor& self, IntArrayRef repeats, Tensor& out) {
  // Validate
  const int64_t rank = static_cast<int64_t>(repeats.size());
  const int64_t lead = rank - self.dim();
  TL_KERNEL_CHECK_MSG(ctx, lead >= 0, InvalidArgument, out,
                      "repeat.out: %lld repeats for a %lld-d input; give one per dim at least",
                      static_cast<long long>(rank), static_cast<long long>(self.dim()));
  int64_t tiled = 0;
  for (int64_t d = 0; d < rank; ++d) {
    TL_KERNEL_CHECK_MSG(ctx, repeats[d] >= 0, InvalidArgument, out,
                        "repeat.out: repeat %lld is negative", static_cast<long long>(d));
    tiled += repeats[d] != 1 ? 1 : 0;
  }
  TL_KERNEL_CHECK_MSG(ctx, rank + tiled <= int64_t(kMaxDims), InvalidArgument, out,
                      "repeat.out: %lld dims with %lld of them repeated exceed %zu",
                      static_cast<long long>(rank), static_cast<long long>(tiled), kMaxDims);
  TL_KERNEL_CHECK(ctx, same_dtype_contiguous(self, out), InvalidArgument, out);

  const StridedView in = contiguous_view(self);
  StridedView view;
  int64_t out_sizes[kMaxDims];
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t size = d < lead ? 1 : in.sizes[d - lead];
    const int64_t stride = d < lead ? 0 : in.strides[d - lead];
    if (repeats[d] != 1) {
      view.sizes[view.rank] = repeats[d];
      view.strides[view.rank++] = 0;
    }
    view.sizes[view.rank] = size;
    view.strides[view.rank++] = stride;
    out_sizes[d] = repeats[d] * size;
  }

  // Resize
  TL_KERNEL_CHECK_MSG(ctx, resize_tensor(out, IntArrayRef(out_sizes, rank)) == Error::Ok,
                      InvalidArgument, out, "repeat.out: out cannot take the repeated size");

  // Copy
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "repeat.out", W, [&] {
    strided_copy(static_cast<const W*>(self.data()), static_cast<W*>(out.data()), view);
  });
  return out;
}

}  // namespace tailor::native
