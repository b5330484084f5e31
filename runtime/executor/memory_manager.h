// MemoryManager: all the memory a method may use, provided by the application.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "runtime/core/array_ref.h"
#include "runtime/executor/memory_allocator.h"

namespace tailor {

/// A caller-owned byte range.
struct Span {
  uint8_t* data;
  size_t size;
};

/// The method allocator (values, tensor metadata, the instruction table) and the
/// planned arenas (tensor data at the offsets the exporter planned). Arena `i` serves
/// Allocation.arena == i and must be at least MethodMeta::arena_size(i) bytes, and
/// kAlignment-aligned. Everything is owned by the caller and must outlive the Method.
class MemoryManager final {
 public:
  MemoryManager(MemoryAllocator* method_allocator, ArrayRef<Span> arenas)
      : method_allocator_(method_allocator), arenas_(arenas) {}

  MemoryAllocator* method_allocator() const { return method_allocator_; }
  ArrayRef<Span> arenas() const { return arenas_; }

 private:
  MemoryAllocator* method_allocator_;
  ArrayRef<Span> arenas_;
};

}  // namespace tailor
