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

  // Compute: per channel, y = x * scale + shift, folded as torch folds it.
  int64_t inner = 1;  // elements per (n, c)
  for (int64_t d = 2; d < input.dim(); ++d) {
    inner *= input.size(d);
  }
  const int64_t batch = input.size(0);
  if (input.numel() == 0) {
    return;
  }
  TL_SWITCH_FLOAT_TYPES(dtype, ctx, "_native_batch_norm_legit_no_training.out", T, [&] {
    using Acc = acc_t<T>;
    const T* x = input.const_data<T>();
    const T* w = weight != nullptr ? weight->const_data<T>() : nullptr;
    const T* b = bias != nullptr ? bias->const_data<T>() : nullptr;
    const T* mean = running_mean.const_data<T>();
    const T* var = running_var.const_data<T>();
    T* y = out0.mutable_data<T>();
    for (int64_t c = 0; c < channels; ++c) {
      const Acc invstd =
          Acc(1) / math::sqrt(static_cast<Acc>(var[c]) + static_cast<Acc>(eps));
      const Acc scale = w != nullptr ? invstd * static_cast<Acc>(w[c]) : invstd;
      const Acc shift =
          (b != nullptr ? static_cast<Acc>(b[c]) : Acc(0)) - static_cast<Acc>(mean[c]) * scale;
      for (int64_t n = 0; n < batch; ++n) {
        const int64_t offset = (n * channels + c) * inner;
        for (int64_t i = 0; i < inner; ++i) {
          y[offset + i] = static_cast<T>(static_cast<Acc>(x[offset + i]) * scale + shift);
        }
      }
    }
  });
}

}  // namespace tailor::native
