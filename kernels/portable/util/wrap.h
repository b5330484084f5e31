// Integer arithmetic that wraps around in two's complement, as torch's does on the CPU
// (add, sub, mul, matrix products, sum, cumsum): 32- and 64-bit integers are computed in
// the unsigned type of that width, where overflow is defined; narrower ones are computed
// in int, where their sums and products cannot overflow, and stored back modulo 2^bits.
#pragma once

#include "kernels/portable/util/acc_type.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

template <typename M>
constexpr bool kWrapsThroughUnsigned =
    is_integral_v<M> && !is_same_v<M, bool> && sizeof(M) >= sizeof(int);
template <typename M>
using wrap_unsigned_t = conditional_t<sizeof(M) == 8, uint64_t, uint32_t>;

// The type T's sums and products accumulate in: acc_t<T>, but unsigned for Int and Long
// (converting back to T keeps the low bits).
template <typename T>
using wrap_acc_t = conditional_t<kWrapsThroughUnsigned<acc_t<T>>, wrap_unsigned_t<acc_t<T>>,
                                 acc_t<T>>;

// x * y in M; on bool a logical and (C++ warns about `*` on bool operands).
template <typename M>
M mul_value(M x, M y) {
  if constexpr (is_same_v<M, bool>) {
    return x && y;
  } else if constexpr (kWrapsThroughUnsigned<M>) {
    using U = wrap_unsigned_t<M>;
    return static_cast<M>(static_cast<U>(x) * static_cast<U>(y));
  } else {
    return static_cast<M>(x * y);
  }
}

// x + y in M, wrapping for integers.
template <typename M>
M add_value(M x, M y) {
  if constexpr (kWrapsThroughUnsigned<M>) {
    using U = wrap_unsigned_t<M>;
    return static_cast<M>(static_cast<U>(x) + static_cast<U>(y));
  } else {
    return static_cast<M>(x + y);
  }
}

// x - y in M, wrapping for integers.
template <typename M>
M sub_value(M x, M y) {
  if constexpr (kWrapsThroughUnsigned<M>) {
    using U = wrap_unsigned_t<M>;
    return static_cast<M>(static_cast<U>(x) - static_cast<U>(y));
  } else {
    return static_cast<M>(x - y);
  }
}

}  // namespace tailor::native
