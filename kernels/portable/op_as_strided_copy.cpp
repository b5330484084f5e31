#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "kernels/portable/util/strided_copy.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// as_strided_copy.out(Tensor self, SymInt[] size, SymInt[] stride,
//                     SymInt? storage_offset=None, *, Tensor(a!) out) -> Tensor(a!)
// Element c of out reads self's (row-major) element storage_offset + sum(c[d] * stride[d]).
// The program's tensors own their memory, so the view must stay inside self.
Tensor& as_strided_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef size,
                            IntArrayRef stride, Optional<int64_t> storage_offset,
                            Tensor& out) {
  // Validate
  const int64_t rank = static_cast<int64_t>(size.size());
  TL_KERNEL_CHECK_MSG(ctx, size.size() == stride.size() && rank <= int64_t(kMaxDims),
                      InvalidArgument, out,
                      "as_strided_copy.out: %zu sizes but %zu strides (at most %zu each)",
                      size.size(), stride.size(), kMaxDims);
  StridedView view;
  view.rank = rank;
  view.offset = storage_offset.has_value() ? storage_offset.value() : 0;
  bool empty = false;
  int64_t last = view.offset;  // the farthest element the view reads
  for (int64_t d = 0; d < rank; ++d) {
    TL_KERNEL_CHECK_MSG(ctx, size[d] >= 0 && stride[d] >= 0, InvalidArgument, out,
                        "as_strided_copy.out: dim %lld has size %lld and stride %lld; both "
                        "must be non-negative", static_cast<long long>(d),
                        static_cast<long long>(size[d]), static_cast<long long>(stride[d]));
    view.sizes[d] = size[d];
    view.strides[d] = stride[d];
    empty = empty || size[d] == 0;
    int64_t reach = 0;
    TL_KERNEL_CHECK_MSG(ctx,
                        size[d] == 0 || (!__builtin_mul_overflow(size[d] - 1, stride[d], &reach) &&
                                         !__builtin_add_overflow(last, reach, &last)),
                        InvalidArgument, out, "as_strided_copy.out: the view overflows");
  }
  TL_KERNEL_CHECK_MSG(ctx, view.offset >= 0 && (empty || last < int64_t(self.numel())),
                      InvalidArgument, out,
                      "as_strided_copy.out: the view reads element %lld of an input of %zu",
                      static_cast<long long>(last), self.numel());
  TL_KERNEL_CHECK(ctx, same_dtype_contiguous(self, out), InvalidArgument, out);

  // Resize
  TL_KERNEL_CHECK(ctx, resize_tensor(out, size) == Error::Ok, InvalidArgument, out);

  // Copy
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "as_strided_copy.out", W, [&] {
    strided_copy(static_cast<const W*>(self.data()), static_cast<W*>(out.data()), view);
  });
  return out;
}

}  // namespace tailor::native
