#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native::index_detail {

// One non-None entry of `indices`: an Int/Long tensor indexing self dim `dim`, or a Bool
// mask over self dims [dim, dim + mask dims), which acts as the 1-d list of its true
// positions (length `count`).
struct Entry {
  const Tensor* t;
  int64_t dim;
  bool mask;
  int64_t count;                    // masks: number of true elements
  int64_t bstrides[kMaxDims];       // element stride per broadcast dim (0 = broadcast)
  int64_t cached_n;                 // masks: the last true element found, as (n, position)
  int64_t cached_pos;
};

// Flat position in the mask of its n-th true element (0 <= n < count). Scans forward
// from the last answer when it can, since the output is walked mostly in order.
inline int64_t nth_true(Entry& e, int64_t n) {
  int64_t seen = -1;
  int64_t pos = -1;
  if (e.cached_n >= 0 && n >= e.cached_n) {
    seen = e.cached_n;
    pos = e.cached_pos;
  }
  const Bool* mask = e.t->const_data<Bool>();
  while (seen < n) {
    ++pos;
    seen += mask[pos].value() ? 1 : 0;
  }
  e.cached_n = n;
  e.cached_pos = pos;
  return pos;
}

}  // namespace tailor::native::index_detail

namespace tailor::native {

// index.Tensor_out(Tensor self, Tensor?[] indices, *, Tensor(a!) out) -> Tensor(a!)
// Advanced indexing as self[indices]: Int/Long indices (negative count from the end) and
// Bool masks broadcast together; None keeps a dim. If the indexed dims are adjacent the
// broadcast dims replace them in place, otherwise they come first (as in torch).
Tensor& index_tensor_out(KernelContext& ctx, const Tensor& self, OptionalTensorList indices,
                         Tensor& out) {
  using index_detail::Entry;
  const int64_t rank = self.dim();
  TL_KERNEL_CHECK(ctx, same_dtype_contiguous(self, out), InvalidArgument, out);
  TL_KERNEL_CHECK_DTYPE_SELECTED(ctx, "index.Tensor_out", self.dtype(), out);

  // Validate: which self dims each entry indexes.
  Entry entries[kMaxDims];
  int64_t n_entries = 0;
  int64_t dim = 0;
  bool gap = false;       // a None between two indexed entries
  bool seen_none_after = false;
  int64_t first_dim = -1;
  int64_t end_dim = 0;    // one past the last indexed dim
  int64_t indexed_dims = 0;
  for (const Tensor* t : indices) {
    if (t == nullptr) {
      seen_none_after = n_entries > 0;
      ++dim;
      continue;
    }
    const bool mask = t->dtype() == ScalarType::Bool;
    TL_KERNEL_CHECK_MSG(ctx, mask || is_index_dtype(t->dtype()), InvalidArgument, out,
                        "index.Tensor_out: indices must be Int, Long or Bool, got %s",
                        scalar_type_name(t->dtype()));
    TL_KERNEL_CHECK_DTYPE_SELECTED(ctx, "index.Tensor_out", t->dtype(), out);
    TL_KERNEL_CHECK(ctx, is_default_dim_order(*t), InvalidArgument, out);
    const int64_t span = mask ? t->dim() : 1;
    TL_KERNEL_CHECK_MSG(ctx, dim + span <= rank && n_entries < int64_t(kMaxDims),
                        InvalidArgument, out,
                        "index.Tensor_out: too many indices for a %lld-d tensor",
                        static_cast<long long>(rank));
    Entry& e = entries[n_entries++];
    e = Entry{t, dim, mask, 0, {}, -1, -1};
    if (mask) {
      for (int64_t k = 0; k < span; ++k) {
        TL_KERNEL_CHECK_MSG(ctx, t->size(k) == self.size(dim + k), InvalidArgument, out,
                            "index.Tensor_out: mask size %lld does not match dim %lld of "
                            "size %lld", static_cast<long long>(t->size(k)),
                            static_cast<long long>(dim + k),
                            static_cast<long long>(self.size(dim + k)));
      }
      const Bool* m = t->const_data<Bool>();
      for (size_t i = 0; i < t->numel(); ++i) {
        e.count += m[i].value() ? 1 : 0;
      }
    }
    gap = gap || seen_none_after;
    first_dim = first_dim < 0 ? dim : first_dim;
    dim += span;
    end_dim = dim;
    indexed_dims += span;
  }
  TL_KERNEL_CHECK_MSG(ctx, dim <= rank, InvalidArgument, out,
                      "index.Tensor_out: too many indices for a %lld-d tensor",
                      static_cast<long long>(rank));

  // Broadcast the index shapes (a mask counts as 1-d of its true count).
  int64_t bsizes[kMaxDims];
  int64_t brank = 0;
  for (int64_t i = 0; i < n_entries; ++i) {
    const int64_t r = entries[i].mask ? 1 : entries[i].t->dim();
    brank = r > brank ? r : brank;
  }
  for (int64_t j = 0; j < brank; ++j) {
    bsizes[j] = 1;
  }
  for (int64_t i = 0; i < n_entries; ++i) {
    Entry& e = entries[i];
    const int64_t r = e.mask ? 1 : e.t->dim();
    int64_t stride = 1;
    for (int64_t k = r - 1; k >= 0; --k) {
      const int64_t size = e.mask ? e.count : e.t->size(k);
      int64_t& b = bsizes[brank - r + k];
      TL_KERNEL_CHECK_MSG(ctx, size == b || size == 1 || b == 1, InvalidArgument, out,
                          "index.Tensor_out: indices of sizes %lld and %lld do not broadcast",
                          static_cast<long long>(size), static_cast<long long>(b));
      b = size == 1 ? b : size;
      e.bstrides[brank - r + k] = size == 1 ? 0 : stride;
      stride *= size;
    }
  }

  // Resize: out dims are self dims (kept) or broadcast dims.
  int64_t self_strides[kMaxDims];
  int64_t self_sizes[kMaxDims];
  for (int64_t d = 0; d < rank; ++d) {
    self_sizes[d] = self.size(d);
  }
  contiguous_strides(IntArrayRef(self_sizes, rank), self_strides);
  const int64_t lead = n_entries == 0 ? rank : (gap ? 0 : first_dim);  // self dims first
  int64_t out_sizes[kMaxDims];
  int64_t out_src[kMaxDims];  // self dim of each out dim, or -1 for a broadcast dim
  int64_t out_rank = 0;
  TL_KERNEL_CHECK_MSG(ctx, rank - indexed_dims + brank <= int64_t(kMaxDims), InvalidArgument,
                      out, "index.Tensor_out: result has too many dims");
  auto keep = [&](int64_t d) {
    out_sizes[out_rank] = self_sizes[d];
    out_src[out_rank++] = d;
  };
  auto is_indexed = [&](int64_t d) {
    for (int64_t i = 0; i < n_entries; ++i) {
      const int64_t span = entries[i].mask ? entries[i].t->dim() : 1;
      if (d >= entries[i].dim && d < entries[i].dim + span) {
        return true;
      }
    }
    return false;
  };
  for (int64_t d = 0; d < lead; ++d) {
    keep(d);
  }
  for (int64_t j = 0; j < brank && n_entries > 0; ++j) {
    out_sizes[out_rank] = bsizes[j];
    out_src[out_rank++] = -1;
  }
  for (int64_t d = lead; d < rank && n_entries > 0; ++d) {
    if (!is_indexed(d)) {
      keep(d);
    }
  }
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(out_sizes, out_rank)) == Error::Ok,
                  InvalidArgument, out);

  // Copy: self dims after the last indexed one stay contiguous blocks at the end of out.
  int64_t block = 1;
  int64_t walk_rank = out_rank;
  while (walk_rank > 0 && out_src[walk_rank - 1] >= end_dim) {
    block *= out_sizes[--walk_rank];
  }
  if (out.numel() == 0) {
    return out;
  }
  const size_t block_bytes = static_cast<size_t>(block) * self.element_size();
  const auto* src = static_cast<const uint8_t*>(self.data());
  auto* dst = static_cast<uint8_t*>(out.data());
  int64_t coord[kMaxDims] = {};
  int64_t bcoord[kMaxDims] = {};
  const size_t blocks = out.numel() / static_cast<size_t>(block);
  for (size_t n = 0; n < blocks; ++n) {
    // Offset into self from the kept dims, then from each index entry.
    int64_t offset = 0;
    for (int64_t o = 0, j = 0; o < walk_rank; ++o) {
      if (out_src[o] >= 0) {
        offset += coord[o] * self_strides[out_src[o]];
      } else {
        bcoord[j++] = coord[o];
      }
    }
    for (int64_t i = 0; i < n_entries; ++i) {
      Entry& e = entries[i];
      int64_t at = 0;
      for (int64_t j = 0; j < brank; ++j) {
        at += bcoord[j] * e.bstrides[j];
      }
      if (e.mask) {
        int64_t pos = index_detail::nth_true(e, at);
        for (int64_t k = e.t->dim() - 1; k >= 0; --k) {
          offset += (pos % e.t->size(k)) * self_strides[e.dim + k];
          pos /= e.t->size(k);
        }
        continue;
      }
      const int64_t size = self_sizes[e.dim];
      int64_t v = index_value(*e.t, static_cast<size_t>(at));
      v = v < 0 ? v + size : v;
      TL_KERNEL_CHECK_MSG(ctx, v >= 0 && v < size, InvalidArgument, out,
                          "index.Tensor_out: index %lld out of range for dim %lld of size "
                          "%lld", static_cast<long long>(index_value(*e.t, at)),
                          static_cast<long long>(e.dim), static_cast<long long>(size));
      offset += v * self_strides[e.dim];
    }
    __builtin_memcpy(dst, src + offset * self.element_size(), block_bytes);
    dst += block_bytes;
    for (int64_t o = walk_rank - 1; o >= 0; --o) {
      if (++coord[o] < out_sizes[o]) {
        break;
      }
      coord[o] = 0;
    }
  }
  return out;
}

}  // namespace tailor::native
