// Lets eager torch run the runtime's kernel: the same source as the runtime compiles
// (op_custom_linear.cpp), called on tailor::Tensor views of torch tensors. extension.py
// builds this with torch.utils.cpp_extension; ops.py calls it from mylib::custom_linear.
#include <torch/extension.h>

#include "examples/custom_linear/op_custom_linear.cpp"

namespace {

constexpr int64_t kMaxDims = 8;

// A tailor::Tensor over a contiguous Float torch tensor's memory, with the sizes, dim order
// and strides arrays the runtime's Tensor borrows (the runtime keeps sizes as int32).
struct TensorView {
  int32_t sizes[kMaxDims];
  uint8_t dim_order[kMaxDims];
  int64_t strides[kMaxDims];
  tailor::Tensor tensor;

  explicit TensorView(const at::Tensor& t) {
    TORCH_CHECK(t.scalar_type() == at::kFloat && t.is_contiguous() && t.dim() <= kMaxDims,
                "custom_linear: tensors must be contiguous Float with at most 8 dims");
    for (int64_t d = 0; d < t.dim(); ++d) {
      sizes[d] = static_cast<int32_t>(t.size(d));
      dim_order[d] = static_cast<uint8_t>(d);
      strides[d] = t.stride(d);
    }
    tensor = tailor::Tensor(tailor::ScalarType::Float, t.dim(), sizes, dim_order, strides,
                            t.data_ptr(), t.nbytes(), /*dynamic=*/false);
  }
};

// The torch form of the runtime kernel: out is sized here, because a static runtime
// tensor only accepts the sizes it has.
at::Tensor custom_linear_out(const at::Tensor& input, const at::Tensor& weight,
                             const c10::optional<at::Tensor>& bias, at::Tensor out) {
  auto out_sizes = input.sizes().vec();
  TORCH_CHECK(!out_sizes.empty() && weight.dim() == 2, "custom_linear: bad shapes");
  out_sizes.back() = weight.size(0);
  out.resize_(out_sizes);
  TensorView in(input), w(weight), result(out);
  c10::optional<TensorView> b;
  if (bias.has_value()) {
    b.emplace(*bias);
  }
  tailor::KernelContext ctx;
  mylib::native::custom_linear_out(ctx, in.tensor, w.tensor, b ? &b->tensor : nullptr,
                                   result.tensor);
  TORCH_CHECK(ctx.failure_state() == tailor::Error::Ok,
              "custom_linear: the kernel rejected its arguments (see the log above)");
  return out;
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("custom_linear_out", &custom_linear_out,
        "mylib::custom_linear.out through the runtime's kernel");
}
