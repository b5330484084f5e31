#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/reduce.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native::linalg_vector_norm_detail {

// The norm of one output element's values, by its order: a sum of |x|^ord (rooted), a
// count of nonzeros (0), or the largest (inf) or smallest (-inf) magnitude. NaN passes
// through each of them, as in torch.
enum class Kind { kCount, kMax, kMin, kOne, kTwo, kPower };

inline Kind kind_of(double ord) {
  if (ord == 0.0) return Kind::kCount;
  if (ord == __builtin_inf()) return Kind::kMax;
  if (ord == -__builtin_inf()) return Kind::kMin;
  if (ord == 1.0) return Kind::kOne;
  if (ord == 2.0) return Kind::kTwo;
  return Kind::kPower;
}

template <typename Acc>
struct Norm {
  Kind kind;
  Acc ord;
  Acc acc;

  void start() { acc = kind == Kind::kMin ? Acc(__builtin_inf()) : Acc(0); }

  void add(Acc x) {
    const Acc a = math::fabs(x);
    switch (kind) {
      case Kind::kCount: acc += x != Acc(0) ? Acc(1) : Acc(0); break;
      case Kind::kMax: acc = (a > acc || a != a) && acc == acc ? a : acc; break;
      case Kind::kMin: acc = (a < acc || a != a) && acc == acc ? a : acc; break;
      case Kind::kOne: acc += a; break;
      case Kind::kTwo: acc += x * x; break;
      case Kind::kPower: acc += math::pow(a, ord); break;
    }
  }

  Acc finish() const {
    switch (kind) {
      case Kind::kTwo: return math::sqrt(acc);
      case Kind::kPower: return math::pow(acc, Acc(1) / ord);
      default: return acc;
    }
  }
};

}  // namespace tailor::native::linalg_vector_norm_detail

namespace tailor::native {

// linalg_vector_norm.out(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False,
//                        *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)
// The ord-norm of a floating tensor over `dim` (None or [] reduces every dim), in the
// result dtype (`dtype` if given, else self's), summed in its accumulation type:
// (sum |x|^ord)^(1/ord), the count of nonzeros for ord 0, max |x| for inf, min |x| for
// -inf. As torch, an empty reduction gives 0 but for inf and ord < 0, which have none.
Tensor& linalg_vector_norm_out(KernelContext& ctx, const Tensor& self, const Scalar& ord,
                               Optional<IntArrayRef> dim, bool keepdim,
                               Optional<ScalarType> dtype, Tensor& out) {
  using linalg_vector_norm_detail::Kind;
  // Validate
  const ScalarType want = dtype.value_or(self.dtype());
  TL_KERNEL_CHECK_MSG(ctx, is_floating_type(self.dtype()) && out.dtype() == want &&
                               is_floating_type(want),
                      InvalidArgument, out,
                      "linalg_vector_norm.out: self (%s) and out (%s) must be floating, out "
                      "of dtype %s", scalar_type_name(self.dtype()),
                      scalar_type_name(out.dtype()), scalar_type_name(want));
  const IntArrayRef dims = dim.value_or(IntArrayRef());
  ReducePlan plan;
  if (!plan_reduction(ctx, self, dims.data(), dims.size(), dims.empty(), keepdim,
                      "linalg_vector_norm.out", out, &plan)) {
    return out;
  }
  const double p = ord.to<double>();
  const Kind kind = linalg_vector_norm_detail::kind_of(p);
  TL_KERNEL_CHECK_MSG(ctx, plan.reduce_numel() > 0 || !(kind == Kind::kMax || p < 0.0),
                      InvalidArgument, out,
                      "linalg_vector_norm.out: the norm of order %g of no elements is not "
                      "defined", p);

  // Compute
  TL_SWITCH_FLOAT_TYPES(self.dtype(), ctx, "linalg_vector_norm.out", IN, [&] {
    TL_SWITCH_FLOAT_TYPES(out.dtype(), ctx, "linalg_vector_norm.out", OUT, [&] {
      using Acc = acc_t<OUT>;
      const IN* src = self.const_data<IN>();
      OUT* dst = out.mutable_data<OUT>();
      linalg_vector_norm_detail::Norm<Acc> norm{kind, static_cast<Acc>(p), Acc(0)};
      for (int64_t o = 0; o < plan.out_numel(); ++o) {
        norm.start();
        plan.visit(plan.base_offset(o), [&](int64_t offset, int64_t) {
          norm.add(static_cast<Acc>(static_cast<OUT>(src[offset])));
        });
        dst[o] = static_cast<OUT>(norm.finish());
      }
    });
  });
  return out;
}

}  // namespace tailor::native
