#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/batch_norm.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// _native_batch_norm_legit.no_stats_out(Tensor input, Tensor? weight, Tensor? bias,
//     bool training, float momentum, float eps, *, Tensor(a!) out, Tensor(b!) save_mean,
//     Tensor(c!) save_invstd) -> (Tensor(a!), Tensor(b!), Tensor(c!))
// Training-mode batch norm on [N, C, ...] without running statistics (F.batch_norm with
// training=True and none given): per channel c, the mean and the biased variance over N
// and the spatial dims, summed in double as torch does; save_mean[c] = mean, save_invstd[c]
// = 1 / sqrt(var + eps); out = x * (invstd * weight) + (bias - mean * invstd * weight).
// Momentum only updates running statistics, which this variant has none of.
void _native_batch_norm_legit_no_stats_out(KernelContext& ctx, const Tensor& input,
                                           const Tensor* weight, const Tensor* bias,
                                           bool training, double momentum, double eps,
                                           Tensor& out, Tensor& save_mean,
                                           Tensor& save_invstd) {
  (void)momentum;
  // Validate
  TL_KERNEL_CHECK_MSG(ctx, training, InvalidArgument, ,
                      "_native_batch_norm_legit.no_stats_out: training=False needs running "
                      "statistics (torch refuses it too)");
  TL_KERNEL_CHECK_MSG(ctx, input.dim() >= 2, InvalidArgument, ,
                      "_native_batch_norm_legit.no_stats_out: input must be [N, C, ...], got "
                      "%lld dims", static_cast<long long>(input.dim()));
  const int64_t channels = input.size(1);
  const ScalarType dtype = input.dtype();
  TL_KERNEL_CHECK_MSG(ctx,
                      batch_norm_per_channel_ok(weight, channels, dtype) &&
                          batch_norm_per_channel_ok(bias, channels, dtype),
                      InvalidArgument, ,
                      "_native_batch_norm_legit.no_stats_out: weight and bias must be 1-d with "
                      "%lld entries (the input's channels) of the input's dtype",
                      static_cast<long long>(channels));
  TL_KERNEL_CHECK(ctx,
                  same_dtype(input, out) && same_dtype(input, save_mean) &&
                      same_dtype(input, save_invstd) && is_default_dim_order(input) &&
                      is_default_dim_order(out),
                  InvalidArgument, );
  const int64_t per_channel[1] = {channels};
  TL_KERNEL_CHECK_MSG(ctx,
                      resize_like(out, input) == Error::Ok &&
                          resize_tensor(save_mean, IntArrayRef(per_channel, 1)) == Error::Ok &&
                          resize_tensor(save_invstd, IntArrayRef(per_channel, 1)) == Error::Ok,
                      InvalidArgument, ,
                      "_native_batch_norm_legit.no_stats_out: out must take the input's size, "
                      "save_mean and save_invstd [C]");

  // Compute
  int64_t inner = 1;  // elements per (n, c)
  for (int64_t d = 2; d < input.dim(); ++d) {
    inner *= input.size(d);
  }
  const int64_t batch = input.size(0);
  const double count = static_cast<double>(batch * inner);
  TL_SWITCH_FLOAT_TYPES(dtype, ctx, "_native_batch_norm_legit.no_stats_out", T, [&] {
    using Acc = acc_t<T>;
    const T* x = input.const_data<T>();
    const T* w = weight != nullptr ? weight->const_data<T>() : nullptr;
    const T* b = bias != nullptr ? bias->const_data<T>() : nullptr;
    T* y = out.mutable_data<T>();
    T* mean_out = save_mean.mutable_data<T>();
    T* invstd_out = save_invstd.mutable_data<T>();
    for (int64_t c = 0; c < channels; ++c) {
      double sum = 0.0;
      for (int64_t n = 0; n < batch; ++n) {
        const T* row = x + (n * channels + c) * inner;
        for (int64_t i = 0; i < inner; ++i) sum += static_cast<double>(row[i]);
      }
      const double mean = sum / count;
      double squares = 0.0;
      for (int64_t n = 0; n < batch; ++n) {
        const T* row = x + (n * channels + c) * inner;
        for (int64_t i = 0; i < inner; ++i) {
          const double d = static_cast<double>(row[i]) - mean;
          squares += d * d;
        }
      }
      mean_out[c] = static_cast<T>(mean);
      invstd_out[c] = static_cast<T>(1.0 / math::sqrt(squares / count + eps));
      // The transform reads the stored statistics, in the compute type, as torch's does.
      const Acc alpha = static_cast<Acc>(invstd_out[c]) *
                        (w != nullptr ? static_cast<Acc>(w[c]) : Acc(1));
      const Acc beta =
          (b != nullptr ? static_cast<Acc>(b[c]) : Acc(0)) - static_cast<Acc>(mean_out[c]) * alpha;
      for (int64_t n = 0; n < batch; ++n) {
        const int64_t offset = (n * channels + c) * inner;
        for (int64_t i = 0; i < inner; ++i) {
          y[offset + i] = static_cast<T>(static_cast<Acc>(x[offset + i]) * alpha + beta);
        }
      }
    }
  });
}

}  // namespace tailor::native
