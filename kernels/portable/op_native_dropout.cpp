#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/random_fill.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// native_dropout.out(Tensor input, float p, bool? train, *, Tensor(a!) out0,
//     Tensor(b!) out1) -> (Tensor(a!), Tensor(b!))
// Training (train true or absent, as in torch): element n is kept (out1[n] true) when the
// n-th uniform of the call's random stream (random_fill.h) is below 1 - p, and out0 =
// input * out1 * (1 / (1 - p)), in that order and in the input's compute type as torch
// does (0 where p is 1). Eval: out0 is the input, out1 all true.
void native_dropout_out(KernelContext& ctx, const Tensor& input, double p, Optional<bool> train,
                        Tensor& out0, Tensor& out1) {
  // Validate and resize
  TL_KERNEL_CHECK_MSG(ctx, p >= 0.0 && p <= 1.0, InvalidArgument, ,
                      "native_dropout.out: dropout probability has to be between 0 and 1, "
                      "but got %g", p);
  TL_KERNEL_CHECK_MSG(ctx,
                      same_dtype(input, out0) && out1.dtype() == ScalarType::Bool &&
                          is_default_dim_order(input) && is_default_dim_order(out0) &&
                          is_default_dim_order(out1),
                      InvalidArgument, ,
                      "native_dropout.out: out0 must have the input's dtype, out1 Bool, all "
                      "contiguous");
  TL_KERNEL_CHECK_MSG(ctx, resize_like(out0, input) == Error::Ok &&
                               resize_like(out1, input) == Error::Ok,
                      InvalidArgument, ,
                      "native_dropout.out: the outs cannot take the input's shape");

  // Compute
  const bool training = !train.has_value() || train.value();
  const int64_t numel = static_cast<int64_t>(input.numel());
  Bool* mask = out1.mutable_data<Bool>();
  const double keep = 1.0 - p;
  const double scale = keep == 0.0 ? 0.0 : 1.0 / keep;
  const uint64_t key = ctx.random_key();
  TL_SWITCH_FLOAT_TYPES(input.dtype(), ctx, "native_dropout.out", T, [&] {
    using Acc = acc_t<T>;
    const T* x = input.const_data<T>();
    T* y = out0.mutable_data<T>();
    const Acc s = static_cast<Acc>(scale);
    for (int64_t n = 0; n < numel; ++n) {
      if (!training) {
        mask[n] = Bool(1);
        y[n] = x[n];
        continue;
      }
      // Uniforms of float's 24 digits compared in double: exact, so p = 0 keeps all.
      const bool kept = random::uniform(key, static_cast<uint64_t>(n), 24) < keep;
      mask[n] = Bool(kept);
      // x * 0 keeps torch's -0 and NaN (inf * 0) where an element is dropped.
      const T masked = static_cast<T>(static_cast<Acc>(x[n]) * Acc(kept ? 1 : 0));
      y[n] = static_cast<T>(static_cast<Acc>(masked) * s);
    }
  });
}

}  // namespace tailor::native
