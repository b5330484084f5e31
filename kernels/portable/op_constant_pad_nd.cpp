#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native::constant_pad_nd_detail {

// Pads beyond this are refused, so sizes plus pads stay far inside int64 (a tensor's
// sizes are int32 anyway).
constexpr int64_t kMaxPad = int64_t(1) << 31;

// The unsigned integer of N bytes: the copy depends on the element size alone, so each
// size is compiled once whatever the dtypes.
template <size_t N>
struct Word;
template <>
struct Word<1> {
  using type = uint8_t;
};
template <>
struct Word<2> {
  using type = uint16_t;
};
template <>
struct Word<4> {
  using type = uint32_t;
};
template <>
struct Word<8> {
  using type = uint64_t;
};

inline int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

// Writes contiguous `dst` (out_sizes, rank >= 1, no size 0) from contiguous `src`
// (in_sizes): output coordinate o reads input o - before[d] in every dim d, and `fill`
// where that lies outside the input. Row by row along the last dim.
template <typename W>
void pad_copy(const W* src, W* dst, const int64_t* in_sizes, const int64_t* out_sizes,
              const int64_t* before, int64_t rank, W fill) {
  const int64_t last = rank - 1;
  const int64_t width = out_sizes[last];
  const int64_t shift = before[last];
  // Output columns [c0, c1) copy input columns [c0 - shift, c1 - shift).
  const int64_t c0 = clamp(shift, 0, width);
  const int64_t c1 = clamp(shift + in_sizes[last], c0, width);
  int64_t in_strides[kMaxDims];
  contiguous_strides(IntArrayRef(in_sizes, static_cast<size_t>(rank)), in_strides);
  int64_t rows = 1;
  for (int64_t d = 0; d < last; ++d) {
    rows *= out_sizes[d];
  }
  int64_t counter[kMaxDims] = {};  // the output row's coordinates in dims [0, last)
  for (int64_t r = 0; r < rows; ++r, dst += width) {
    // The input row it reads, if every coordinate falls inside the input.
    bool inside = c0 < c1;
    int64_t offset = 0;
    for (int64_t d = 0; d < last && inside; ++d) {
      const int64_t i = counter[d] - before[d];
      inside = i >= 0 && i < in_sizes[d];
      offset += i * in_strides[d];
    }
    int64_t j = 0;
    if (inside) {
      for (; j < c0; ++j) {
        dst[j] = fill;
      }
      __builtin_memcpy(dst + c0, src + offset + (c0 - shift),
                       static_cast<size_t>(c1 - c0) * sizeof(W));
      j = c1;
    }
    for (; j < width; ++j) {
      dst[j] = fill;
    }
    for (int64_t d = last - 1; d >= 0; --d) {
      if (++counter[d] < out_sizes[d]) {
        break;
      }
      counter[d] = 0;
    }
  }
}

}  // namespace tailor::native::constant_pad_nd_detail

namespace tailor::native {

// constant_pad_nd.out(Tensor self, SymInt[] pad, Scalar value=0, *, Tensor(a!) out)
//     -> Tensor(a!)
// Pads the last len(pad) / 2 dims: pad[0] and pad[1] widen the last dim before and after,
// pad[2] and pad[3] the one before it, and so on, with `value` converted to self's dtype.
// Negative pads crop.
Tensor& constant_pad_nd_out(KernelContext& ctx, const Tensor& self, IntArrayRef pad,
                            const Scalar& value, Tensor& out) {
  using constant_pad_nd_detail::kMaxPad;
  using constant_pad_nd_detail::pad_copy;
  using constant_pad_nd_detail::Word;
  // Validate
  const int64_t rank = self.dim();
  const int64_t padded = static_cast<int64_t>(pad.size()) / 2;
  TL_KERNEL_CHECK_MSG(ctx, rank <= static_cast<int64_t>(kMaxDims), InvalidArgument, out,
                      "constant_pad_nd.out: input has %lld dims, at most %zu supported",
                      static_cast<long long>(rank), kMaxDims);
  TL_KERNEL_CHECK_MSG(ctx, pad.size() % 2 == 0 && padded <= rank, InvalidArgument, out,
                      "constant_pad_nd.out: pad has %zu values; it needs pairs, at most 2 per "
                      "dim of the %lld-d input", pad.size(), static_cast<long long>(rank));
  TL_KERNEL_CHECK(ctx, same_dtype_contiguous(self, out), InvalidArgument, out);

  // A 0-d tensor (no pads) copies its one element as a [1].
  const int64_t dims = rank > 0 ? rank : 1;
  int64_t in_sizes[kMaxDims];
  int64_t out_sizes[kMaxDims];
  int64_t before[kMaxDims];
  for (int64_t d = 0; d < dims; ++d) {
    in_sizes[d] = rank > 0 ? self.size(d) : 1;
    out_sizes[d] = in_sizes[d];
    before[d] = 0;
  }
  for (int64_t i = 0; i < padded; ++i) {
    const int64_t d = rank - 1 - i;
    const int64_t lo = pad[static_cast<size_t>(2 * i)];
    const int64_t hi = pad[static_cast<size_t>(2 * i + 1)];
    TL_KERNEL_CHECK_MSG(ctx, lo >= -kMaxPad && lo <= kMaxPad && hi >= -kMaxPad && hi <= kMaxPad,
                        InvalidArgument, out, "constant_pad_nd.out: pad of dim %lld too large",
                        static_cast<long long>(d));
    out_sizes[d] = in_sizes[d] + lo + hi;
    TL_KERNEL_CHECK_MSG(ctx, out_sizes[d] >= 0, InvalidArgument, out,
                        "constant_pad_nd.out: pads %lld and %lld crop dim %lld of size %lld "
                        "below zero", static_cast<long long>(lo), static_cast<long long>(hi),
                        static_cast<long long>(d), static_cast<long long>(in_sizes[d]));
    before[d] = lo;
  }

  // Resize
  TL_KERNEL_CHECK_MSG(ctx, resize_tensor(out, IntArrayRef(out_sizes, rank)) == Error::Ok,
                      InvalidArgument, out,
                      "constant_pad_nd.out: out cannot take the padded size");

  // Compute: the value is converted per dtype; the copy runs per element size.
  TL_SWITCH_ALL_TYPES(self.dtype(), ctx, "constant_pad_nd.out", T, [&] {
    using W = typename Word<sizeof(T)>::type;
    const T v = static_cast<T>(value.to<acc_t<T>>());
    W fill;
    __builtin_memcpy(&fill, &v, sizeof(W));
    if (out.numel() > 0) {
      pad_copy(static_cast<const W*>(self.data()), static_cast<W*>(out.data()), in_sizes,
               out_sizes, before, dims, fill);
    }
  });
  return out;
}

}  // namespace tailor::native
