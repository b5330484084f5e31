// Tensor: a typed view of planned or constant memory, with sizes and a dim order.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "runtime/core/array_ref.h"
#include "runtime/core/bool_element.h"
#include "runtime/core/error.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/traits.h"
#include "runtime/platform/assert.h"

namespace tailor {

/// The most dimensions a tensor may have (dim orders are stored as bytes).
inline constexpr size_t kMaxTensorDim = 16;

/// A tensor does not own anything: its data lives in a planned arena or in the
/// program's constant segment, and its sizes/strides arrays come from the method
/// allocator. Method load builds every Tensor; kernels only read it, write its data
/// and, for dynamic tensors, resize it within the capacity planned for its upper
/// bounds (see set_sizes()).
class Tensor final {
 public:
  Tensor() = default;

  /// Wraps memory the caller keeps alive: `sizes` and `strides` hold `dim` entries
  /// and are updated in place by set_sizes(); `dim_order` holds `dim` entries.
  /// `capacity_bytes` is how much `data` may hold.
  Tensor(ScalarType dtype, size_t dim, int32_t* sizes, const uint8_t* dim_order,
         int64_t* strides, void* data, size_t capacity_bytes, bool dynamic);

  ScalarType dtype() const { return dtype_; }
  int64_t dim() const { return static_cast<int64_t>(dim_); }
  /// Size of dimension `d` (0 <= d < dim()).
  int64_t size(int64_t d) const {
    TL_DCHECK(d >= 0 && static_cast<size_t>(d) < dim_);
    return sizes_[d];
  }
  ArrayRef<int32_t> sizes() const { return ArrayRef<int32_t>(sizes_, dim_); }
  ArrayRef<uint8_t> dim_order() const { return ArrayRef<uint8_t>(dim_order_, dim_); }
  /// Element strides, derived from sizes and dim order (innermost dim has stride 1).
  ArrayRef<int64_t> strides() const { return ArrayRef<int64_t>(strides_, dim_); }

  size_t numel() const { return numel_; }
  size_t element_size() const { return tailor::element_size(dtype_); }
  size_t nbytes() const { return numel_ * element_size(); }
  /// Bytes planned for this tensor: nbytes() at its upper-bound sizes.
  size_t capacity_bytes() const { return capacity_bytes_; }
  bool is_dynamic() const { return dynamic_; }
  /// True when the dim order is 0, 1, ..., dim-1 (row-major).
  bool is_contiguous() const;

  template <typename T>
  const T* const_data() const {
    static_assert(!is_same_v<remove_cv_t<T>, bool>, 
                  "read a Bool tensor as tailor::Bool (bool_element.h), not bool");
    TL_DCHECK(sizeof(T) == element_size());
    return static_cast<const T*>(data_);
  }
  template <typename T>
  T* mutable_data() const {
    static_assert(!is_same_v<remove_cv_t<T>, bool>, 
                  "read a Bool tensor as tailor::Bool (bool_element.h), not bool");
    TL_DCHECK(sizeof(T) == element_size());
    return static_cast<T*>(data_);
  }
  void* data() const { return data_; }

  /// Sets new sizes (same number of dims) and recomputes strides. A static tensor
  /// accepts only its current sizes; a dynamic one any sizes whose bytes fit
  /// capacity_bytes(). Returns InvalidArgument otherwise, leaving the tensor unchanged.
  Error set_sizes(ArrayRef<int64_t> sizes);
  Error set_sizes(ArrayRef<int32_t> sizes);

 private:
  template <typename S>
  Error set_sizes_impl(ArrayRef<S> sizes);
  void update_strides();

  void* data_ = nullptr;
  int32_t* sizes_ = nullptr;
  const uint8_t* dim_order_ = nullptr;
  int64_t* strides_ = nullptr;
  size_t dim_ = 0;
  size_t numel_ = 0;
  size_t capacity_bytes_ = 0;
  ScalarType dtype_ = ScalarType::Float;
  bool dynamic_ = false;
};

}  // namespace tailor
