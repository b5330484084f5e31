// Shared by reflection_pad{1,2,3}d.out and replication_pad{1,2,3}d.out: the last k dims
// padded by reading the input at a mirrored (reflection) or clamped (replication) index.
// padding holds (before, after) pairs from the last dim backwards, as torch's; negative
// pads crop.
#pragma once

#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

enum class PadMode { kReflect, kReplicate };

// The input index output index `o` reads in a dim of `n` entries padded by `before`.
// Reflection mirrors about the edge entries (pads below n keep it inside the input).
inline int64_t pad_source(int64_t o, int64_t before, int64_t n, PadMode mode) {
  const int64_t i = o - before;
  if (mode == PadMode::kReflect) {
    return i < 0 ? -i : (i >= n ? 2 * (n - 1) - i : i);
  }
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

// A padding of the last k (1 to 3) dims of a (k+1)-d or (k+2)-d input.
struct PadPlan {
  int64_t k = 0;
  int64_t planes = 1;            // the product of the leading dims
  int64_t in[3] = {};            // the padded dims, first to last
  int64_t out[3] = {};
  int64_t before[3] = {};
  int64_t out_sizes[5] = {};     // out's shape
  int64_t rank = 0;

  IntArrayRef sizes() const { return IntArrayRef(out_sizes, static_cast<size_t>(rank)); }
};

// Pads beyond this are refused, so sizes plus pads stay far inside int64.
constexpr int64_t kMaxIndexPad = int64_t(1) << 31;

// Reads self and padding for k padded dims; returns what is wrong (for `op`'s message), or
// nullptr. As torch: the leading (batch) dim may be empty, the other dims may not;
// reflection needs each pad below its dim's size; every padded dim stays at least 1.
inline const char* read_pad_args(const Tensor& self, IntArrayRef padding, int64_t k,
                                 PadMode mode, PadPlan* p) {
  const int64_t rank = self.dim();
  if (rank != k + 1 && rank != k + 2) {
    return "self has the wrong rank (k+1 or k+2 dims for k padded dims)";
  }
  if (static_cast<int64_t>(padding.size()) != 2 * k) {
    return "padding needs two values per padded dim";
  }
  p->k = k;
  p->rank = rank;
  for (int64_t d = 0; d < rank - k; ++d) {
    p->planes *= self.size(d);
    p->out_sizes[d] = self.size(d);
    if (d + 1 == rank - k && self.size(d) == 0 && rank == k + 2) {
      return "the channel dim is empty";
    }
  }
  for (int64_t j = 0; j < k; ++j) {
    const int64_t n = self.size(rank - k + j);
    const int64_t lo = padding[static_cast<size_t>(2 * (k - 1 - j))];
    const int64_t hi = padding[static_cast<size_t>(2 * (k - 1 - j) + 1)];
    if (n == 0) {
      return "a padded dim is empty";
    }
    if (lo < -kMaxIndexPad || lo > kMaxIndexPad || hi < -kMaxIndexPad || hi > kMaxIndexPad) {
      return "a pad is too large";
    }
    if (mode == PadMode::kReflect && (lo >= n || hi >= n)) {
      return "a reflection pad must be below its dim's size";
    }
    p->in[j] = n;
    p->before[j] = lo;
    p->out[j] = n + lo + hi;
    if (p->out[j] < 1) {
      return "the pads crop a padded dim below 1";
    }
    p->out_sizes[rank - k + j] = p->out[j];
  }
  return nullptr;
}

// Checks the arguments of `op` (k padded dims, `mode`) and resizes out; false (logged)
// when they do not fit.
inline bool prepare_index_pad(const char* op, const Tensor& self, IntArrayRef padding,
                              int64_t k, PadMode mode, Tensor& out, PadPlan* plan) {
  const char* problem = read_pad_args(self, padding, k, mode, plan);
  if (problem != nullptr) {
    TL_LOG(Error, "%s: %s", op, problem);
    return false;
  }
  if (!same_dtype(self, out) || !is_default_dim_order(self) || !is_default_dim_order(out) ||
      resize_tensor(out, plan->sizes()) != Error::Ok) {
    TL_LOG(Error, "%s: out must be contiguous, of self's dtype, and take the padded shape", op);
    return false;
  }
  return true;
}

// Writes contiguous `dst` (p's out shape) from contiguous `src`, row by row along the
// last dim: each row's inner columns are one copy, its padded ends one read each.
template <typename W>
void pad_index_copy(const W* src, W* dst, const PadPlan& p, PadMode mode) {
  const int64_t last = p.k - 1;
  const int64_t n = p.in[last];
  const int64_t width = p.out[last];
  const int64_t shift = p.before[last];
  // Output columns [c0, c1) read input columns [c0 - shift, c1 - shift) directly.
  int64_t c0 = shift < 0 ? 0 : (shift > width ? width : shift);
  int64_t c1 = shift + n < c0 ? c0 : (shift + n > width ? width : shift + n);
  int64_t in_plane = 1;
  int64_t rows = 1;  // output rows per plane
  for (int64_t j = 0; j < p.k; ++j) {
    in_plane *= p.in[j];
  }
  for (int64_t j = 0; j < last; ++j) {
    rows *= p.out[j];
  }
  for (int64_t plane = 0; plane < p.planes; ++plane, src += in_plane) {
    int64_t counter[2] = {};  // the output row's coordinates in the padded dims but the last
    for (int64_t r = 0; r < rows; ++r, dst += width) {
      int64_t offset = 0;
      for (int64_t j = 0; j < last; ++j) {
        offset = offset * p.in[j] + pad_source(counter[j], p.before[j], p.in[j], mode);
      }
      const W* row = src + offset * n;
      for (int64_t c = 0; c < c0; ++c) {
        dst[c] = row[pad_source(c, shift, n, mode)];
      }
      if (c1 > c0) {
        __builtin_memcpy(dst + c0, row + (c0 - shift), static_cast<size_t>(c1 - c0) * sizeof(W));
      }
      for (int64_t c = c1; c < width; ++c) {
        dst[c] = row[pad_source(c, shift, n, mode)];
      }
      for (int64_t j = last - 1; j >= 0; --j) {
        if (++counter[j] < p.out[j]) {
          break;
        }
        counter[j] = 0;
      }
    }
  }
}

}  // namespace tailor::native
