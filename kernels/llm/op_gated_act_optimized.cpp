// The optimized kernel of llm::gated_act.out (kernels/llm/llm_optimized.yaml; the plain C++
// reference is op_gated_act_portable.cpp): each row's gate activated and multiplied by its
// up half W floats at a time at the widest vector width of the CPU, exp by vec_exp
// (kernels/optimized/util/vec_math.h) instead of a libm call per float.
#include "kernels/llm/gated_act_shape.h"
#include "kernels/optimized/util/vec_math.h"
#include "runtime/kernel/kernel_includes.h"

namespace llm::optimized::native {

using ::tailor::KernelContext;
using ::tailor::Tensor;
namespace opt = ::tailor::optimized;

namespace {

// `rows` rows of 2 * `cols` floats (gate, up) into rows of `cols`; the activation a
// template argument, so the loop holds no branch on it.
template <GatedAct A>
struct GatedRows {
  template <int W>
  TL_VEC_INLINE static void activate(opt::VecF<W>& x) {
    if constexpr (A == GatedAct::Silu) {
      opt::VecF<W> e = -x;
      opt::vec_exp<W>(e);
      x = x / (1.0f + e);
    } else if constexpr (A == GatedAct::Gelu) {
      opt::vec_gelu_erf<W>(x);
    } else {
      opt::vec_gelu_tanh<W>(x);
    }
  }

  template <int W>
  TL_VEC_INLINE static void run(const float* h, float* y, int64_t rows, int64_t cols) {
    using V = opt::VecF<W>;
    const int64_t whole = cols - cols % W;
    const int64_t ragged = cols - whole;
    for (int64_t r = 0; r < rows; ++r, h += 2 * cols, y += cols) {
      const float* up = h + cols;
      V g, u;
      for (int64_t i = 0; i < whole; i += W) {
        opt::vec_load<W>(h + i, g);
        opt::vec_load<W>(up + i, u);
        activate<W>(g);
        opt::vec_store<W>(y + i, g * u);
      }
      if (ragged != 0) {  // the missing lanes compute on 0 and are not stored
        opt::vec_load_partial<W>(h + whole, ragged, 0.0f, g);
        opt::vec_load_partial<W>(up + whole, ragged, 0.0f, u);
        activate<W>(g);
        opt::vec_store_partial<W>(y + whole, ragged, g * u);
      }
    }
  }
};

}  // namespace

// gated_act.out(Tensor h, str act, *, Tensor(a!) out) -> Tensor(a!)
Tensor& gated_act_out(KernelContext& ctx, const Tensor& h, const char* act, Tensor& out) {
  // Validate and resize.
  GatedActShape shape;
  if (!check_gated_act(ctx, h, act, out, shape)) return out;

  // Compute.
  const float* in = h.const_data<float>();
  float* o = out.mutable_data<float>();
  switch (shape.act) {
    case GatedAct::Silu:
      opt::vec_run<GatedRows<GatedAct::Silu>>(in, o, shape.rows, shape.cols);
      break;
    case GatedAct::Gelu:
      opt::vec_run<GatedRows<GatedAct::Gelu>>(in, o, shape.rows, shape.cols);
      break;
    case GatedAct::GeluTanh:
      opt::vec_run<GatedRows<GatedAct::GeluTanh>>(in, o, shape.rows, shape.cols);
      break;
  }
  return out;
}

}  // namespace llm::optimized::native
