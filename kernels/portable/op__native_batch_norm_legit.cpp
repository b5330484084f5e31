#include "kernels/portable/util/batch_norm.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {
namespace {

// The checks both overloads share, then out resized to the input's size and save_mean
// and save_invstd to [stats] (C in training; eval saves none: [0]). False (ctx failed)
// when an argument does not fit.
bool check_batch_norm_legit(KernelContext& ctx, const char* op, const Tensor& input,
                            const Tensor* weight, const Tensor* bias, Tensor& out,
                            Tensor& save_mean, Tensor& save_invstd, bool training) {
  TL_KERNEL_CHECK_MSG(ctx, input.dim() >= 2, InvalidArgument, false,
                      "%s: input must be [N, C, ...], got %lld dims", op,
                      static_cast<long long>(input.dim()));
  const int64_t channels = input.size(1);
  const ScalarType dtype = input.dtype();
  TL_KERNEL_CHECK_MSG(ctx,
                      batch_norm_per_channel_ok(weight, channels, dtype) &&
                          batch_norm_per_channel_ok(bias, channels, dtype),
                      InvalidArgument, false,
                      "%s: weight and bias must be 1-d with %lld entries (the input's "
                      "channels) of the input's dtype", op, static_cast<long long>(channels));
  TL_KERNEL_CHECK(ctx,
                  same_dtype(input, out) && same_dtype(input, save_mean) &&
                      same_dtype(input, save_invstd) && is_default_dim_order(input) &&
                      is_default_dim_order(out),
                  InvalidArgument, false);
  const int64_t stats[1] = {training ? channels : 0};
  TL_KERNEL_CHECK_MSG(ctx,
                      resize_like(out, input) == Error::Ok &&
                          resize_tensor(save_mean, IntArrayRef(stats, 1)) == Error::Ok &&
                          resize_tensor(save_invstd, IntArrayRef(stats, 1)) == Error::Ok,
                      InvalidArgument, false,
                      "%s: out must take the input's size, save_mean and save_invstd [%lld]",
                      op, static_cast<long long>(stats[0]));
  return true;
}

template <typename T>
const T* data_or_null(const Tensor* t) {
  return t != nullptr ? t->const_data<T>() : nullptr;
}

}  // namespace

// _native_batch_norm_legit.no_stats_out(Tensor input, Tensor? weight, Tensor? bias,
//     bool training, float momentum, float eps, *, Tensor(a!) out, Tensor(b!) save_mean,
//     Tensor(c!) save_invstd) -> (Tensor(a!), Tensor(b!), Tensor(c!))
// Training-mode batch norm on [N, C, ...] without running statistics (F.batch_norm with
// training=True and none given; util/batch_norm.h's batch_norm_training). Momentum only
// updates running statistics, which this variant has none of.
void _native_batch_norm_legit_no_stats_out(KernelContext& ctx, const Tensor& input,
                                           const Tensor* weight, const Tensor* bias,
                                           bool training, double momentum, double eps,
                                           Tensor& out, Tensor& save_mean,
                                           Tensor& save_invstd) {
  constexpr const char* kOp = "_native_batch_norm_legit.no_stats_out";
  // Validate
  TL_KERNEL_CHECK_MSG(ctx, training, InvalidArgument, ,
                      "%s: training=False needs running statistics (torch refuses it too)",
                      kOp);
  if (!check_batch_norm_legit(ctx, kOp, input, weight, bias, out, save_mean, save_invstd,
                              true)) {
    return;
  }

  // Compute
  TL_SWITCH_FLOAT_TYPES(input.dtype(), ctx, "_native_batch_norm_legit.no_stats_out", T, [&] {
    batch_norm_training(input.const_data<T>(), data_or_null<T>(weight), data_or_null<T>(bias),
                        input.size(0), input.size(1), batch_norm_inner(input), eps, momentum,
                        out.mutable_data<T>(), save_mean.mutable_data<T>(),
                        save_invstd.mutable_data<T>(), static_cast<T*>(nullptr),
                        static_cast<T*>(nullptr));
  });
}

// _native_batch_norm_legit.out(Tensor input, Tensor? weight, Tensor? bias,
//     Tensor(a!) running_mean, Tensor(b!) running_var, bool training, float momentum,
//     float eps, *, Tensor(d!) out, Tensor(e!) save_mean, Tensor(f!) save_invstd)
//     -> (Tensor(d!), Tensor(e!), Tensor(f!))
// Batch norm with running statistics. Training: the batch's statistics normalize (as
// no_stats_out) and update running_mean and running_var in place, as torch does
// (momentum, the variance unbiased); a BatchNorm module in train mode, whose buffers the
// exporter hands over (exporter/passes/batch_norm_training.py). Eval: the running
// statistics normalize, and save_mean and save_invstd come out empty ([0]) as in torch.
void _native_batch_norm_legit_out(KernelContext& ctx, const Tensor& input,
                                  const Tensor* weight, const Tensor* bias,
                                  Tensor& running_mean, Tensor& running_var, bool training,
                                  double momentum, double eps, Tensor& out, Tensor& save_mean,
                                  Tensor& save_invstd) {
  constexpr const char* kOp = "_native_batch_norm_legit.out";
  // Validate
  if (!check_batch_norm_legit(ctx, kOp, input, weight, bias, out, save_mean, save_invstd,
                              training)) {
    return;
  }
  const int64_t channels = input.size(1);
  TL_KERNEL_CHECK_MSG(ctx,
                      batch_norm_per_channel_ok(&running_mean, channels, input.dtype()) &&
                          batch_norm_per_channel_ok(&running_var, channels, input.dtype()),
                      InvalidArgument, ,
                      "%s: running_mean and running_var must be 1-d with %lld entries (the "
                      "input's channels) of the input's dtype", kOp,
                      static_cast<long long>(channels));

  // Compute
  TL_SWITCH_FLOAT_TYPES(input.dtype(), ctx, "_native_batch_norm_legit.out", T, [&] {
    if (training) {
      batch_norm_training(input.const_data<T>(), data_or_null<T>(weight),
                          data_or_null<T>(bias), input.size(0), channels,
                          batch_norm_inner(input), eps, momentum, out.mutable_data<T>(),
                          save_mean.mutable_data<T>(), save_invstd.mutable_data<T>(),
                          running_mean.mutable_data<T>(), running_var.mutable_data<T>());
    } else {
      batch_norm_eval(input.const_data<T>(), data_or_null<T>(weight), data_or_null<T>(bias),
                      running_mean.const_data<T>(), running_var.const_data<T>(),
                      input.size(0), channels, batch_norm_inner(input), eps,
                      out.mutable_data<T>());
    }
  });
}

}  // namespace tailor::native
