#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {
namespace cumsum_detail {

// The running sum's type, as in torch's CPU cumsum: Float in double, 16-bit floats in
// float, integers in 64 bits, unsigned so that an overflow wraps (as in torch) rather than
// being undefined.
template <typename OUT>
using cumsum_acc_t = conditional_t<is_integral_v<OUT>, uint64_t,
                                   conditional_t<sizeof(OUT) == 2, float, double>>;

}  // namespace cumsum_detail

// cumsum.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)
// Running sums along `dim` (negative counts from the end). The result dtype is `dtype` if
// given, else Long for integer and Bool inputs and self's dtype otherwise; each element is
// converted to it before it is added (cumsum(x, dtype=Int) truncates x first, as in torch).
Tensor& cumsum_out(KernelContext& ctx, const Tensor& self, int64_t dim,
                   Optional<ScalarType> dtype, Tensor& out) {
  // Validate
  const ScalarType want = dtype.has_value()
                              ? dtype.value()
                              : (is_integral_type(self.dtype(), true) ? ScalarType::Long
                                                                      : self.dtype());
  TL_KERNEL_CHECK_MSG(ctx, out.dtype() == want, InvalidArgument, out,
                      "cumsum.out: out has dtype %s, expected %s", scalar_type_name(out.dtype()),
                      scalar_type_name(want));
  TL_KERNEL_CHECK(ctx, is_default_dim_order(self) && is_default_dim_order(out),
                  InvalidArgument, out);
  const int64_t rank = self.dim();
  int64_t d = 0;
  TL_KERNEL_CHECK_MSG(ctx, normalize_dim(dim, rank, &d), InvalidArgument, out,
                      "cumsum.out: dim %lld out of range for a %lld-d tensor",
                      static_cast<long long>(dim), static_cast<long long>(rank));

  // Resize
  TL_KERNEL_CHECK(ctx, resize_like(out, self) == Error::Ok, InvalidArgument, out);

  // Compute: self as [outer, length, inner] around dim (a 0-d tensor is one element);
  // the elements of one running sum lie `inner` apart.
  int64_t outer = 1;
  int64_t length = 1;
  int64_t inner = 1;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t size = self.size(i);
    if (i < d) {
      outer *= size;
    } else if (i == d) {
      length = size;
    } else {
      inner *= size;
    }
  }
  TL_SWITCH_ALL_TYPES(self.dtype(), ctx, "cumsum.out", IN, [&] {
    TL_SWITCH_REALHBF16_TYPES(out.dtype(), ctx, "cumsum.out", OUT, [&] {
      using Acc = cumsum_detail::cumsum_acc_t<OUT>;
      const IN* src = self.const_data<IN>();
      OUT* dst = out.mutable_data<OUT>();
      for (int64_t o = 0; o < outer; ++o) {
        const int64_t base = o * length * inner;
        for (int64_t j = 0; j < inner; ++j) {
          Acc acc = 0;
          for (int64_t k = 0; k < length; ++k) {
            const int64_t at = base + k * inner + j;
            acc += static_cast<Acc>(cast_element<OUT>(element_value(src[at])));
            dst[at] = static_cast<OUT>(acc);
          }
        }
      }
    });
  });
  return out;
}

}  // namespace tailor::native
