// Whole elementwise kernels in one call: validate out (shape, contiguity, a result dtype
// it can hold), switch over the dtypes an op takes, and apply a per-element function
// (util/elementwise.h). A kernel built on these is its op's arithmetic and dtype rules.
//
// The per-element function is generic (`[](auto x) { ... }`): it is called on the compute
// type M = acc_t<T> of out's dtype T (16-bit floats compute in float and round once).
// The mask is the caller's TL_SELECTED_DTYPE_MASK, passed as a template argument.
#pragma once

#include "kernels/portable/util/binary.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/unary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// The dtype sets of the TL_SWITCH_* macros, as a template argument.
enum class DtypeSet { Float, RealHBF16, Int, IntB, All };

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) with T the C++ type of `dtype`; a dtype outside kSet is reported
// as unsupported for `op`, one outside kMask as unselected.
template <DtypeSet kSet, uint32_t kMask, typename F>
void switch_dtype(KernelContext& ctx, const char* op, ScalarType dtype, const F& f) {
  if constexpr (kSet == DtypeSet::Float) {
    TL_SWITCH_FLOAT_TYPES_IN(kMask, dtype, ctx, op, T, [&] { f(TypeTag<T>{}); });
  } else if constexpr (kSet == DtypeSet::RealHBF16) {
    TL_SWITCH_REALHBF16_TYPES_IN(kMask, dtype, ctx, op, T, [&] { f(TypeTag<T>{}); });
  } else if constexpr (kSet == DtypeSet::Int) {
    TL_SWITCH_INT_TYPES_IN(kMask, dtype, ctx, op, T, [&] { f(TypeTag<T>{}); });
  } else if constexpr (kSet == DtypeSet::IntB) {
    TL_SWITCH_INTB_TYPES_IN(kMask, dtype, ctx, op, T, [&] { f(TypeTag<T>{}); });
  } else {
    TL_SWITCH_ALL_TYPES_IN(kMask, dtype, ctx, op, T, [&] { f(TypeTag<T>{}); });
  }
}

namespace elementwise_op_detail {

// Runs f over in[] into out, computed in out's dtype: f(x), f(x, y), or with kScalar
// f(x, scalar) with the Scalar converted to the compute type once.
template <DtypeSet kSet, uint32_t kMask, bool kScalar, size_t N, typename F>
void apply_in_out_dtype(KernelContext& ctx, const char* op, const Tensor* const (&in)[N],
                        const Scalar* scalar, Tensor& out, const F& f) {
  switch_dtype<kSet, kMask>(ctx, op, out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = acc_t<T>;
    if constexpr (N == 2) {
      apply_elementwise<M, T, kMask>(ctx, op, in, out,
                                     [f](M x, M y) { return static_cast<M>(f(x, y)); });
    } else if constexpr (kScalar) {
      const M s = scalar->to<M>();
      apply_elementwise<M, T, kMask>(ctx, op, in, out,
                                     [f, s](M x) { return static_cast<M>(f(x, s)); });
    } else {
      apply_elementwise<M, T, kMask>(ctx, op, in, out, [f](M x) { return static_cast<M>(f(x)); });
    }
  });
}

}  // namespace elementwise_op_detail

// out = f(self) for out's dtypes in kSet; `result` is torch's result dtype, which out
// must be able to hold (self's dtype, or float_result_type of it for a floating op).
template <DtypeSet kSet, uint32_t kMask, typename F>
Tensor& unary_op(KernelContext& ctx, const char* op, const Tensor& self, ScalarType result,
                 Tensor& out, const F& f) {
  TL_KERNEL_CHECK(ctx, check_unary_out(op, self, result, out), InvalidArgument, out);
  const Tensor* in[1] = {&self};
  elementwise_op_detail::apply_in_out_dtype<kSet, kMask, false>(ctx, op, in, nullptr, out, f);
  return out;
}

