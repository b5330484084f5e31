#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/triangle.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// triu.out(Tensor self, SymInt diagonal=0, *, Tensor(a!) out) -> Tensor(a!)
// keeps the upper triangle of each matrix (the last two dims): column j of row i
// when j - i >= diagonal; zeros the rest.
Tensor& triu_out(KernelContext& ctx, const Tensor& self, int64_t diagonal, Tensor& out) {
  // Validate and resize
  int64_t matrices = 0;
  int64_t rows = 0;
  int64_t cols = 0;
  TL_KERNEL_CHECK(ctx, prepare_triangle("triu.out", self, out, &matrices, &rows, &cols),
                  InvalidArgument, out);

  // Copy
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "triu.out", W, [&] {
    triangle_copy(static_cast<const W*>(self.data()), static_cast<W*>(out.data()), matrices,
                  rows, cols, diagonal, false);
  });
  return out;
}

}  // namespace tailor::native
