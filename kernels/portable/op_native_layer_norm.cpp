#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/layer_norm.h"
#include "kernels/portable/util/normalize_rows.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// native_layer_norm.out(Tensor input, SymInt[] normalized_shape, Tensor? weight,
//                       Tensor? bias, float eps, *, Tensor(a!) out0, Tensor(b!) out1,
//                       Tensor(c!) out2) -> (Tensor(a!), Tensor(b!), Tensor(c!))
// Normalizes over the last len(normalized_shape) dims: out0 = (x - mean) * rstd * weight
// + bias, with out1 = mean and out2 = rstd = 1 / sqrt(biased var + eps), both shaped like
// the input with the normalized dims set to 1.
void native_layer_norm_out(KernelContext& ctx, const Tensor& input, IntArrayRef normalized_shape,
                           const Tensor* weight, const Tensor* bias, double eps, Tensor& out0,
                           Tensor& out1, Tensor& out2) {
  // Validate and resize
  int64_t rows = 1;  // M: the rows normalized independently
  int64_t cols = 1;  // N: elements per row
  if (!check_layer_norm_out(ctx, input, normalized_shape, weight, bias, out0, out1, out2,
                            &rows, &cols)) {
    return;
  }
  const ScalarType dtype = input.dtype();

  // Compute: two passes per row (mean, then variance) for accuracy.
  TL_SWITCH_FLOAT_TYPES(dtype, ctx, "native_layer_norm.out", T, [&] {
    using Acc = acc_t<T>;
    const T* x = input.const_data<T>();
    const T* w = weight != nullptr ? weight->const_data<T>() : nullptr;
    const T* b = bias != nullptr ? bias->const_data<T>() : nullptr;
    T* y = out0.mutable_data<T>();
    // An empty row's mean is 0 / 0 (NaN), as torch's.
    normalize_rows(x, rows, cols, eps, math::quiet_nan<Acc>(), out1.mutable_data<T>(),
                   out2.mutable_data<T>(), [&](int64_t r, Acc mean, Acc rstd) {
      for (int64_t c = 0; c < cols; ++c) {
        Acc v = (static_cast<Acc>(x[r * cols + c]) - mean) * rstd;
        v = w != nullptr ? v * static_cast<Acc>(w[c]) : v;
        v = b != nullptr ? v + static_cast<Acc>(b[c]) : v;
        y[r * cols + c] = static_cast<T>(v);
      }
    });
  });
}

}  // namespace tailor::native
