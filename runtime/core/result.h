// Result<T>: a value or an Error, without exceptions or heap.
#pragma once

#include "runtime/core/error.h"
#include "runtime/core/traits.h"
#include "runtime/platform/assert.h"

namespace tailor {

/// Holds either a T (error() == Ok) or a non-Ok Error. Reading the value of a failed
/// Result is a bug (checked by TL_DCHECK in debug builds).
template <typename T>
class Result final {
 public:
  /// A successful result holding `value`.
  Result(const T& value) : error_(Error::Ok) { new (internal::PlacementTag{}, &value_) T(value); }
  Result(T&& value) : error_(Error::Ok) { new (internal::PlacementTag{}, &value_) T(tailor::move(value)); }

  /// A failed result. Passing Error::Ok is a bug and becomes Error::Internal.
  Result(Error error) : error_(error == Error::Ok ? Error::Internal : error) {}

  Result(const Result& other) : error_(other.error_) {
    if (ok()) new (internal::PlacementTag{}, &value_) T(other.value_);
  }
  Result(Result&& other) : error_(other.error_) {
    if (ok()) new (internal::PlacementTag{}, &value_) T(tailor::move(other.value_));
  }
  Result& operator=(const Result&) = delete;
  Result& operator=(Result&&) = delete;
  ~Result() {
    if (ok()) value_.~T();
  }

  bool ok() const { return error_ == Error::Ok; }
  Error error() const { return error_; }

  T& get() {
    TL_DCHECK(ok());
    return value_;
  }
  const T& get() const {
    TL_DCHECK(ok());
    return value_;
  }
  T& operator*() { return get(); }
  const T& operator*() const { return get(); }
  T* operator->() { return &get(); }
  const T* operator->() const { return &get(); }

 private:
  union {
    T value_;
  };
  Error error_;
};

}  // namespace tailor
