#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native::native_layer_norm_detail {

// Whether an optional weight or bias fits: absent, or `count` elements of `dtype`.
inline bool affine_ok(const Tensor* t, int64_t count, ScalarType dtype) {
  return t == nullptr || (static_cast<int64_t>(t->numel()) == count && t->dtype() == dtype &&
                          is_default_dim_order(*t));
}

}  // namespace tailor::native::native_layer_norm_detail

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
  using native_layer_norm_detail::affine_ok;
  // Validate: normalized_shape is the input's trailing shape.
  const int64_t rank = input.dim();
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  TL_KERNEL_CHECK_MSG(ctx, k >= 1 && k <= rank, InvalidArgument, ,
                      "native_layer_norm.out: normalized_shape has %lld dims for a %lld-d "
                      "input", static_cast<long long>(k), static_cast<long long>(rank));
  const int64_t axis = rank - k;
  int64_t rows = 1;  // M: the rows normalized independently
  int64_t cols = 1;  // N: elements per row
  int64_t stat_sizes[kMaxDims];
  for (int64_t d = 0; d < rank; ++d) {
    if (d < axis) {
      rows *= input.size(d);
      stat_sizes[d] = input.size(d);
    } else {
      TL_KERNEL_CHECK_MSG(ctx, input.size(d) == normalized_shape[d - axis], InvalidArgument, ,
                          "native_layer_norm.out: normalized_shape does not match the "
                          "input's last %lld dims", static_cast<long long>(k));
      cols *= input.size(d);
      stat_sizes[d] = 1;
    }
  }
  const ScalarType dtype = input.dtype();
  TL_KERNEL_CHECK_MSG(ctx, affine_ok(weight, cols, dtype) && affine_ok(bias, cols, dtype),
                      InvalidArgument, ,
                      "native_layer_norm.out: weight and bias must have normalized_shape and "
                      "the input's dtype");
  TL_KERNEL_CHECK(ctx,
                  same_dtype(input, out0) && same_dtype(input, out1) &&
                      same_dtype(input, out2) && is_default_dim_order(input) &&
                      is_default_dim_order(out0),
                  InvalidArgument, );

  // Resize
  TL_KERNEL_CHECK(ctx,
                  resize_like(out0, input) == Error::Ok &&
                      resize_tensor(out1, IntArrayRef(stat_sizes, rank)) == Error::Ok &&
                      resize_tensor(out2, IntArrayRef(stat_sizes, rank)) == Error::Ok,
                  InvalidArgument, );

  // Compute: two passes per row (mean, then variance) for accuracy.
  TL_SWITCH_FLOAT_TYPES(dtype, ctx, "native_layer_norm.out", T, [&] {
    using Acc = acc_t<T>;
    const T* x = input.const_data<T>();
    const T* w = weight != nullptr ? weight->const_data<T>() : nullptr;
    const T* b = bias != nullptr ? bias->const_data<T>() : nullptr;
    T* y = out0.mutable_data<T>();
    T* mean_out = out1.mutable_data<T>();
    T* rstd_out = out2.mutable_data<T>();
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = x + r * cols;
      T* dst = y + r * cols;
      Acc sum = 0;
      for (int64_t c = 0; c < cols; ++c) {
        sum += static_cast<Acc>(row[c]);
      }
      const Acc mean = sum / static_cast<Acc>(cols);
      Acc sq = 0;
      for (int64_t c = 0; c < cols; ++c) {
        const Acc dev = static_cast<Acc>(row[c]) - mean;
        sq += dev * dev;
      }
      const Acc rstd = Acc(1) / math::sqrt(sq / static_cast<Acc>(cols) + static_cast<Acc>(eps));
      for (int64_t c = 0; c < cols; ++c) {
        Acc v = (static_cast<Acc>(row[c]) - mean) * rstd;
        v = w != nullptr ? v * static_cast<Acc>(w[c]) : v;
        v = b != nullptr ? v + static_cast<Acc>(b[c]) : v;
        dst[c] = static_cast<T>(v);
      }
      mean_out[r] = static_cast<T>(mean);
      rstd_out[r] = static_cast<T>(rstd);
    }
  });
}

}  // namespace tailor::native
