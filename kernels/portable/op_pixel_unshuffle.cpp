#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/pixel_shuffle.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// pixel_unshuffle.out(Tensor self, int downscale_factor, *, Tensor(a!) out) -> Tensor(a!)
// (*, C, H*r, W*r) -> (*, C*r*r, H, W), the inverse of pixel_shuffle:
// out[c*r*r + i*r + j, h, w] = self[c, h*r + i, w*r + j].
Tensor& pixel_unshuffle_out(KernelContext& ctx, const Tensor& self, int64_t downscale_factor,
                            Tensor& out) {
  // Validate
  const int64_t r = downscale_factor;
  PixelDims p;
  TL_KERNEL_CHECK_MSG(ctx,
                      read_pixel_dims(self, &p) && r > 0 && p.h % r == 0 && p.w % r == 0,
                      InvalidArgument, out,
                      "pixel_unshuffle.out: self must be (*, C, H, W) with H and W divisible "
                      "by downscale_factor %lld", static_cast<long long>(r));
  TL_KERNEL_CHECK(ctx, same_dtype_contiguous(self, out), InvalidArgument, out);

  // Resize
  const int64_t h = p.h / r;
  const int64_t w = p.w / r;
  int64_t sizes[kMaxDims];
  TL_KERNEL_CHECK(ctx, resize_tensor(out, pixel_out_sizes(self, p.c * r * r, h, w, sizes)) ==
                           Error::Ok,
                  InvalidArgument, out);

  // Copy: out walks (c, i, j, h, w).
  const int64_t plane = p.h * p.w;
  const StridedView view = pixel_view(p.batch, {p.c, r, r, h, w},
                                      {plane, p.w, 1, r * p.w, r}, p.c * plane);
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "pixel_unshuffle.out", W, [&] {
    strided_copy(static_cast<const W*>(self.data()), static_cast<W*>(out.data()), view);
  });
  return out;
}

}  // namespace tailor::native
