#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/triangle.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// tril.out(Tensor self, SymInt diagonal=0, *, Tensor(a!) out) -> Tensor(a!)
// keeps the lower triangle of each matrix (the last two dims): column j of row i
// when j - i <= diagonal; zeros the rest.
Tensor& tril_out(KernelContext& ctx, const Tensor& self, int64_t diagonal, Tensor& out) {
  // Validate and resize
  int64_t matrices = 0;
  int64_t rows = 0;
  int64_t cols = 0;
  TL_KERNEL_CHECK(ctx, prepare_triangle("tril.out", self, out, &matrices, &rows, &cols),
                  InvalidArgument, out);

  // Copy
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "tril.out", W, [&] {
    triangle_copy(static_cast<const W*>(self.data()), static_cast<W*>(out.data()), matrices,
                  rows, cols, diagonal, true);
  });
  return out;
}

}  // namespace tailor::native
