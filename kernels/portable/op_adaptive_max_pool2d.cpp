#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/pool.h"
#include "kernels/portable/util/reduce.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// adaptive_max_pool2d.out(Tensor self, int[2] output_size, *, Tensor(a!) out,
//                         Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))
// The maximum of each adaptive window of a 3-d or 4-d input (the windows of
// _adaptive_avg_pool2d) and its index (Long) in the flattened H x W plane. As in torch,
// the first maximum wins ties and the last NaN beats everything.
void adaptive_max_pool2d_out(KernelContext& ctx, const Tensor& self, IntArrayRef output_size,
                             Tensor& out, Tensor& indices) {
  // Validate
  PoolPlanes in;
  int64_t out_h = 0;
  int64_t out_w = 0;
  const char* problem = read_adaptive_pool(self, output_size, &in, &out_h, &out_w);
  TL_KERNEL_CHECK_MSG(ctx, problem == nullptr, InvalidArgument, ,
                      "adaptive_max_pool2d.out: %s", problem);
  TL_KERNEL_CHECK_MSG(ctx, same_dtype(self, out) && indices.dtype() == ScalarType::Long,
                      InvalidArgument, ,
                      "adaptive_max_pool2d.out: out must have self's dtype and indices must "
                      "be Long");
  TL_KERNEL_CHECK(ctx,
                  is_default_dim_order(self) && is_default_dim_order(out) &&
                      is_default_dim_order(indices),
                  InvalidArgument, );

  // Resize
  const IntArrayRef out_sizes = in.set_out(self, out_h, out_w);
  TL_KERNEL_CHECK(ctx,
                  resize_tensor(out, out_sizes) == Error::Ok &&
                      resize_tensor(indices, out_sizes) == Error::Ok,
                  InvalidArgument, );

  // Compute: 16-bit floats compare in float (exact, and the maximum is stored back as is).
  TL_SWITCH_FLOAT_TYPES(self.dtype(), ctx, "adaptive_max_pool2d.out", T, [&] {
    using Acc = acc_t<T>;
    const int64_t in_w = in.in_w;
    T* dst = out.mutable_data<T>();
    int64_t* idx = indices.mutable_data<int64_t>();
    for_each_adaptive_window(in, self.const_data<T>(), out_h, out_w,
                             [&](const T* src, int64_t cell, int64_t h0, int64_t h1,
                                 int64_t w0, int64_t w1) {
      Acc best = lowest_value<Acc>();
      int64_t best_at = h0 * in_w + w0;
      for (int64_t h = h0; h < h1; ++h) {
        const T* row = src + h * in_w;
        for (int64_t x = w0; x < w1; ++x) {
          const Acc v = static_cast<Acc>(row[x]);
          if (v > best || is_nan_value(v)) {
            best = v;
            best_at = h * in_w + x;
          }
        }
      }
      dst[cell] = static_cast<T>(best);
      idx[cell] = best_at;
    });
  });
}

}  // namespace tailor::native
