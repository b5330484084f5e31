// MemoryAllocator: a bump allocator over a caller-provided buffer.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace tailor {

/// Hands out aligned pieces of one buffer, never frees them individually; reset()
/// frees everything at once. The buffer belongs to the caller and must outlive every
/// allocation. Every size is rounded up to kAlignment, so a kAlignment-aligned buffer
/// serves exactly the sum of the rounded sizes (MethodMeta reports that sum plus
/// kAlignment, enough for any buffer).
class MemoryAllocator {
 public:
  static constexpr size_t kAlignment = 16;

  MemoryAllocator(void* buffer, size_t size)
      : begin_(static_cast<uint8_t*>(buffer)), cur_(begin_), end_(begin_ + size) {}

  /// Returns `size` bytes aligned to `alignment` (a power of two, at most kAlignment
  /// unless the buffer is aligned more), or nullptr when the buffer is full.
  void* allocate(size_t size, size_t alignment = kAlignment) {
    const uintptr_t cur = reinterpret_cast<uintptr_t>(cur_);
    const uintptr_t aligned = (cur + alignment - 1) & ~(uintptr_t(alignment) - 1);
    const size_t padding = aligned - cur;
    const size_t rounded = round_up(size);
    const size_t left = static_cast<size_t>(end_ - cur_);
    if (rounded < size || padding > left || rounded > left - padding) return nullptr;
    cur_ += padding + rounded;
    return reinterpret_cast<void*>(aligned);
  }

  /// `count` objects of T (uninitialised), or nullptr when full or on overflow.
  template <typename T>
  T* allocate_array(size_t count) {
    if (count > SIZE_MAX / sizeof(T)) return nullptr;
    return static_cast<T*>(allocate(count * sizeof(T), alignof(T) > kAlignment
                                                            ? alignof(T)
                                                            : kAlignment));
  }

  /// Bytes the allocator charges for a `size`-byte allocation.
  static constexpr size_t round_up(size_t size) {
    return (size + kAlignment - 1) & ~(kAlignment - 1);
  }

  size_t used() const { return static_cast<size_t>(cur_ - begin_); }
  size_t capacity() const { return static_cast<size_t>(end_ - begin_); }

  /// Frees every allocation; earlier pointers become invalid.
  void reset() { cur_ = begin_; }

 private:
  uint8_t* begin_;
  uint8_t* cur_;
  uint8_t* end_;
};

}  // namespace tailor
