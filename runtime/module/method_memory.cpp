#include "runtime/module/method_memory.h"

#include <stdlib.h>

namespace tailor {
namespace {

// Zeroed heap memory (at least one byte). calloc: large arenas come straight from the
// kernel already zeroed, so unused planned memory is never touched, and malloc's
// alignment (alignof(max_align_t)) covers MemoryAllocator::kAlignment.
static_assert(alignof(max_align_t) >= MemoryAllocator::kAlignment, "calloc alignment");
void* allocate_zeroed(size_t size) { return calloc(size == 0 ? 1 : size, 1); }

}  // namespace

void MethodMemory::FreeDeleter::operator()(void* p) const { free(p); }

void MethodMemory::release() {
  allocator_.reset();
  arenas_.reset();
  arena_memory_.reset();
  method_memory_.reset();
  num_arenas_ = 0;
}

Error MethodMemory::allocate(const MethodMeta& meta, const LoadLimits& limits,
                            uint32_t threads) {
  release();
  // Before allocating: a corrupt arena size must fail here, not in the allocator.
  const Error err = meta.check_limits(limits, threads);
  if (err != Error::Ok) return err;

  // Memory sized from the metadata: exactly what the method needs.
  const size_t method_bytes = meta.method_allocator_bytes(threads);
  method_memory_.reset(static_cast<uint8_t*>(allocate_zeroed(method_bytes)));
  const size_t num_arenas = meta.num_arenas();
  arena_memory_.reset(new Buffer[num_arenas]);
  arenas_.reset(new Span[num_arenas > 0 ? num_arenas : 1]);
  TL_CHECK_OR_RETURN_ERROR(method_memory_ != nullptr, MemoryAllocationFailed,
                           "method '%s': cannot allocate %zu bytes", meta.name(), method_bytes);
  for (size_t i = 0; i < num_arenas; ++i) {
    const size_t size = meta.arena_size(i);
    arena_memory_[i].reset(static_cast<uint8_t*>(allocate_zeroed(size)));
    TL_CHECK_OR_RETURN_ERROR(arena_memory_[i] != nullptr, MemoryAllocationFailed,
                             "method '%s': cannot allocate arena %zu (%zu bytes)", meta.name(),
                             i, size);
    arenas_[i] = Span{arena_memory_[i].get(), size};
  }
  num_arenas_ = num_arenas;
  allocator_.reset(new MemoryAllocator(method_memory_.get(), method_bytes));
  return Error::Ok;
}

MemoryManager MethodMemory::manager() const {
  return MemoryManager(allocator_.get(), ArrayRef<Span>(arenas_.get(), num_arenas_));
}

}  // namespace tailor
