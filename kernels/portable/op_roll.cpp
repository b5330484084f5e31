#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native::roll_detail {

// Output index o of a dim of `size` reads input index (o - shift) mod size; the shift
// brought into [0, size).
inline int64_t wrap_shift(int64_t shift, int64_t size) {
  if (size == 0) {
    return 0;
  }
  const int64_t s = shift % size;
  return s < 0 ? s + size : s;
}

// Rolls contiguous `src` (sizes, rank >= 1) by shift[d] along each dim d into `dst`: each
// output row (the last dim) is two copies of input row pieces.
template <typename W>
void roll_copy(const W* src, W* dst, const int64_t* sizes, const int64_t* shift,
               int64_t rank) {
  const int64_t last = rank - 1;
  const int64_t width = sizes[last];
  const int64_t s = shift[last];
  int64_t strides[kMaxDims];
  contiguous_strides(IntArrayRef(sizes, static_cast<size_t>(rank)), strides);
  int64_t rows = 1;
  for (int64_t d = 0; d < last; ++d) {
    rows *= sizes[d];
  }
  int64_t counter[kMaxDims] = {};  // the output row's coordinates in dims [0, last)
  for (int64_t r = 0; r < rows; ++r, dst += width) {
    int64_t offset = 0;
    for (int64_t d = 0; d < last; ++d) {
      const int64_t i = counter[d] - shift[d];
      offset += (i < 0 ? i + sizes[d] : i) * strides[d];
    }
    // Output columns [0, s) read the input row's last s entries, the rest its first ones.
    __builtin_memcpy(dst, src + offset + width - s, static_cast<size_t>(s) * sizeof(W));
    __builtin_memcpy(dst + s, src + offset, static_cast<size_t>(width - s) * sizeof(W));
    for (int64_t d = last - 1; d >= 0; --d) {
      if (++counter[d] < sizes[d]) {
        break;
      }
      counter[d] = 0;
    }
  }
}

}  // namespace tailor::native::roll_detail

namespace tailor::native {

// roll.out(Tensor self, SymInt[1] shifts, int[1] dims=[], *, Tensor(a!) out) -> Tensor(a!)
// Element i of dim dims[k] moves to (i + shifts[k]) mod size; without dims, the
// flattened tensor rolls by shifts[0] and keeps its shape.
Tensor& roll_out(KernelContext& ctx, const Tensor& self, IntArrayRef shifts, IntArrayRef dims,
                 Tensor& out) {
  using roll_detail::wrap_shift;
  // Validate
  const int64_t rank = self.dim();
  TL_KERNEL_CHECK_MSG(ctx,
                      shifts.size() == dims.size() || (dims.size() == 0 && shifts.size() == 1),
                      InvalidArgument, out,
                      "roll.out: %zu shifts for %zu dims; give one shift per dim, or one "
                      "shift and no dims", shifts.size(), dims.size());
  TL_KERNEL_CHECK(ctx,
                  same_dtype(self, out) && is_default_dim_order(self) &&
                      is_default_dim_order(out) && rank <= int64_t(kMaxDims),
                  InvalidArgument, out);
  int64_t sizes[kMaxDims];
  int64_t shift[kMaxDims] = {};
  int64_t view_rank = rank;
  if (dims.size() == 0) {  // the flattened tensor
    view_rank = 1;
    sizes[0] = static_cast<int64_t>(self.numel());
    shift[0] = wrap_shift(shifts[0], sizes[0]);
  } else {
    for (int64_t d = 0; d < rank; ++d) {
      sizes[d] = self.size(d);
    }
    for (size_t k = 0; k < dims.size(); ++k) {
      int64_t d = 0;
      TL_KERNEL_CHECK_MSG(ctx, rank > 0 && normalize_dim(dims[k], rank, &d), InvalidArgument,
                          out, "roll.out: dim %lld out of range for a %lld-d input",
                          static_cast<long long>(dims[k]), static_cast<long long>(rank));
      // A dim listed twice rolls by the sum, as torch's repeated rolls do.
      shift[d] = wrap_shift(shift[d] + wrap_shift(shifts[k], sizes[d]), sizes[d]);
    }
  }

  // Resize
  TL_KERNEL_CHECK(ctx, resize_like(out, self) == Error::Ok, InvalidArgument, out);

  // Copy
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "roll.out", W, [&] {
    if (out.numel() > 0) {
      roll_detail::roll_copy(static_cast<const W*>(self.data()), static_cast<W*>(out.data()),
                             sizes, shift, view_rank);
    }
  });
  return out;
}

}  // namespace tailor::native
