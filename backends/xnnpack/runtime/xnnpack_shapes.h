// Shape arithmetic of the XNNPACK payload's nodes, free of XNNPACK and of the runtime so
// that a probe can compile it alone (tests/backends/test_xnnpack_parity.py): the sizes of
// a subgraph tensor, window and deconvolution output sizes, and when a reshape of a
// channels-last tensor moves no element.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace tailor::xnnpack {

/// XNN_MAX_TENSOR_DIMS (xnnpack_graph.h checks the two agree).
inline constexpr size_t kMaxDims = 6;

/// Sizes of one subgraph tensor.
struct Dims {
  size_t rank = 0;
  size_t size[kMaxDims] = {};

  bool operator==(const Dims& other) const {
    if (rank != other.rank) return false;
    for (size_t i = 0; i < rank; ++i) {
      if (size[i] != other.size[i]) return false;
    }
    return true;
  }

  size_t numel() const {
    size_t n = 1;
    for (size_t i = 0; i < rank; ++i) n *= size[i];
    return n;
  }
};

// Window positions along one dim (torch's rule, ceil_mode included), or 0 when not even
// one window fits. Operands are below kMaxWindow (xnnpack_graph.cpp), so nothing overflows.
inline size_t window_count(size_t in, size_t kernel, size_t stride, size_t dilation, size_t pad_begin,
                    size_t pad_end, bool ceil_mode) {
  const size_t span = dilation * (kernel - 1) + 1;
  // ceil_mode rounds up: a window past the padded input still counts (in 1, kernel 2 -> 1).
  const size_t reach = in + pad_begin + pad_end + (ceil_mode ? stride - 1 : 0);
  if (reach < span) return 0;
  size_t count = (reach - span) / stride + 1;
  // The last window must start inside the input or its leading padding.
  if (ceil_mode && (count - 1) * stride >= in + pad_begin) --count;
  return count;
}

// Padding after the input that the last window needs: ceil_mode windows may reach past
// the padding the payload gives, and XNNPACK takes that as more padding.
inline uint32_t pad_to_fit(size_t in, size_t count, size_t kernel, size_t stride, size_t dilation,
                    size_t pad_begin, size_t pad_end) {
  const size_t reach = (count - 1) * stride + dilation * (kernel - 1) + 1;
  const size_t have = in + pad_begin + pad_end;
  return static_cast<uint32_t>(reach > have ? pad_end + (reach - have) : pad_end);
}

// Output cells of a deconvolution along one dim, or 0 when the padding crops them all.
inline size_t deconvolution_count(size_t in, size_t kernel, size_t stride, size_t dilation,
                           size_t pad_begin, size_t pad_end, size_t adjustment) {
  if (in == 0) return 0;
  const size_t full = (in - 1) * stride + adjustment + dilation * (kernel - 1) + 1;
  return full > pad_begin + pad_end ? full - pad_begin - pad_end : 0;
}

// [N, C, spatial...] -> (H, W) of a window op: a 1-d signal has height 1.
inline void spatial(const Dims& d, size_t* h, size_t* w) {
  *h = d.rank == 4 ? d.size[2] : 1;
  *w = d.size[d.rank - 1];
}

// Whether reshaping `a` to `b` moves no element when each is channels-last or not (the
// partitioner's rule, backends/xnnpack/layout.py; tests/backends/test_xnnpack_parity.py
// compares the two): both lie in logical order, or both are channels-last with the
// same batch and channels and the same spatial sizes but for 1s.
inline bool reshape_keeps_memory(const Dims& a, bool a_cl, const Dims& b, bool b_cl) {
  auto logical_order = [](const Dims& d, bool cl) {
    if (!cl) return true;
    size_t spatial = 1;
    for (size_t i = 2; i < d.rank; ++i) spatial *= d.size[i];
    return d.size[1] <= 1 || spatial <= 1;
  };
  if (logical_order(a, a_cl) && logical_order(b, b_cl)) return true;
  if (!a_cl || !b_cl || a.size[0] != b.size[0] || a.size[1] != b.size[1]) return false;
  size_t i = 2, j = 2;
  while (true) {
    while (i < a.rank && a.size[i] == 1) ++i;
    while (j < b.rank && b.size[j] == 1) ++j;
    if (i == a.rank || j == b.rank) return i == a.rank && j == b.rank;
    if (a.size[i++] != b.size[j++]) return false;
  }
}

}  // namespace tailor::xnnpack
