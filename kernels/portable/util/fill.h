// Filling a tensor with one Scalar value (full, full_like, scalar_tensor).
#pragma once

#include "kernels/portable/util/acc_type.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// Writes `value`, converted to T like torch (through T's compute type), to every element.
template <typename T>
void fill_with(Tensor& out, const Scalar& value) {
  const T v = static_cast<T>(value.to<acc_t<T>>());
  T* dst = out.mutable_data<T>();
  const size_t numel = out.numel();
  for (size_t i = 0; i < numel; ++i) {
    dst[i] = v;
  }
}

}  // namespace tailor::native
