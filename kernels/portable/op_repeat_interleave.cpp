#include "kernels/portable/util/element_word.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// repeat_interleave.Tensor_out(Tensor repeats, *, SymInt? output_size=None,
//                              Tensor(a!) out) -> Tensor(a!)
// Index i written repeats[i] times, in order: [2, 0, 1] gives [0, 0, 2]. The output's
// length is the sum of repeats (output_size when given must equal it), set within the
// planned bound (x.repeat_interleave(r, dim) exports as this, then index_select).
Tensor& repeat_interleave_tensor_out(KernelContext& ctx, const Tensor& repeats,
                                     Optional<int64_t> output_size, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx,
                      repeats.dim() <= 1 && (repeats.dtype() == ScalarType::Int ||
                                             repeats.dtype() == ScalarType::Long),
                      InvalidArgument, out,
                      "repeat_interleave.Tensor_out: repeats must be a 0-d or 1-d Int or "
                      "Long tensor, got %lld-d %s", static_cast<long long>(repeats.dim()),
                      scalar_type_name(repeats.dtype()));
  TL_KERNEL_CHECK_MSG(ctx, same_dtype(repeats, out), InvalidArgument, out,
                      "repeat_interleave.Tensor_out: out has dtype %s, repeats %s",
                      scalar_type_name(out.dtype()), scalar_type_name(repeats.dtype()));
  TL_KERNEL_CHECK_DTYPE_SELECTED(ctx, "repeat_interleave.Tensor_out", repeats.dtype(), out);
  const size_t n = repeats.numel();
  const bool is_long = repeats.dtype() == ScalarType::Long;
  auto at = [&](size_t i) -> int64_t {
    return is_long ? repeats.const_data<int64_t>()[i] : repeats.const_data<int32_t>()[i];
  };
  int64_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    TL_KERNEL_CHECK_MSG(ctx, at(i) >= 0 && !__builtin_add_overflow(total, at(i), &total),
                        InvalidArgument, out,
                        "repeat_interleave.Tensor_out: repeats[%zu] = %lld; repeats must be "
                        "non-negative", i, static_cast<long long>(at(i)));
  }
  TL_KERNEL_CHECK_MSG(ctx, !output_size.has_value() || output_size.value() == total,
                      InvalidArgument, out,
                      "repeat_interleave.Tensor_out: output_size %lld but the repeats sum to "
                      "%lld", static_cast<long long>(output_size.value_or(total)),
                      static_cast<long long>(total));

  // Resize: the sum is data-dependent; the planned size bounds it.
  const int64_t size[1] = {total};
  TL_KERNEL_CHECK_MSG(ctx, resize_tensor(out, IntArrayRef(size, 1)) == Error::Ok,
                      InvalidArgument, out,
                      "repeat_interleave.Tensor_out: the repeats sum to %lld, more than the "
                      "output's planned size", static_cast<long long>(total));

  // Fill
  int64_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < at(i); ++j, ++k) {
      if (is_long) {
        out.mutable_data<int64_t>()[k] = static_cast<int64_t>(i);
      } else {
        out.mutable_data<int32_t>()[k] = static_cast<int32_t>(i);
      }
    }
  }
  return out;
}

}  // namespace tailor::native
