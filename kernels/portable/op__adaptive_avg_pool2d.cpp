#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/pool.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// _adaptive_avg_pool2d.out(Tensor self, SymInt[2] output_size, *, Tensor(a!) out)
//     -> Tensor(a!)
// Averages a 3-d or 4-d input down (or up) to output_size: output cell i of n covers
// input rows [floor(i * in / n), ceil((i + 1) * in / n)), as in torch, so windows may
// overlap or differ in size. Sums in float for 16-bit floats.
Tensor& _adaptive_avg_pool2d_out(KernelContext& ctx, const Tensor& self,
                                 IntArrayRef output_size, Tensor& out) {
  // Validate
  PoolPlanes in;
  int64_t out_h = 0;
  int64_t out_w = 0;
  const char* problem = read_adaptive_pool(self, output_size, &in, &out_h, &out_w);
  TL_KERNEL_CHECK_MSG(ctx, problem == nullptr, InvalidArgument, out,
                      "_adaptive_avg_pool2d.out: %s", problem);
  TL_KERNEL_CHECK_MSG(ctx, same_dtype(self, out), InvalidArgument, out,
                      "_adaptive_avg_pool2d.out: out has dtype %s, self %s",
                      scalar_type_name(out.dtype()), scalar_type_name(self.dtype()));
  TL_KERNEL_CHECK(ctx, is_default_dim_order(self) && is_default_dim_order(out),
                  InvalidArgument, out);

  // Resize
  TL_KERNEL_CHECK(ctx, resize_tensor(out, in.set_out(self, out_h, out_w)) == Error::Ok,
                  InvalidArgument, out);

  // Compute: divides by the window's height, then its width, as torch does.
  TL_SWITCH_FLOAT_TYPES(self.dtype(), ctx, "_adaptive_avg_pool2d.out", T, [&] {
    using Acc = acc_t<T>;
    const int64_t in_w = in.in_w;
    T* dst = out.mutable_data<T>();
    for_each_adaptive_window(in, self.const_data<T>(), out_h, out_w,
                             [&](const T* src, int64_t cell, int64_t h0, int64_t h1,
                                 int64_t w0, int64_t w1) {
      Acc sum = 0;
      for (int64_t h = h0; h < h1; ++h) {
        const T* row = src + h * in_w;
        for (int64_t x = w0; x < w1; ++x) {
          sum += static_cast<Acc>(row[x]);
        }
      }
      dst[cell] = static_cast<T>(sum / static_cast<Acc>(h1 - h0) / static_cast<Acc>(w1 - w0));
    });
  });
  return out;
}

}  // namespace tailor::native
