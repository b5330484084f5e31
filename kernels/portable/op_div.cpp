#include "kernels/portable/util/binary.h"
#include "kernels/portable/util/divide.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// div.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
// True division, broadcast; integer inputs give a floating out, as in torch.
Tensor& div_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_binary_out("div.out", self, other, out), InvalidArgument, out);

  // Compute
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("div.out");
  const Tensor* in[2] = {&self, &other};
  TL_SWITCH_FLOAT_TYPES(out.dtype(), ctx, "div.out", T, [&] {
    using M = acc_t<T>;
    apply_elementwise<M, T, kMask>(ctx, "div.out", in, out, [](M x, M y) { return x / y; });
  });
  return out;
}

// div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out) -> Tensor(a!)
Tensor& div_out_mode(KernelContext& ctx, const Tensor& self, const Tensor& other,
                     Optional<const char*> rounding_mode, Tensor& out) {
  // Validate
  div_detail::Mode mode;
  TL_KERNEL_CHECK_MSG(ctx, div_detail::parse_mode(rounding_mode, &mode), InvalidArgument, out,
                      "div.out_mode: rounding_mode must be None, 'trunc' or 'floor'");
  TL_KERNEL_CHECK(ctx, check_binary_out("div.out_mode", self, other, out), InvalidArgument, out);
  TL_KERNEL_CHECK_MSG(ctx, mode != div_detail::Mode::True || is_floating_type(out.dtype()),
                      InvalidArgument, out, "div.out_mode: true division needs a floating out");

  // Compute
  const Tensor* in[2] = {&self, &other};
  div_detail::run<TL_SELECTED_DTYPE_MASK("div.out_mode")>(ctx, "div.out_mode", in, Scalar(), mode,
                                                          out);
  return out;
}

// div.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)
Tensor& div_scalar_out(KernelContext& ctx, const Tensor& self, const Scalar& other,
                       Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_scalar_out("div.Scalar_out", self, other, out), InvalidArgument,
                  out);

  // Compute
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("div.Scalar_out");
  const Tensor* in[1] = {&self};
  TL_SWITCH_FLOAT_TYPES(out.dtype(), ctx, "div.Scalar_out", T, [&] {
    using M = acc_t<T>;
    const M b = other.to<M>();
    apply_elementwise<M, T, kMask>(ctx, "div.Scalar_out", in, out, [b](M x) { return x / b; });
  });
  return out;
}

// div.Scalar_mode_out(Tensor self, Scalar other, *, str? rounding_mode, Tensor(a!) out)
//     -> Tensor(a!)
Tensor& div_scalar_mode_out(KernelContext& ctx, const Tensor& self, const Scalar& other,
                            Optional<const char*> rounding_mode, Tensor& out) {
  // Validate
  div_detail::Mode mode;
  TL_KERNEL_CHECK_MSG(ctx, div_detail::parse_mode(rounding_mode, &mode), InvalidArgument, out,
                      "div.Scalar_mode_out: rounding_mode must be None, 'trunc' or 'floor'");
  TL_KERNEL_CHECK(ctx, check_scalar_out("div.Scalar_mode_out", self, other, out),
                  InvalidArgument, out);
  TL_KERNEL_CHECK_MSG(ctx, mode != div_detail::Mode::True || is_floating_type(out.dtype()),
                      InvalidArgument, out,
                      "div.Scalar_mode_out: true division needs a floating out");

  // Compute
  const Tensor* in[1] = {&self};
  div_detail::run<TL_SELECTED_DTYPE_MASK("div.Scalar_mode_out")>(ctx, "div.Scalar_mode_out", in,
                                                                 other, mode, out);
  return out;
}

}  // namespace tailor::native
