#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/pixel_shuffle.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// pixel_shuffle.out(Tensor self, int upscale_factor, *, Tensor(a!) out) -> Tensor(a!)
// (*, C*r*r, H, W) -> (*, C, H*r, W*r): out[c, h*r + i, w*r + j] = self[c*r*r + i*r + j, h, w].
Tensor& pixel_shuffle_out(KernelContext& ctx, const Tensor& self, int64_t upscale_factor,
                          Tensor& out) {
  // Validate
  const int64_t r = upscale_factor;
  PixelDims p;
  TL_KERNEL_CHECK_MSG(ctx, read_pixel_dims(self, &p) && r > 0 && p.c % (r * r) == 0,
                      InvalidArgument, out,
                      "pixel_shuffle.out: self must be (*, C, H, W) with C divisible by the "
                      "square of upscale_factor %lld", static_cast<long long>(r));
  TL_KERNEL_CHECK(ctx, same_dtype_contiguous(self, out), InvalidArgument, out);

  // Resize
  const int64_t c = p.c / (r * r);
  int64_t sizes[kMaxDims];
  TL_KERNEL_CHECK(ctx,
                  resize_tensor(out, pixel_out_sizes(self, c, p.h * r, p.w * r, sizes)) ==
                      Error::Ok,
                  InvalidArgument, out);

  // Copy: out walks (c, h, i, w, j).
  const int64_t plane = p.h * p.w;
  const StridedView view = pixel_view(p.batch, {c, p.h, r, p.w, r},
                                      {r * r * plane, p.w, r * plane, 1, plane}, p.c * plane);
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "pixel_shuffle.out", W, [&] {
    strided_copy(static_cast<const W*>(self.data()), static_cast<W*>(out.data()), view);
  });
  return out;
}

}  // namespace tailor::native
