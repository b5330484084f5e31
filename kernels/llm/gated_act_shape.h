// What both kernels of llm::gated_act.out (op_gated_act_optimized.cpp and
// op_gated_act_portable.cpp) check before computing, and the shape they compute on.
// tailor/llm/gated_act_op.py defines the operator for torch.
#pragma once

#include "runtime/kernel/kernel_includes.h"

namespace llm {

// The activations of tailor/llm/gated_act_op.py's ACTIVATIONS, by name.
enum class GatedAct { Silu, Gelu, GeluTanh };

// h [..., 2 * cols] as `rows` rows, each `cols` gate floats then `cols` up floats; out
// [..., cols].
struct GatedActShape {
  int64_t rows = 0;
  int64_t cols = 0;
  GatedAct act = GatedAct::Silu;
};

// Validates a call, resizes out and fills `shape`, or logs why not, fails ctx and
// returns false.
inline bool check_gated_act(::tailor::KernelContext& ctx, const ::tailor::Tensor& h,
                            const char* act, ::tailor::Tensor& out, GatedActShape& shape) {
  using ::tailor::ScalarType;
  using ::tailor::scalar_type_name;
  using ::tailor::string_equal;
  const bool silu = string_equal(act, "silu");
  const bool gelu = string_equal(act, "gelu");
  const bool gelu_tanh = string_equal(act, "gelu_tanh");
  TL_KERNEL_CHECK_MSG(ctx, silu || gelu || gelu_tanh, InvalidArgument, false,
                      "llm::gated_act: act is silu, gelu or gelu_tanh; got '%s'", act);
  shape.act = silu ? GatedAct::Silu : gelu ? GatedAct::Gelu : GatedAct::GeluTanh;
  TL_KERNEL_CHECK_MSG(ctx,
                      h.dtype() == ScalarType::Float && out.dtype() == ScalarType::Float,
                      InvalidArgument, false, "llm::gated_act: h and out must be Float; got %s and %s",
                      scalar_type_name(h.dtype()), scalar_type_name(out.dtype()));
  const int64_t rank = h.dim();
  TL_KERNEL_CHECK_MSG(ctx, rank >= 1 && rank <= int64_t(::tailor::kMaxTensorDim), InvalidArgument,
                      false, "llm::gated_act: h must be [..., 2I]; got rank %d",
                      static_cast<int>(rank));
  const int64_t width = h.size(rank - 1);
  TL_KERNEL_CHECK_MSG(ctx, width % 2 == 0, InvalidArgument, false,
                      "llm::gated_act: h's last dim %lld must be even (gate, then up)",
                      static_cast<long long>(width));
  TL_KERNEL_CHECK_MSG(ctx, ::tailor::is_default_dim_order(h), InvalidArgument, false,
                      "llm::gated_act: h must be contiguous");
  int64_t sizes[::tailor::kMaxTensorDim];
  for (int64_t i = 0; i < rank; ++i) sizes[i] = h.size(i);
  sizes[rank - 1] = width / 2;
  TL_KERNEL_CHECK_MSG(ctx,
                      ::tailor::resize_tensor(out, ::tailor::IntArrayRef(sizes, rank)) ==
                          ::tailor::Error::Ok,
                      InvalidArgument, false, "llm::gated_act: out cannot take h's shape with half its last dim");
  shape.cols = width / 2;
  // An empty row has nothing to compute.
  shape.rows = width == 0 ? 0 : static_cast<int64_t>(h.numel()) / width;
  return true;
}

}  // namespace llm