// A floating function (acos, log2, ...): integer and Bool inputs give a floating out.
template <uint32_t kMask, typename F>
Tensor& unary_float_op(KernelContext& ctx, const char* op, const Tensor& self, Tensor& out,
                       const F& f) {
  return unary_op<DtypeSet::Float, kMask>(ctx, op, self, float_result_type(self.dtype()), out,
                                          f);
}

// out = f(a, b), broadcast, in torch's promoted dtype (which out must hold).
template <DtypeSet kSet, uint32_t kMask, typename F>
Tensor& binary_op(KernelContext& ctx, const char* op, const Tensor& a, const Tensor& b,
                  Tensor& out, const F& f) {
  TL_KERNEL_CHECK(ctx, check_binary_out(op, a, b, out), InvalidArgument, out);
  const Tensor* in[2] = {&a, &b};
  elementwise_op_detail::apply_in_out_dtype<kSet, kMask, false>(ctx, op, in, nullptr, out, f);
  return out;
}

// out = f(a, b) for a Scalar b, in torch's promoted dtype (which out must hold).
template <DtypeSet kSet, uint32_t kMask, typename F>
Tensor& scalar_op(KernelContext& ctx, const char* op, const Tensor& a, const Scalar& b,
                  Tensor& out, const F& f) {
  TL_KERNEL_CHECK(ctx, check_scalar_out(op, a, b, out), InvalidArgument, out);
  const Tensor* in[1] = {&a};
  elementwise_op_detail::apply_in_out_dtype<kSet, kMask, true>(ctx, op, in, &b, out, f);
  return out;
}

// f on floating values; integers pass unchanged (math:: would round a Long through double).
template <typename F>
auto floats_only(F f) {
  return [f](auto x) {
    if constexpr (is_integral_v<decltype(x)>) {
      return x;
    } else {
      return f(x);
    }
  };
}

// A rounding op (ceil, floor, round, trunc): f on floating values, in self's dtype;
// integers are already integral and pass unchanged. torch has no Bool rounding.
template <uint32_t kMask, typename F>
Tensor& rounding_op(KernelContext& ctx, const char* op, const Tensor& self, Tensor& out,
                    const F& f) {
  return unary_op<DtypeSet::RealHBF16, kMask>(ctx, op, self, self.dtype(), out,
                                              floats_only(f));
}

// out = f(self) for a test of the value (isnan, isinf): any input dtype, read as double
// (exact for every dtype's NaN and infinities); out written as 0 or 1 in its dtype.
template <uint32_t kMask, typename F>
Tensor& unary_predicate_op(KernelContext& ctx, const char* op, const Tensor& self, Tensor& out,
                           const F& f) {
  TL_KERNEL_CHECK(ctx, check_unary_out(op, self, ScalarType::Bool, out), InvalidArgument, out);
  const Tensor* in[1] = {&self};
  switch_dtype<DtypeSet::All, kMask>(ctx, op, out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    apply_elementwise<double, T, kMask>(ctx, op, in, out, [f](double x) { return f(x); });
  });
  return out;
}

// out = f(a, b) on truth values (nonzero is true), broadcast; any input dtypes, out written
// as 0 or 1 in its dtype.
template <uint32_t kMask, typename F>
Tensor& logical_op(KernelContext& ctx, const char* op, const Tensor& a, const Tensor& b,
                   Tensor& out, const F& f) {
  const Tensor* in[2] = {&a, &b};
  TL_KERNEL_CHECK_MSG(ctx, resize_to_broadcast(out, in, 2), InvalidArgument, out,
                      "%s: shapes do not broadcast to the out tensor", op);
  TL_KERNEL_CHECK_MSG(ctx,
                      is_default_dim_order(a) && is_default_dim_order(b) &&
                          is_default_dim_order(out),
                      InvalidArgument, out, "%s: tensors must be contiguous", op);
  switch_dtype<DtypeSet::All, kMask>(ctx, op, out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    apply_elementwise<bool, T, kMask>(ctx, op, in, out, [f](bool x, bool y) { return f(x, y); });
  });
  return out;
}

}  // namespace tailor::native
