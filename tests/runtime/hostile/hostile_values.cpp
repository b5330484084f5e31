// Drives real kernels and runtime pieces with hostile values under ASan/UBSan (with
// float-cast-overflow): each case prints "<name>: ok" or what went wrong. Every case
// must end in a defined result or a kernel error, never undefined behaviour.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "runtime/core/evalue.h"
#include "runtime/core/optional.h"
#include "runtime/core/scalar.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_context.h"
#include "runtime/kernel/registry.h"

using namespace tailor;

namespace tailor::native {
Tensor& view_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef size, Tensor& out);
void split_with_sizes_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef split_sizes,
                               int64_t dim, TensorList out);
Tensor& arange_start_out(KernelContext& ctx, const Scalar& start, const Scalar& end,
                         const Scalar& step, Tensor& out);
Tensor& add_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out);
Tensor& sub_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out);
Tensor& mul_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
Tensor& where_self_out(KernelContext& ctx, const Tensor& condition, const Tensor& self,
                       const Tensor& other, Tensor& out);
Tensor& logical_not_out(KernelContext& ctx, const Tensor& self, Tensor& out);
Tensor& logical_and_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                        Tensor& out);
Tensor& any_all_out(KernelContext& ctx, const Tensor& self, Tensor& out);
Tensor& index_tensor_out(KernelContext& ctx, const Tensor& self, OptionalTensorList indices,
                         Tensor& out);
Tensor& _to_copy_out(KernelContext& ctx, const Tensor& self, bool non_blocking,
                     Optional<int64_t> memory_format, Tensor& out);
Tensor& eq_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                      Tensor& out);
Tensor& bitwise_not_out(KernelContext& ctx, const Tensor& self, Tensor& out);
Tensor& bitwise_and_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                               Tensor& out);
Tensor& maximum_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
Tensor& sum_intlist_out(KernelContext& ctx, const Tensor& self, Optional<IntArrayRef> dim,
                        bool keepdim, Optional<ScalarType> dtype, Tensor& out);
Tensor& amax_out(KernelContext& ctx, const Tensor& self, IntArrayRef dim, bool keepdim,
                 Tensor& out);
Tensor& cumsum_out(KernelContext& ctx, const Tensor& self, int64_t dim,
                   Optional<ScalarType> dtype, Tensor& out);
}  // namespace tailor::native

namespace tailor::prim::native {
int64_t add_int(KernelContext& ctx, int64_t a, int64_t b);
int64_t sub_int(KernelContext& ctx, int64_t a, int64_t b);
int64_t mul_int(KernelContext& ctx, int64_t a, int64_t b);
int64_t floordiv_int(KernelContext& ctx, int64_t a, int64_t b);
int64_t mod_int(KernelContext& ctx, int64_t a, int64_t b);
}  // namespace tailor::prim::native

// The runtime's registry needs a table; nothing here looks a kernel up.
namespace tailor::gen {
const KernelEntry kKernels[] = {{"test::none", "", nullptr, nullptr}};
const size_t kNumKernels = 0;
const internal::PrepackPath* const kPrepackPath = nullptr;
}  // namespace tailor::gen

