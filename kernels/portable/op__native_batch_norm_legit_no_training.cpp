#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/batch_norm.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// _native_batch_norm_legit_no_training.out(Tensor input, Tensor? weight, Tensor? bias,
//     Tensor running_mean, Tensor running_var, float momentum, float eps, *,
//     Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2) -> (Tensor(a!), Tensor(b!),
//     Tensor(c!))
// Batch norm in eval mode on [N, C, ...]: out0 = (x - running_mean[c]) /
// sqrt(running_var[c] + eps) * weight[c] + bias[c]. Eval saves no statistics, so out1
// and out2 come out empty ([0]) as in torch; momentum only matters in training.
void _native_batch_norm_legit_no_training_out(KernelContext& ctx, const Tensor& input,
                                              const Tensor* weight, const Tensor* bias,
                                              const Tensor& running_mean,
                                              const Tensor& running_var, double momentum,
                                              double eps, Tensor& out0, Tensor& out1,
                                              Tensor& out2) {
  const auto per_channel_ok = batch_norm_per_channel_ok;
  (void)momentum;
  // Validate
  TL_KERNEL_CHECK_MSG(ctx, input.dim() >= 2, InvalidArgument, ,
                      "_native_batch_norm_legit_no_training.out: input must be [N, C, ...], "
                      "got %lld dims", static_cast<long long>(input.dim()));
  const int64_t channels = input.size(1);
  const ScalarType dtype = input.dtype();
  TL_KERNEL_CHECK_MSG(ctx,
                      per_channel_ok(weight, channels, dtype) &&
                          per_channel_ok(bias, channels, dtype) &&
                          per_channel_ok(&running_mean, channels, dtype) &&
                          per_channel_ok(&running_var, channels, dtype),
                      InvalidArgument, ,
                      "_native_batch_norm_legit_no_training.out: weight, bias, running_mean "
                      "and running_var must be 1-d with %lld entries (the input's channels) "
                      "of the input's dtype", static_cast<long long>(channels));
  TL_KERNEL_CHECK(ctx,
                  same_dtype(input, out0) && same_dtype(input, out1) &&
                      same_dtype(input, out2) && is_default_dim_order(input) &&
                      is_default_dim_order(out0),
                  InvalidArgument, );

  // Resize
  const int64_t empty[1] = {0};
  TL_KERNEL_CHECK_MSG(ctx,
                      resize_like(out0, input) == Error::Ok &&
                          resize_tensor(out1, IntArrayRef(empty, 1)) == Error::Ok &&
                          resize_tensor(out2, IntArrayRef(empty, 1)) == Error::Ok,
                      InvalidArgument, ,
                      "_native_batch_norm_legit_no_training.out: out0 must take the input's "
                      "size, out1 and out2 the size [0]");

  // Compute
  if (input.numel() == 0) {
    return;
  }
  TL_SWITCH_FLOAT_TYPES(dtype, ctx, "_native_batch_norm_legit_no_training.out", T, [&] {
    batch_norm_eval(input.const_data<T>(),
                    weight != nullptr ? weight->const_data<T>() : nullptr,
                    bias != nullptr ? bias->const_data<T>() : nullptr,
                    running_mean.const_data<T>(), running_var.const_data<T>(), input.size(0),
                    channels, batch_norm_inner(input), eps, out0.mutable_data<T>());
  });
}

}  // namespace tailor::native
