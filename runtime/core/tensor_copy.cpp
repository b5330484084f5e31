#include "runtime/core/tensor_copy.h"

namespace tailor {

// __builtin_memcpy: the core compiles freestanding (runtime/core/string_util.h).
void copy_to_c_order(const Tensor& t, void* out) {
  const size_t elem = t.element_size();
  const size_t dim = static_cast<size_t>(t.dim());
  const uint8_t* base = static_cast<const uint8_t*>(t.data());
  uint8_t* dst = static_cast<uint8_t*>(out);
  if (t.nbytes() == 0) return;
  if (t.is_contiguous()) {
    __builtin_memcpy(dst, base, t.nbytes());
    return;
  }
  int64_t index[kMaxTensorDim] = {};
  for (size_t n = 0; n < t.numel(); ++n) {
    int64_t offset = 0;
    for (size_t d = 0; d < dim; ++d) offset += index[d] * t.strides()[d];
    __builtin_memcpy(dst + n * elem, base + offset * static_cast<int64_t>(elem), elem);
    for (size_t d = dim; d > 0; --d) {  // advance the C-order index
      if (++index[d - 1] < t.size(static_cast<int64_t>(d - 1))) break;
      index[d - 1] = 0;
    }
  }
}

}  // namespace tailor
