#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/normalize_rows.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native::native_group_norm_detail {

// Whether an optional weight or bias fits: absent, or `channels` entries of `dtype`.
inline bool affine_ok(const Tensor* t, int64_t channels, ScalarType dtype) {
  return t == nullptr || (t->dim() == 1 && t->size(0) == channels && t->dtype() == dtype);
}

}  // namespace tailor::native::native_group_norm_detail

namespace tailor::native {

// native_group_norm.out(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C,
//                       SymInt HxW, int group, float eps, *, Tensor(a!) out0,
//                       Tensor(b!) out1, Tensor(c!) out2) -> (Tensor(a!), Tensor(b!),
//                       Tensor(c!))
// Splits the C channels of input [N, C, ...] (HxW elements each) into `group` groups and
// normalizes each (n, group) over its channels: out0 = (x - mean) * rstd * weight[c] +
// bias[c], out1 = mean and out2 = rstd = 1 / sqrt(biased var + eps), both [N, group].
void native_group_norm_out(KernelContext& ctx, const Tensor& input, const Tensor* weight,
                           const Tensor* bias, int64_t N, int64_t C, int64_t HxW,
                           int64_t group, double eps, Tensor& out0, Tensor& out1,
                           Tensor& out2) {
  using native_group_norm_detail::affine_ok;
  // Validate: N, C and HxW restate the input's shape.
  TL_KERNEL_CHECK_MSG(ctx, input.dim() >= 2, InvalidArgument, ,
                      "native_group_norm.out: input must be [N, C, ...], got %lld dims",
                      static_cast<long long>(input.dim()));
  int64_t inner = 1;
  for (int64_t d = 2; d < input.dim(); ++d) {
    inner *= input.size(d);
  }
  TL_KERNEL_CHECK_MSG(ctx, input.size(0) == N && input.size(1) == C && inner == HxW,
                      InvalidArgument, ,
                      "native_group_norm.out: N = %lld, C = %lld, HxW = %lld do not match the "
                      "input", static_cast<long long>(N), static_cast<long long>(C),
                      static_cast<long long>(HxW));
  TL_KERNEL_CHECK_MSG(ctx, group >= 1 && group <= C && C % group == 0, InvalidArgument, ,
                      "native_group_norm.out: %lld channels do not split into %lld groups",
                      static_cast<long long>(C), static_cast<long long>(group));
  const ScalarType dtype = input.dtype();
  TL_KERNEL_CHECK_MSG(ctx, affine_ok(weight, C, dtype) && affine_ok(bias, C, dtype),
                      InvalidArgument, ,
                      "native_group_norm.out: weight and bias must be 1-d with %lld entries "
                      "of the input's dtype", static_cast<long long>(C));
  TL_KERNEL_CHECK(ctx,
                  same_dtype(input, out0) && same_dtype(input, out1) &&
                      same_dtype(input, out2) && is_default_dim_order(input) &&
                      is_default_dim_order(out0),
                  InvalidArgument, );

  // Resize
  const int64_t stat_sizes[2] = {N, group};
  TL_KERNEL_CHECK_MSG(ctx,
                      resize_like(out0, input) == Error::Ok &&
                          resize_tensor(out1, IntArrayRef(stat_sizes, 2)) == Error::Ok &&
                          resize_tensor(out2, IntArrayRef(stat_sizes, 2)) == Error::Ok,
                      InvalidArgument, ,
                      "native_group_norm.out: out0 must take the input's size, out1 and out2 "
                      "the size [N, group]");

  // Compute: two passes per (n, group) for the statistics (mean, then variance), then
  // y = x * scale + shift per channel, folded as torch folds it.
  const int64_t per_group = C / group;
  const int64_t count = per_group * HxW;
  TL_SWITCH_FLOAT_TYPES(dtype, ctx, "native_group_norm.out", T, [&] {
    using Acc = acc_t<T>;
    const T* x = input.const_data<T>();
    const T* w = weight != nullptr ? weight->const_data<T>() : nullptr;
    const T* b = bias != nullptr ? bias->const_data<T>() : nullptr;
    T* y = out0.mutable_data<T>();
    normalize_rows(x, N * group, count, eps, Acc(0), out1.mutable_data<T>(),
                   out2.mutable_data<T>(), [&](int64_t row, Acc mean, Acc rstd) {
      const int64_t c0 = (row % group) * per_group;
      for (int64_t c = 0; c < per_group; ++c) {
        const Acc scale = w != nullptr ? rstd * static_cast<Acc>(w[c0 + c]) : rstd;
        const Acc shift = (b != nullptr ? static_cast<Acc>(b[c0 + c]) : Acc(0)) - mean * scale;
        const T* s = x + row * count + c * HxW;
        T* d = y + row * count + c * HxW;
        for (int64_t i = 0; i < HxW; ++i) {
          d[i] = static_cast<T>(static_cast<Acc>(s[i]) * scale + shift);
        }
      }
    });
  });
}

}  // namespace tailor::native
