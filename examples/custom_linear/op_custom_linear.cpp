// The C++ kernel of the user operator mylib::custom_linear.out (ops.py defines it for torch).
// The runtime calls it through the generated kernel table; eager torch calls the same
// function through torch_adapter.cpp. Declared in custom_linear.yaml.
#include "runtime/kernel/kernel_includes.h"

namespace mylib::native {

using ::tailor::KernelContext;
using ::tailor::ScalarType;
using ::tailor::Tensor;

// custom_linear.out(Tensor input, Tensor weight, Tensor? bias, *, Tensor(a!) out) -> Tensor(a!)
// out[..., n] = sum_k input[..., k] * weight[n, k] + bias[n], in Float.
Tensor& custom_linear_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                          const Tensor* bias, Tensor& out) {
  // Validate: contiguous Float tensors whose shapes fit together.
  TL_KERNEL_CHECK(ctx,
                  input.dtype() == ScalarType::Float && weight.dtype() == ScalarType::Float &&
                      out.dtype() == ScalarType::Float && input.dim() >= 1 &&
                      input.dim() <= 8 && weight.dim() == 2 &&
                      input.size(input.dim() - 1) == weight.size(1) &&
                      ::tailor::is_default_dim_order(input) &&
                      ::tailor::is_default_dim_order(weight),
                  InvalidArgument, out);
  const int64_t k = weight.size(1);
  const int64_t n = weight.size(0);
  TL_KERNEL_CHECK(ctx,
                  bias == nullptr || (bias->dtype() == ScalarType::Float &&
                                      static_cast<int64_t>(bias->numel()) == n),
                  InvalidArgument, out);

  // Resize: out has input's sizes with the last one replaced by n.
  int64_t sizes[8];
  for (int64_t d = 0; d < input.dim(); ++d) {
    sizes[d] = input.size(d);
  }
  sizes[input.dim() - 1] = n;
  TL_KERNEL_CHECK(ctx,
                  ::tailor::resize_tensor(out, {sizes, static_cast<size_t>(input.dim())}) == ::tailor::Error::Ok,
                  InvalidArgument, out);

  // Compute: one dot product per output, in the order torch's reference sums.
  const float* x = input.const_data<float>();
  const float* w = weight.const_data<float>();
  const float* b = bias == nullptr ? nullptr : bias->const_data<float>();
  float* y = out.mutable_data<float>();
  const int64_t rows = k == 0 ? 0 : static_cast<int64_t>(input.numel()) / k;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0.0f;
      for (int64_t i = 0; i < k; ++i) {
        sum += x[r * k + i] * w[j * k + i];
      }
      y[r * n + j] = b == nullptr ? sum : sum + b[j];
    }
  }
  return out;
}

}  // namespace mylib::native
