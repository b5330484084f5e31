#include "kernels/optimized/util/vec.h"
#include "kernels/optimized/util/window.h"
#include "kernels/portable/util/max_pool.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {
namespace {

using tailor::native::lowest_value;
using tailor::native::max_pool_cell;
using tailor::native::PoolWindow;

// One output row of one plane: W output columns at a time across the columns whose
// windows lie inside the input when the stride is 1 or 2 (the others, and the edges, one
// cell at a time as portable does). A lane keeps its running maximum and index and takes
// a tap by a select, in the scalar loop's order (rows, then columns; the first maximum
// wins ties, the last NaN wins).
struct MaxPoolRow {
  template <int W>
  TL_VEC_INLINE static void run(const float* src, int64_t in_w, const PoolWindow* pw,
                                int64_t h0, int64_t h1, int64_t inner_begin,
                                int64_t inner_end, float* dst, int64_t* idx) {
    using VecI = typename Vec<W>::I;
    typedef int64_t VecL __attribute__((vector_size(8 * W)));
    const PoolWindow w = *pw;
    const int64_t span_w = (w.kernel_w - 1) * w.dilation_w;
    VecF<W> lane_offset;
    for (int l = 0; l < W; ++l) lane_offset[l] = static_cast<float>(l * w.stride_w);
    int64_t ow = 0;
    for (; ow < inner_begin; ++ow) max_pool_cell(src, in_w, w, h0, h1, ow, dst + ow, idx + ow);
    while (ow < inner_end) {
      // The last vector of a row overlaps the one before rather than leave its cells to
      // the scalar loop (7 of ResNet's 56 columns took most of the row's time): the
      // overlapping cells get the same values again. It ends where its loads still fit
      // the row (stride 2 reads 2W columns).
      if (ow + W > inner_end) {
        int64_t last = inner_end - W;
        while (last > ow - W && last >= inner_begin &&
               !window_vector_fits(last * w.stride_w - w.pad_w, span_w, w.stride_w, W, in_w)) {
          --last;
        }
        if (last <= ow - W || last < inner_begin) break;
        ow = last;
      }
      const int64_t x0 = ow * w.stride_w - w.pad_w;  // lane 0's first column
      if (!window_vector_fits(x0, span_w, w.stride_w, W, in_w)) break;
      VecF<W> best = VecF<W>{} + lowest_value<float>();
      VecF<W> best_at = lane_offset + static_cast<float>(h0 * in_w + x0);
      VecF<W> nan_probe = {};
      for (int64_t h = h0; h < h1; h += w.dilation_h) {
        for (int64_t x = x0; x <= x0 + span_w; x += w.dilation_w) {
          VecF<W> v;
          vec_load_every<W>(src + h * in_w + x, w.stride_w, v);
          const VecF<W> at = lane_offset + static_cast<float>(h * in_w + x);
          best_at = v > best ? at : best_at;
          best = v > best ? v : best;
          nan_probe += v * 0.0f;
        }
      }
      // A NaN tap (or an infinity: inf * 0 is NaN too) sends these cells to the scalar
      // loop, which gives NaN its torch rule (the last one wins). Testing v != v in the
      // loop above instead would make GCC go lane by lane without AVX-512DQ.
      if (vec_sum<W>(nan_probe) != 0.0f) {
        for (int64_t c = ow; c < ow + W; ++c) {
          max_pool_cell(src, in_w, w, h0, h1, c, dst + c, idx + c);
        }
      } else {
        vec_store<W>(dst + ow, best);
        const VecL wide = __builtin_convertvector(__builtin_convertvector(best_at, VecI), VecL);
        __builtin_memcpy(idx + ow, &wide, sizeof(wide));
      }
      ow += W;
    }
    for (; ow < w.out_w; ++ow) max_pool_cell(src, in_w, w, h0, h1, ow, dst + ow, idx + ow);
  }
};

// Integers up to this are exact in a float.
constexpr int64_t kExactFloatInts = int64_t{1} << 24;

}  // namespace

// max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[],
//                             int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *,
//                             Tensor(a!) out, Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))
// Float only (the other dtypes go to portable): the same results as portable's kernel,
// vectors across each output row's inner windows.
void max_pool2d_with_indices_out(KernelContext& ctx, const Tensor& self,
                                 IntArrayRef kernel_size, IntArrayRef stride,
                                 IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                 Tensor& out, Tensor& indices) {
  // Validate and resize
  tailor::native::PoolPlanes in;
  PoolWindow w;
  if (!tailor::native::check_max_pool2d_with_indices(ctx, self, kernel_size, stride, padding,
                                                     dilation, ceil_mode, out, indices, &in,
                                                     &w)) {
    return;
  }
  TL_KERNEL_CHECK(ctx, self.dtype() == ScalarType::Float, InvalidArgument, );

  // Compute. The inner columns have every tap inside the row (util/window.h); the
  // lanes hold indices in floats, so a plane past 2^24 goes one cell at a time, as
  // does a stride over 2 (a gather lane by lane costs more than it saves).
  InnerColumns inner =
      window_inner_columns(in.in_w, w.out_w, w.kernel_w, w.stride_w, w.pad_w, w.dilation_w);
  if (w.stride_w > 2 || in.in_h * in.in_w > kExactFloatInts) {
    inner.begin = inner.end = w.out_w;
  }
  // Output rows over the threads: a cell takes a window of taps.
  const int64_t plane_out = w.out_h * w.out_w;
  const float* self_data = self.const_data<float>();
  float* out_data = out.mutable_data<float>();
  int64_t* index_data = indices.mutable_data<int64_t>();
  ctx.parallel_range(in.planes * w.out_h, w.out_w * w.kernel_h * w.kernel_w,
                     [&](int64_t begin, int64_t end, KernelScratch&) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t p = row / w.out_h;
      const int64_t oh = row % w.out_h;
      const float* src = self_data + p * in.in_h * in.in_w;
      const int64_t start = oh * w.stride_h - w.pad_h;
      const int64_t h0 = tailor::native::max_pool_first_tap(start, w.dilation_h);
      const int64_t h1 =
          tailor::native::max_pool_tap_end(start, w.kernel_h, w.dilation_h, in.in_h);
      const int64_t at = p * plane_out + oh * w.out_w;
      vec_run<MaxPoolRow>(src, in.in_w, &w, h0, h1, inner.begin, inner.end, out_data + at,
                          index_data + at);
    }
  });
}

}  // namespace tailor::optimized::native
