#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// glu.out(Tensor self, int dim=-1, *, Tensor(a!) out) -> Tensor(a!)
// Splits self in halves a, b along `dim` (of even size) and gives a * sigmoid(b), in one
// pass. Computes in float for 16-bit floats.
Tensor& glu_out(KernelContext& ctx, const Tensor& self, int64_t dim, Tensor& out) {
  // Validate
  const int64_t rank = self.dim();
  int64_t d = 0;
  TL_KERNEL_CHECK_MSG(ctx, rank > 0 && rank <= int64_t(kMaxDims) && normalize_dim(dim, rank, &d),
                      InvalidArgument, out, "glu.out: dim %lld out of range for a %lld-d input",
                      static_cast<long long>(dim), static_cast<long long>(rank));
  TL_KERNEL_CHECK_MSG(ctx, self.size(d) % 2 == 0, InvalidArgument, out,
                      "glu.out: dim %lld has odd size %lld; it must halve",
                      static_cast<long long>(d), static_cast<long long>(self.size(d)));
  TL_KERNEL_CHECK(ctx, same_dtype_contiguous(self, out), InvalidArgument, out);

  // Resize
  int64_t sizes[kMaxDims];
  int64_t outer = 1;
  int64_t inner = 1;
  for (int64_t i = 0; i < rank; ++i) {
    sizes[i] = i == d ? self.size(i) / 2 : self.size(i);
    outer *= i < d ? sizes[i] : 1;
    inner *= i > d ? sizes[i] : 1;
  }
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(sizes, rank)) == Error::Ok,
                  InvalidArgument, out);

  // Compute: each outer slice holds a (half * inner values), then b.
  const int64_t half = sizes[d] * inner;
  TL_SWITCH_FLOAT_TYPES(self.dtype(), ctx, "glu.out", T, [&] {
    using M = acc_t<T>;
    const T* src = self.const_data<T>();
    T* dst = out.mutable_data<T>();
    for (int64_t o = 0; o < outer; ++o, src += 2 * half, dst += half) {
      for (int64_t i = 0; i < half; ++i) {
        const M gate = M(1) / (M(1) + math::exp(-static_cast<M>(src[half + i])));
        dst[i] = static_cast<T>(static_cast<M>(src[i]) * gate);
      }
    }
  });
  return out;
}

}  // namespace tailor::native
