// masked_select and masked_scatter: a walk over the broadcast of self and a Bool mask in
// row-major order, the order in which both ops take the selected elements.
#pragma once

#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// The broadcast shape of self and mask, and each one's stride along it (0 where it
// broadcasts).
struct MaskedWalk {
  int64_t sizes[kMaxDims];
  int64_t self_strides[kMaxDims];
  int64_t mask_strides[kMaxDims];
  int64_t rank = 0;
  int64_t numel = 1;

  // False when self and mask do not broadcast (or have too many dims).
  bool init(const Tensor& self, const Tensor& mask) {
    const Tensor* both[] = {&self, &mask};
    if (!broadcast_sizes(both, 2, sizes, &rank)) {
      return false;
    }
    numel = 1;
    for (int64_t d = 0; d < rank; ++d) {
      numel *= sizes[d];
    }
    fill_strides(self, self_strides);
    fill_strides(mask, mask_strides);
    return true;
  }

  // Calls f(self_index, mask_index) for each element of the broadcast shape, row-major.
  template <typename F>
  void for_each(F&& f) const {
    int64_t counter[kMaxDims] = {};
    int64_t s = 0;
    int64_t m = 0;
    for (int64_t i = 0; i < numel; ++i) {
      f(s, m);
      for (int64_t d = rank - 1; d >= 0; --d) {
        s += self_strides[d];
        m += mask_strides[d];
        if (++counter[d] < sizes[d]) {
          break;
        }
        s -= self_strides[d] * sizes[d];
        m -= mask_strides[d] * sizes[d];
        counter[d] = 0;
      }
    }
  }

 private:
  void fill_strides(const Tensor& t, int64_t* strides) const {
    int64_t stride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      const int64_t td = d - (rank - t.dim());
      const int64_t size = td >= 0 ? t.size(td) : 1;
      strides[d] = size == 1 ? 0 : stride;
      stride *= size;
    }
  }
};

// Checks the shared arguments: a Bool mask, out of self's dtype, all contiguous, self and
// mask broadcasting. False with ctx failed.
inline bool check_masked(KernelContext& ctx, const char* op, const Tensor& self,
                         const Tensor& mask, const Tensor& out, MaskedWalk* walk) {
  TL_KERNEL_CHECK_MSG(ctx, mask.dtype() == ScalarType::Bool, InvalidArgument, false,
                      "%s: mask must be Bool, got %s", op, scalar_type_name(mask.dtype()));
  TL_KERNEL_CHECK_MSG(ctx, same_dtype(self, out), InvalidArgument, false,
                      "%s: out has dtype %s, self %s", op, scalar_type_name(out.dtype()),
                      scalar_type_name(self.dtype()));
  TL_KERNEL_CHECK(ctx,
                  is_default_dim_order(self) && is_default_dim_order(mask) &&
                      is_default_dim_order(out),
                  InvalidArgument, false);
  TL_KERNEL_CHECK_MSG(ctx, walk->init(self, mask), InvalidArgument, false,
                      "%s: mask does not broadcast with self", op);
  return true;
}

}  // namespace tailor::native
