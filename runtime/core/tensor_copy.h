// Copying a tensor's elements out in C (row-major) order, whatever its dim order.
#pragma once

#include "runtime/core/tensor.h"

namespace tailor {

/// Writes t.nbytes() bytes to `out`: the elements in C order of t.sizes(), following
/// its strides (a plain copy when it is contiguous). `out` must not overlap the data.
void copy_to_c_order(const Tensor& t, void* out);

}  // namespace tailor
