// The optimized kernel of llm::rms_norm.out (kernels/llm/llm_optimized.yaml; the plain C++
// reference is op_rms_norm_portable.cpp): each row's squares summed and the row scaled W
// floats at a time at the widest vector width of the CPU (kernels/optimized/util/vec.h).
#include "kernels/llm/rms_norm_shape.h"
#include "kernels/optimized/util/vec.h"
#include "runtime/kernel/kernel_includes.h"

namespace llm::optimized::native {

using ::tailor::KernelContext;
using ::tailor::Tensor;
namespace opt = ::tailor::optimized;

namespace {

// `rows` rows of `cols` floats: two passes over each row (it is in cache for the second).
struct RmsNormRows {
  template <int W>
  TL_VEC_INLINE static void run(const float* x, const float* w, float eps, float* y,
                                int64_t rows, int64_t cols) {
    using V = opt::VecF<W>;
    const int64_t whole = cols - cols % W;
    const int64_t ragged = cols - whole;
    for (int64_t r = 0; r < rows; ++r, x += cols, y += cols) {
      V acc = V{};
      V v, g;
      for (int64_t i = 0; i < whole; i += W) {
        opt::vec_load<W>(x + i, v);
        acc += v * v;
      }
      if (ragged != 0) {  // the missing lanes load as 0 and add nothing
        opt::vec_load_partial<W>(x + whole, ragged, 0.0f, v);
        acc += v * v;
      }
      const float mean = opt::vec_sum<W>(acc) / static_cast<float>(cols);
      const V scale = V{} + 1.0f / ::tailor::math::sqrt(mean + eps);
      for (int64_t i = 0; i < whole; i += W) {
        opt::vec_load<W>(x + i, v);
        opt::vec_load<W>(w + i, g);
        opt::vec_store<W>(y + i, v * scale * g);  // x * r first, as eager rounds
      }
      if (ragged != 0) {
        opt::vec_load_partial<W>(x + whole, ragged, 0.0f, v);
        opt::vec_load_partial<W>(w + whole, ragged, 0.0f, g);
        opt::vec_store_partial<W>(y + whole, ragged, v * scale * g);
      }
    }
  }
};

}  // namespace

// rms_norm.out(Tensor x, Tensor weight, float eps, *, Tensor(a!) out) -> Tensor(a!)
Tensor& rms_norm_out(KernelContext& ctx, const Tensor& x, const Tensor& weight, double eps,
                     Tensor& out) {
  // Validate and resize.
  RmsNormShape shape;
  if (!check_rms_norm(ctx, x, weight, out, shape)) return out;

  // Compute.
  opt::vec_run<RmsNormRows>(x.const_data<float>(), weight.const_data<float>(),
                            static_cast<float>(eps), out.mutable_data<float>(), shape.rows,
                            shape.cols);
  return out;
}

}  // namespace llm::optimized::native
