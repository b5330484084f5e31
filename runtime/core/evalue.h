// EValue: one value of a method (a tensor, a scalar, a string or a list).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "runtime/core/array_ref.h"
#include "runtime/core/scalar.h"
#include "runtime/core/tensor.h"
#include "runtime/core/traits.h"
#include "runtime/platform/assert.h"

namespace tailor {

using IntArrayRef = ArrayRef<int64_t>;
using TensorList = ArrayRef<Tensor*>;
/// Like TensorList, with nullptr for a None entry.
using OptionalTensorList = ArrayRef<Tensor*>;

class EValue;

/// A list value. Int, Tensor and optional-Tensor lists name other values by id, so
/// a list sees the current value of a symbolic int or a moved tensor: each access
/// rebuilds `scratch` from `values[ids[i]]`. Double and Bool lists keep their items
/// in `scratch`. Method load allocates everything here and checks every id.
struct BoxedList {
  const int32_t* ids;
  EValue* values;
  void* scratch;
  size_t size;
};

/// A tagged value. The accessor of the wrong kind is a bug (TL_DCHECK); method load
/// checks the kinds a program uses, so kernels read their arguments unchecked.
class EValue final {
 public:
  enum class Tag : uint8_t {
    None,
    Int,
    Double,
    Bool,
    String,
    Tensor,
    IntList,
    DoubleList,
    BoolList,
    TensorList,
    OptionalTensorList,
  };

  EValue() : tag_(Tag::None) { payload_.i = 0; }
  template <typename T, enable_if_t<is_integral_v<T> && !is_same_v<T, bool>,
                                         int> = 0>
  EValue(T value) : tag_(Tag::Int) {
    payload_.i = static_cast<int64_t>(value);
  }
  EValue(double value) : tag_(Tag::Double) { payload_.d = value; }
  EValue(bool value) : tag_(Tag::Bool) { payload_.b = value; }

  /// A Tensor value viewing `*tensor`, which must outlive it.
  static EValue from_tensor(Tensor* tensor) {
    EValue v(Tag::Tensor);
    v.payload_.tensor = tensor;
    return v;
  }
  /// A String value; `text` is NUL-terminated and must outlive it.
  static EValue from_string(const char* text) {
    EValue v(Tag::String);
    v.payload_.string = text;
    return v;
  }
  /// A list value of kind `tag` (one of the list tags) over `*list`.
  static EValue from_list(Tag tag, BoxedList* list) {
    EValue v(tag);
    v.payload_.list = list;
    return v;
  }

  Tag tag() const { return tag_; }
  bool is_none() const { return tag_ == Tag::None; }
  bool is_int() const { return tag_ == Tag::Int; }
  bool is_double() const { return tag_ == Tag::Double; }
  bool is_bool() const { return tag_ == Tag::Bool; }
  bool is_string() const { return tag_ == Tag::String; }
  bool is_tensor() const { return tag_ == Tag::Tensor; }
  bool is_scalar() const { return is_int() || is_double() || is_bool(); }

  int64_t to_int() const {
    TL_DCHECK(is_int());
    return payload_.i;
  }
  double to_double() const {
    TL_DCHECK(is_double());
    return payload_.d;
  }
  bool to_bool() const {
    TL_DCHECK(is_bool());
    return payload_.b;
  }
  /// An Int, Double or Bool value as a Scalar.
  Scalar to_scalar() const {
    TL_DCHECK(is_scalar());
    if (is_int()) return Scalar(payload_.i);
    if (is_double()) return Scalar(payload_.d);
    return Scalar(payload_.b);
  }
  const char* to_string() const {
    TL_DCHECK(is_string());
    return payload_.string;
  }
  Tensor& to_tensor() const {
    TL_DCHECK(is_tensor());
    return *payload_.tensor;
  }

  /// The current values of the list's Int items (valid until the next call).
  IntArrayRef to_int_list() const;
  ArrayRef<double> to_double_list() const;
  ArrayRef<bool> to_bool_list() const;
  /// The list's tensors (valid until the next call).
  TensorList to_tensor_list() const;
  /// The list's tensors, nullptr for None (valid until the next call).
  OptionalTensorList to_optional_tensor_list() const;

 private:
  explicit EValue(Tag tag) : tag_(tag) { payload_.i = 0; }

  union {
    int64_t i;
    double d;
    bool b;
    const char* string;
    Tensor* tensor;
    BoxedList* list;
  } payload_;
  Tag tag_;
};

inline IntArrayRef EValue::to_int_list() const {
  TL_DCHECK(tag_ == Tag::IntList);
  const BoxedList& l = *payload_.list;
  int64_t* out = static_cast<int64_t*>(l.scratch);
  for (size_t i = 0; i < l.size; ++i) out[i] = l.values[l.ids[i]].payload_.i;
  return IntArrayRef(out, l.size);
}

inline ArrayRef<double> EValue::to_double_list() const {
  TL_DCHECK(tag_ == Tag::DoubleList);
  return ArrayRef<double>(static_cast<const double*>(payload_.list->scratch),
                          payload_.list->size);
}

inline ArrayRef<bool> EValue::to_bool_list() const {
  TL_DCHECK(tag_ == Tag::BoolList);
  return ArrayRef<bool>(static_cast<const bool*>(payload_.list->scratch),
                        payload_.list->size);
}

inline TensorList EValue::to_tensor_list() const {
  TL_DCHECK(tag_ == Tag::TensorList);
  const BoxedList& l = *payload_.list;
  Tensor** out = static_cast<Tensor**>(l.scratch);
  for (size_t i = 0; i < l.size; ++i) out[i] = l.values[l.ids[i]].payload_.tensor;
  return TensorList(out, l.size);
}

inline OptionalTensorList EValue::to_optional_tensor_list() const {
  TL_DCHECK(tag_ == Tag::OptionalTensorList);
  const BoxedList& l = *payload_.list;
  Tensor** out = static_cast<Tensor**>(l.scratch);
  for (size_t i = 0; i < l.size; ++i) {
    const int32_t id = l.ids[i];
    out[i] = (id < 0 || !l.values[id].is_tensor()) ? nullptr : l.values[id].payload_.tensor;
  }
  return OptionalTensorList(out, l.size);
}

/// Name of a tag ("Tensor", "IntList") for messages.
const char* evalue_tag_name(EValue::Tag tag);

}  // namespace tailor
