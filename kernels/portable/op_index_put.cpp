#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native::index_put_detail {

// A Bool (mask) index read as the index tensors torch makes of it (its nonzero
// positions, one Long tensor per mask dim, each of the mask's count of true elements):
// nth(i) is the flat position of its i-th true element. Calls come in order, each pass
// over the broadcast dims from 0 up, so each pass scans the mask once.
struct MaskIndex {
  const uint8_t* data = nullptr;
  int64_t count = 0;  // true elements
  int64_t at_i = -1;
  int64_t at_pos = -1;

  void init(const Tensor& mask) {
    data = static_cast<const uint8_t*>(mask.data());
    count = 0;
    for (size_t p = 0; p < mask.numel(); ++p) count += data[p] != 0;
  }

  int64_t nth(int64_t i) {  // i < count
    if (i < at_i) {
      at_i = -1;
      at_pos = -1;
    }
    while (at_i < i) {
      do {
        ++at_pos;
      } while (data[at_pos] == 0);
      ++at_i;
    }
    return at_pos;
  }
};

}  // namespace tailor::native::index_put_detail

namespace tailor::native {

// index_put.out(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False, *,
//               Tensor(a!) out) -> Tensor(a!)
// out = self, then out[indices] = values (values broadcast to the indexed shape), or
// += with accumulate (Bool: or). Int/Long indices (negative count from the end) and Bool
// masks (`x[mask] = v`: a mask over k dims indexes them with its true positions);
// when several index the same element the last write wins (accumulate: all add), as
// torch's CPU kernel does. out may be self itself: a KV cache written in place
// (exporter/mutable_buffers.py plans it so) then copies nothing but the update.
Tensor& index_put_out(KernelContext& ctx, const Tensor& self, OptionalTensorList indices,
                      const Tensor& values, bool accumulate, Tensor& out) {
  const int64_t rank = self.dim();
  // Validate
  TL_KERNEL_CHECK(ctx, resize_like(out, self) == Error::Ok, InvalidArgument, out);
  TL_KERNEL_CHECK(ctx,
                  same_dtype(self, out) && same_dtype(self, values) &&
                      is_default_dim_order(self) && is_default_dim_order(out) &&
                      is_default_dim_order(values),
                  InvalidArgument, out);
  TL_KERNEL_CHECK_DTYPE_SELECTED(ctx, "index_put.out", self.dtype(), out);
  const Tensor* by_dim[kMaxDims] = {};  // the index tensor of each self dim, or nullptr
  // A mask's dims: which mask (in masks) and which of its dims; -1 for an Int/Long index.
  int64_t mask_of[kMaxDims];
  int64_t mask_dim[kMaxDims];
  int64_t mask_stride[kMaxDims];  // the mask's element stride along that dim
  index_put_detail::MaskIndex masks[kMaxDims];
  int64_t n_masks = 0;
  int64_t dim = 0;
  int64_t first = -1;
  int64_t last = -1;
  bool gap = false;
  for (const Tensor* t : indices) {
    TL_KERNEL_CHECK_MSG(ctx, dim < rank, InvalidArgument, out,
                        "index_put.out: too many indices for a %lld-d tensor",
                        static_cast<long long>(rank));
    const bool is_mask = t != nullptr && t->dtype() == ScalarType::Bool;
    if (t != nullptr) {
      TL_KERNEL_CHECK_MSG(ctx, (is_index_dtype(t->dtype()) || is_mask) && is_default_dim_order(*t),
                          InvalidArgument, out,
                          "index_put.out: indices must be Int, Long or Bool, got %s",
                          scalar_type_name(t->dtype()));
    }
    if (is_mask) {
      TL_KERNEL_CHECK_MSG(ctx, t->dim() >= 1, InvalidArgument, out,
                          "index_put.out: a 0-d Bool index is not supported; index with a "
                          "mask of self's shape");
      TL_KERNEL_CHECK_MSG(ctx, dim + t->dim() <= rank, InvalidArgument, out,
                          "index_put.out: too many indices for a %lld-d tensor",
                          static_cast<long long>(rank));
      masks[n_masks].init(*t);
      int64_t stride = t->numel() > 0 ? t->numel() : 1;
      for (int64_t k = 0; k < t->dim(); ++k) {
        TL_KERNEL_CHECK_MSG(ctx, t->size(k) == self.size(dim + k), InvalidArgument, out,
                            "index_put.out: the mask's size %lld at its dim %lld does not "
                            "match self's %lld at dim %lld", static_cast<long long>(t->size(k)),
                            static_cast<long long>(k),
                            static_cast<long long>(self.size(dim + k)),
                            static_cast<long long>(dim + k));
        stride = t->size(k) > 0 ? stride / t->size(k) : 0;
        mask_of[dim + k] = n_masks;
        mask_dim[dim + k] = k;
        mask_stride[dim + k] = stride;
      }
      ++n_masks;
    }
    // An Int/Long index takes one dim, a mask one per dim of it (none for a 0-d one).
    const int64_t taken = is_mask ? t->dim() : 1;
    for (int64_t k = 0; k < taken; ++k, ++dim) {
      if (t == nullptr) continue;
      gap = gap || (last >= 0 && last != dim - 1);
      first = first < 0 ? dim : first;
      last = dim;
      by_dim[dim] = t;
      if (!is_mask) mask_of[dim] = -1;
    }
  }

  // Broadcast the index shapes; each index keeps its element strides over them.
  int64_t bsizes[kMaxDims];
  int64_t brank = 0;
  // A mask's index tensors are 1-d, of its count of true elements.
  auto index_rank = [&](int64_t d) { return mask_of[d] >= 0 ? int64_t(1) : by_dim[d]->dim(); };
  auto index_size = [&](int64_t d, int64_t k) {
    return mask_of[d] >= 0 ? masks[mask_of[d]].count : by_dim[d]->size(k);
  };
  for (int64_t d = 0; d < rank; ++d) {
    if (by_dim[d] != nullptr && index_rank(d) > brank) brank = index_rank(d);
  }
  for (int64_t j = 0; j < brank; ++j) bsizes[j] = 1;
  int64_t bstrides[kMaxDims][kMaxDims] = {};
  for (int64_t d = 0; d < rank; ++d) {
    const Tensor* t = by_dim[d];
    if (t == nullptr) continue;
    int64_t stride = 1;
    const int64_t trank = index_rank(d);
    for (int64_t k = trank - 1; k >= 0; --k) {
      const int64_t size = index_size(d, k);
      int64_t& b = bsizes[brank - trank + k];
      TL_KERNEL_CHECK_MSG(ctx, size == b || size == 1 || b == 1, InvalidArgument,
                          out, "index_put.out: indices do not broadcast");
      b = size == 1 ? b : size;
      bstrides[d][brank - trank + k] = size == 1 ? 0 : stride;
      stride *= size;
    }
  }

  // The indexed view's dims, as torch orders them: the broadcast dims replace adjacent
  // indexed dims in place, or come first when a None separates them.
  int64_t view_sizes[kMaxDims];
  int64_t view_src[kMaxDims];  // self dim of a view dim, or -1 for a broadcast dim
  int64_t view_rank = 0;
  const int64_t lead = first < 0 ? rank : (gap ? 0 : first);
  TL_KERNEL_CHECK(ctx, rank + brank <= int64_t(kMaxDims), InvalidArgument, out);
  for (int64_t d = 0; d < lead; ++d) {
    view_sizes[view_rank] = self.size(d);
    view_src[view_rank++] = d;
  }
  for (int64_t j = 0; j < brank && first >= 0; ++j) {
    view_sizes[view_rank] = bsizes[j];
    view_src[view_rank++] = -1;
  }
  for (int64_t d = lead; d < rank && first >= 0; ++d) {
    if (by_dim[d] != nullptr) continue;
    view_sizes[view_rank] = self.size(d);
    view_src[view_rank++] = d;
  }

  // values broadcast to the view: right-aligned, size-1 dims repeat.
  TL_KERNEL_CHECK_MSG(ctx, values.dim() <= view_rank, InvalidArgument, out,
                      "index_put.out: values have more dims than the indexed shape");
  int64_t vstrides[kMaxDims] = {};
  int64_t stride = 1;
  for (int64_t k = values.dim() - 1; k >= 0; --k) {
    const int64_t o = view_rank - values.dim() + k;
    TL_KERNEL_CHECK_MSG(ctx, values.size(k) == view_sizes[o] || values.size(k) == 1,
                        InvalidArgument, out,
                        "index_put.out: values of size %lld at dim %lld do not broadcast to "
                        "%lld", static_cast<long long>(values.size(k)),
                        static_cast<long long>(k), static_cast<long long>(view_sizes[o]));
    vstrides[o] = values.size(k) == 1 ? 0 : stride;
    stride *= values.size(k);
  }

  // Copy self, unless out is self (written in place).
  if (out.data() != self.data() && self.nbytes() > 0) {
    __builtin_memcpy(out.data(), self.data(), self.nbytes());
  }
  int64_t view_numel = 1;
  for (int64_t o = 0; o < view_rank; ++o) view_numel *= view_sizes[o];
  if (view_numel == 0) return out;
  int64_t self_strides[kMaxDims];
  int64_t self_sizes[kMaxDims];
  for (int64_t d = 0; d < rank; ++d) self_sizes[d] = self.size(d);
  contiguous_strides(IntArrayRef(self_sizes, rank), self_strides);

  // Scatter, a block at a time: the trailing view dims that are self's last dims, kept
  // whole in values, are one contiguous run in both (a head's row of a KV cache).
  int64_t block = 1;
  int64_t walk_rank = view_rank;
  while (walk_rank > 0 && view_src[walk_rank - 1] == rank - (view_rank - walk_rank) - 1 &&
         vstrides[walk_rank - 1] == block) {
    block *= view_sizes[--walk_rank];
  }
  const size_t elem = self.element_size();
  const size_t block_bytes = static_cast<size_t>(block) * elem;
  const auto* src = static_cast<const uint8_t*>(values.data());
  auto* dst = static_cast<uint8_t*>(out.data());
  int64_t coord[kMaxDims] = {};
  for (int64_t n = 0; n < view_numel / block; ++n) {
    int64_t at = 0;
    int64_t from = 0;
    int64_t bcoord[kMaxDims];
    for (int64_t o = 0, j = 0; o < walk_rank; ++o) {
      from += coord[o] * vstrides[o];
      if (view_src[o] >= 0) {
        at += coord[o] * self_strides[view_src[o]];
      } else {
        bcoord[j++] = coord[o];
      }
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (by_dim[d] == nullptr) continue;
      int64_t i = 0;
      for (int64_t j = 0; j < brank; ++j) i += bcoord[j] * bstrides[d][j];
      const int64_t given =
          mask_of[d] >= 0
              ? masks[mask_of[d]].nth(i) / mask_stride[d] % by_dim[d]->size(mask_dim[d])
              : index_value(*by_dim[d], static_cast<size_t>(i));
      const int64_t v = given < 0 ? given + self_sizes[d] : given;
      TL_KERNEL_CHECK_MSG(ctx, v >= 0 && v < self_sizes[d], InvalidArgument, out,
                          "index_put.out: index %lld out of range for dim %lld of size %lld",
                          static_cast<long long>(given), static_cast<long long>(d),
                          static_cast<long long>(self_sizes[d]));
      at += v * self_strides[d];
    }
    if (accumulate) {
      TL_SWITCH_ALL_TYPES(self.dtype(), ctx, "index_put.out", T, [&] {
        T* into = reinterpret_cast<T*>(dst) + at;
        const T* add = reinterpret_cast<const T*>(src) + from;
        for (int64_t k = 0; k < block; ++k) {
          into[k] = static_cast<T>(static_cast<acc_t<T>>(into[k]) +
                                   static_cast<acc_t<T>>(add[k]));
        }
      });
      if (ctx.failure_state() != Error::Ok) return out;
    } else {
      __builtin_memcpy(dst + at * elem, src + from * elem, block_bytes);
    }
    for (int64_t o = walk_rank - 1; o >= 0; --o) {
      if (++coord[o] < view_sizes[o]) break;
      coord[o] = 0;
    }
  }
  return out;
}

}  // namespace tailor::native