namespace {

int g_failures = 0;

void report(const char* name, bool ok) {
  printf("%s: %s\n", name, ok ? "ok" : "FAILED");
  g_failures += ok ? 0 : 1;
}

// A tensor over caller storage; dynamic so kernels may resize it within its capacity.
struct Holder {
  int32_t sizes[4];
  int64_t strides[4];
  uint8_t order[4] = {0, 1, 2, 3};
  Tensor t;
  Holder(ScalarType dtype, size_t dim, const int32_t* s, void* data, size_t capacity) {
    memcpy(sizes, s, dim * sizeof(int32_t));
    t = Tensor(dtype, dim, sizes, order, strides, data, capacity, true);
  }
};

// Every kernel that reads Bool elements, run over the Bool tensors `a` and `b` (8 bytes
// each): their results, laid one after another in `out`; false if a kernel failed.
constexpr size_t kBoolElems = 8;
struct BoolResults {
  float where[kBoolElems], index[kBoolElems], to_float[kBoolElems];
  int64_t to_long[kBoolElems], sum, cumsum[kBoolElems], index_count;
  uint8_t unary[2][kBoolElems], binary[5][kBoolElems], any, amax;  // Bool out
};

using BoolUnary = Tensor& (*)(KernelContext&, const Tensor&, Tensor&);
using BoolBinary = Tensor& (*)(KernelContext&, const Tensor&, const Tensor&, Tensor&);
const BoolUnary kBoolUnary[2] = {native::logical_not_out, native::bitwise_not_out};
const BoolBinary kBoolBinary[5] = {native::logical_and_out, native::eq_tensor_out,
                                   native::bitwise_and_tensor_out, native::maximum_out,
                                   native::mul_out};

bool run_bool_kernels(uint8_t* a, uint8_t* b, BoolResults* r) {
  memset(r, 0, sizeof(*r));
  const int32_t n[1] = {kBoolElems};
  const int32_t one[1] = {1};
  float x[kBoolElems], y[kBoolElems];
  for (size_t i = 0; i < kBoolElems; ++i) {
    x[i] = static_cast<float>(i + 1);
    y[i] = -x[i];
  }
  Holder ha(ScalarType::Bool, 1, n, a, kBoolElems), hb(ScalarType::Bool, 1, n, b, kBoolElems),
      hx(ScalarType::Float, 1, n, x, sizeof(x)), hy(ScalarType::Float, 1, n, y, sizeof(y));
  KernelContext ctx;
  {
    Holder o(ScalarType::Float, 1, n, r->where, sizeof(r->where));
    native::where_self_out(ctx, ha.t, hx.t, hy.t, o.t);
  }
  {
    Holder o(ScalarType::Float, 1, n, r->index, sizeof(r->index));
    Tensor* indices[1] = {&ha.t};
    native::index_tensor_out(ctx, hx.t, OptionalTensorList(indices, 1), o.t);
    r->index_count = o.t.numel();
  }
  {
    Holder o(ScalarType::Float, 1, n, r->to_float, sizeof(r->to_float));
    native::_to_copy_out(ctx, ha.t, false, Optional<int64_t>(), o.t);
    Holder l(ScalarType::Long, 1, n, r->to_long, sizeof(r->to_long));
    native::_to_copy_out(ctx, ha.t, false, Optional<int64_t>(), l.t);
  }
  {
    Holder o(ScalarType::Long, 0, one, &r->sum, sizeof(r->sum));  // 0-d
    native::sum_intlist_out(ctx, ha.t, Optional<IntArrayRef>(), false,
                            Optional<ScalarType>(), o.t);
    Holder c(ScalarType::Long, 1, n, r->cumsum, sizeof(r->cumsum));
    native::cumsum_out(ctx, ha.t, 0, Optional<ScalarType>(), c.t);
  }
  for (size_t k = 0; k < 2; ++k) {
    Holder o(ScalarType::Bool, 1, n, r->unary[k], kBoolElems);
    kBoolUnary[k](ctx, ha.t, o.t);
  }
  for (size_t k = 0; k < 5; ++k) {
    Holder o(ScalarType::Bool, 1, n, r->binary[k], kBoolElems);
    kBoolBinary[k](ctx, ha.t, hb.t, o.t);
  }
  {
    Holder o(ScalarType::Bool, 0, one, &r->any, 1);  // 0-d
    native::any_all_out(ctx, ha.t, o.t);
    Holder m(ScalarType::Bool, 0, one, &r->amax, 1);
    const int64_t dims[1] = {0};
    native::amax_out(ctx, ha.t, IntArrayRef(dims, 1), false, m.t);
  }
  return ctx.failure_state() == Error::Ok;
}

// True when every Bool result byte is 0 or 1.
bool bool_results_are_0_or_1(const BoolResults& r) {
  bool ok = r.any <= 1 && r.amax <= 1;
  for (size_t i = 0; i < kBoolElems; ++i) {
    for (const auto& row : r.unary) ok = ok && row[i] <= 1;
    for (const auto& row : r.binary) ok = ok && row[i] <= 1;
  }
  return ok;
}

}  // namespace

