#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/index.h"
#include "kernels/portable/util/promote.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native::cat_detail {

// torch (legacy rule) skips 1-d empty inputs whatever the other inputs' shapes.
inline bool skipped(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

// Converts elements [start, start + n) of `src` (loaded by `load`) into dst.
template <typename T>
void convert(LoadFn<T> load, const void* src, size_t start, size_t n, T* dst) {
#if defined(__OPTIMIZE_SIZE__)
  for (size_t j = 0; j < n; ++j) dst[j] = load(src, start + j);
#else
  load(src, start, 1, n, dst);
#endif
}

}  // namespace tailor::native::cat_detail

namespace tailor::native {

// cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)
// Joins the tensors along `dim`; all other dims must match. Inputs of several dtypes
// are promoted as torch does (Float, Double and Half give Double) into out's dtype.
Tensor& cat_out(KernelContext& ctx, TensorList tensors, int64_t dim, Tensor& out) {
  // Validate: the first input that is not skipped fixes the shape.
  TL_KERNEL_CHECK_MSG(ctx, tensors.size() > 0, InvalidArgument, out,
                      "cat.out: expected a non-empty list of tensors");
  const Tensor* first = nullptr;
  ScalarType promoted = tensors[0]->dtype();
  bool mixed = false;
  for (const Tensor* t : tensors) {
    TL_KERNEL_CHECK_MSG(ctx, is_default_dim_order(*t), InvalidArgument, out,
                        "cat.out: inputs must be contiguous");
    promoted = promote_types(promoted, t->dtype());
    mixed = mixed || !same_dtype(*t, out);
    if (first == nullptr && !cat_detail::skipped(*t)) {
      first = t;
    }
  }
  TL_KERNEL_CHECK_MSG(ctx, can_cast(promoted, out.dtype()), InvalidArgument, out,
                      "cat.out: inputs promote to %s, which out of dtype %s cannot hold",
                      scalar_type_name(promoted), scalar_type_name(out.dtype()));
  TL_KERNEL_CHECK_DTYPE_SELECTED(ctx, "cat.out", out.dtype(), out);
  if (first == nullptr) {
    const int64_t empty[1] = {0};
    TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(empty, 1)) == Error::Ok,
                    InvalidArgument, out);
    return out;
  }
  const int64_t rank = first->dim();
  int64_t d = 0;
  TL_KERNEL_CHECK_MSG(ctx, rank > 0 && normalize_dim(dim, rank, &d), InvalidArgument, out,
                      "cat.out: dim %lld out of range for %lld-d inputs",
                      static_cast<long long>(dim), static_cast<long long>(rank));
  int64_t sizes[kMaxDims];
  for (int64_t i = 0; i < rank; ++i) {
    sizes[i] = first->size(i);
  }
  sizes[d] = 0;
  for (const Tensor* t : tensors) {
    if (cat_detail::skipped(*t)) {
      continue;
    }
    bool match = t->dim() == rank;
    for (int64_t i = 0; match && i < rank; ++i) {
      match = i == d || t->size(i) == sizes[i];
    }
    TL_KERNEL_CHECK_MSG(ctx, match, InvalidArgument, out,
                        "cat.out: input sizes must match except in dim %lld",
                        static_cast<long long>(d));
    sizes[d] += t->size(d);
  }

  // Resize
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(sizes, rank)) == Error::Ok,
                  InvalidArgument, out);

  // Copy: each outer row of out is every input's row (its dims from d on) in turn.
  int64_t outer = 1;
  for (int64_t i = 0; i < d; ++i) {
    outer *= sizes[i];
  }
  if (!mixed) {
    auto* dst = static_cast<uint8_t*>(out.data());
    for (int64_t o = 0; o < outer; ++o) {
      for (const Tensor* t : tensors) {
        if (cat_detail::skipped(*t) || t->numel() == 0) {
          continue;
        }
        const size_t row = t->nbytes() / static_cast<size_t>(outer);
        __builtin_memcpy(dst, static_cast<const uint8_t*>(t->data()) + o * row, row);
        dst += row;
      }
    }
    return out;
  }

  // Convert: the same walk, each input loaded as out's type (only selected dtypes load).
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("cat.out");
  for (const Tensor* t : tensors) {
    TL_KERNEL_CHECK_MSG(ctx, dtype_in_mask(kMask, t->dtype()), InvalidArgument, out,
                        "cat.out: input dtype %s is not selected for this op",
                        scalar_type_name(t->dtype()));
  }
  TL_SWITCH_ALL_TYPES(out.dtype(), ctx, "cat.out", T, [&] {
    T* dst = out.mutable_data<T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (const Tensor* t : tensors) {
        if (cat_detail::skipped(*t) || t->numel() == 0) {
          continue;
        }
        const size_t row = t->numel() / static_cast<size_t>(outer);
        cat_detail::convert<T>(load_fn<T, kMask>(t->dtype()), t->data(),
                               static_cast<size_t>(o) * row, row, dst);
        dst += row;
      }
    }
  });
  return out;
}

}  // namespace tailor::native
