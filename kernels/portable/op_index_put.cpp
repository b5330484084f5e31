#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// index_put.out(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False, *,
//               Tensor(a!) out) -> Tensor(a!)
// out = self, then out[indices] = values (values broadcast to the indexed shape), or
// += with accumulate (Bool: or). Int/Long indices only (negative count from the end);
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
  int64_t dim = 0;
  int64_t first = -1;
  int64_t last = -1;
  bool gap = false;
  for (const Tensor* t : indices) {
    TL_KERNEL_CHECK_MSG(ctx, dim < rank, InvalidArgument, out,
                        "index_put.out: too many indices for a %lld-d tensor",
                        static_cast<long long>(rank));
    if (t != nullptr) {
      TL_KERNEL_CHECK_MSG(ctx, is_index_dtype(t->dtype()) && is_default_dim_order(*t),
                          InvalidArgument, out,
                          "index_put.out: indices must be Int or Long, got %s",
                          scalar_type_name(t->dtype()));
      gap = gap || (last >= 0 && last != dim - 1);
      first = first < 0 ? dim : first;
      last = dim;
      by_dim[dim] = t;
    }
    ++dim;
  }

  // Broadcast the index shapes; each index keeps its element strides over them.
  int64_t bsizes[kMaxDims];
  int64_t brank = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (by_dim[d] != nullptr && by_dim[d]->dim() > brank) brank = by_dim[d]->dim();
  }
  for (int64_t j = 0; j < brank; ++j) bsizes[j] = 1;
  int64_t bstrides[kMaxDims][kMaxDims] = {};
  for (int64_t d = 0; d < rank; ++d) {
    const Tensor* t = by_dim[d];
    if (t == nullptr) continue;
    int64_t stride = 1;
    for (int64_t k = t->dim() - 1; k >= 0; --k) {
      int64_t& b = bsizes[brank - t->dim() + k];
      TL_KERNEL_CHECK_MSG(ctx, t->size(k) == b || t->size(k) == 1 || b == 1, InvalidArgument,
                          out, "index_put.out: indices do not broadcast");
      b = t->size(k) == 1 ? b : t->size(k);
      bstrides[d][brank - t->dim() + k] = t->size(k) == 1 ? 0 : stride;
      stride *= t->size(k);
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
      const int64_t given = index_value(*by_dim[d], static_cast<size_t>(i));
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