int main() {
  // An empty tensor may have huge sizes in its other dims: strides saturate.
  {
    const int32_t s[4] = {0, INT32_MAX, INT32_MAX, INT32_MAX};
    Holder h(ScalarType::Float, 4, s, nullptr, 0);
    report("empty tensor strides", h.t.numel() == 0 && h.t.strides()[0] == INT64_MAX &&
                                       h.t.strides()[3] == 1);
  }
  // view_copy: a size product past int64 is an error.
  {
    const int32_t s[1] = {0};
    Holder in(ScalarType::Float, 1, s, nullptr, 0);
    Holder out(ScalarType::Float, 3, (const int32_t[]){0, 0, 0}, nullptr, 0);
    const int64_t size[3] = {int64_t{1} << 40, int64_t{1} << 40, 0};
    KernelContext ctx;
    native::view_copy_out(ctx, in.t, IntArrayRef(size, 3), out.t);
    report("view_copy size product", ctx.failure_state() == Error::InvalidArgument);
  }
  // split_with_sizes: a sum past int64 is an error.
  {
    float data[4] = {};
    const int32_t s[1] = {4};
    Holder in(ScalarType::Float, 1, s, data, sizeof(data));
    float o[3][4] = {};
    Holder a(ScalarType::Float, 1, s, o[0], 16), b(ScalarType::Float, 1, s, o[1], 16),
        c(ScalarType::Float, 1, s, o[2], 16);
    Tensor* outs[3] = {&a.t, &b.t, &c.t};
    const int64_t sizes[3] = {INT64_MAX, INT64_MAX, 6};
    KernelContext ctx;
    native::split_with_sizes_copy_out(ctx, in.t, IntArrayRef(sizes, 3), 0,
                                      TensorList(outs, 3));
    report("split_with_sizes sum", ctx.failure_state() == Error::InvalidArgument);
  }
  // arange: an infinite or huge length is an error.
  {
    int64_t data[8] = {};
    const int32_t s[1] = {8};
    const double ends[3] = {INFINITY, 1e300, 4.0};
    const double steps[3] = {1.0, 1e-300, 1e-300};
    bool ok = true;
    for (int i = 0; i < 3; ++i) {
      Holder out(ScalarType::Long, 1, s, data, sizeof(data));
      KernelContext ctx;
      native::arange_start_out(ctx, Scalar(0.0), Scalar(ends[i]), Scalar(steps[i]), out.t);
      ok = ok && ctx.failure_state() == Error::InvalidArgument;
    }
    // Integer arange at the edge of int64 (computed unsigned, so it could not overflow).
    Holder out(ScalarType::Long, 1, s, data, sizeof(data));
    KernelContext ctx;
    native::arange_start_out(ctx, Scalar(INT64_MIN), Scalar(INT64_MAX),
                             Scalar(int64_t{1} << 62), out.t);
    ok = ok && ctx.failure_state() == Error::Ok && out.t.numel() == 4 &&
         data[0] == INT64_MIN && data[3] == int64_t{1} << 62;
    report("arange length", ok);
  }
  // Scalar -> integer conversion saturates.
  {
    report("scalar to int64", Scalar(1e30).to<int64_t>() == INT64_MAX &&
                                  Scalar(-1e30).to<int64_t>() == INT64_MIN &&
                                  Scalar(NAN).to<int64_t>() == 0 &&
                                  Scalar(1e10).to<int32_t>() == INT32_MAX &&
                                  Scalar(-5.0).to<uint8_t>() == 0 &&
                                  Scalar(-7.9).to<int64_t>() == -7);
  }
  // Integer add/sub/mul wrap around in two's complement.
  {
    const int32_t s[1] = {3};
    int64_t x[3] = {INT64_MAX, INT64_MIN, INT64_MAX};
    int64_t y[3] = {1, 1, 2};
    int64_t r[3] = {};
    Holder hx(ScalarType::Long, 1, s, x, sizeof(x)), hy(ScalarType::Long, 1, s, y, sizeof(y)),
        hr(ScalarType::Long, 1, s, r, sizeof(r));
    KernelContext ctx;
    native::add_out(ctx, hx.t, hy.t, Scalar(int64_t{1}), hr.t);
    bool ok = ctx.failure_state() == Error::Ok && r[0] == INT64_MIN && r[1] == INT64_MIN + 1 &&
              r[2] == INT64_MIN + 1;
    native::sub_out(ctx, hy.t, hx.t, Scalar(int64_t{1}), hr.t);  // 1 - MAX, 1 - MIN, 2 - MAX
    ok = ok && ctx.failure_state() == Error::Ok && r[0] == INT64_MIN + 2 &&
         r[1] == INT64_MIN + 1 && r[2] == INT64_MIN + 3;
    native::mul_out(ctx, hx.t, hy.t, hr.t);
    ok = ok && ctx.failure_state() == Error::Ok && r[0] == INT64_MAX && r[1] == INT64_MIN &&
         r[2] == -2;
    native::add_out(ctx, hx.t, hx.t, Scalar(int64_t{-3}), hr.t);  // alpha * other wraps too
    ok = ok && ctx.failure_state() == Error::Ok;
    int32_t xi[3] = {INT32_MAX, INT32_MIN, 2};
    int32_t ri[3] = {};
    Holder hxi(ScalarType::Int, 1, s, xi, sizeof(xi)), hri(ScalarType::Int, 1, s, ri, sizeof(ri));
    native::mul_out(ctx, hxi.t, hxi.t, hri.t);
    ok = ok && ctx.failure_state() == Error::Ok && ri[0] == 1 && ri[1] == 0 && ri[2] == 4;
    report("int add sub mul wrap", ok);
  }
  // Symbolic-size arithmetic: overflow is an error.
  {
    bool ok = true;
    KernelContext ctx;
    prim::native::add_int(ctx, INT64_MAX, 1);
    ok = ok && ctx.failure_state() == Error::InvalidArgument;
    ctx.reset();
    prim::native::sub_int(ctx, INT64_MIN, 1);
    ok = ok && ctx.failure_state() == Error::InvalidArgument;
    ctx.reset();
    prim::native::mul_int(ctx, INT64_MAX, 2);
    ok = ok && ctx.failure_state() == Error::InvalidArgument;
    ctx.reset();
    prim::native::floordiv_int(ctx, INT64_MIN, -1);
    ok = ok && ctx.failure_state() == Error::InvalidArgument;
    ctx.reset();
    ok = ok && prim::native::mod_int(ctx, INT64_MIN, -1) == 0 && ctx.failure_state() == Error::Ok;
    ok = ok && prim::native::floordiv_int(ctx, -7, 2) == -4 && prim::native::mul_int(ctx, 6, 7) == 42;
    report("prim int arithmetic", ok && ctx.failure_state() == Error::Ok);
  }
  // Bool elements hold any byte (a crafted memory plan lays a Bool tensor over another
  // dtype's output): nonzero reads as true, so every kernel gives what it gives on the
  // same tensors with each byte made 0 or 1, and writes Bool results as 0 or 1.
  {
    uint8_t a[kBoolElems] = {0x00, 0x02, 0xff, 0x01, 0x80, 0x00, 0x10, 0x01};
    uint8_t b[kBoolElems] = {0x03, 0x00, 0xfe, 0x00, 0x01, 0x40, 0x00, 0x01};
    uint8_t a01[kBoolElems], b01[kBoolElems];
    int64_t true_count = 0;
    for (size_t i = 0; i < kBoolElems; ++i) {
      true_count += a[i] != 0 ? 1 : 0;
      a01[i] = a[i] != 0 ? 1 : 0;
      b01[i] = b[i] != 0 ? 1 : 0;
    }
    BoolResults hostile, clean;
    const bool ok = run_bool_kernels(a, b, &hostile) && run_bool_kernels(a01, b01, &clean);
    report("bool bytes other than 0 and 1",
           ok && memcmp(&hostile, &clean, sizeof(hostile)) == 0 &&
               bool_results_are_0_or_1(hostile) && clean.sum == true_count &&
               clean.index_count == true_count);
  }
  return g_failures == 0 ? 0 : 1;
}
