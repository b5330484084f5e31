// MethodMemory: heap memory for one method, sized from its MethodMeta (not core: uses
// the heap). Module and the C API load methods with it.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <memory>

#include "runtime/executor/memory_allocator.h"
#include "runtime/executor/memory_manager.h"
#include "runtime/executor/program.h"

namespace tailor {

/// Owns a method allocator and zeroed planned arenas of exactly the sizes a method asks
/// for. The Method loaded with manager() must be destroyed before this memory is freed.
class MethodMemory final {
 public:
  MethodMemory() = default;
  MethodMemory(const MethodMemory&) = delete;
  MethodMemory& operator=(const MethodMemory&) = delete;

  /// Frees what it held, then allocates for `meta` loaded for `threads` threads
  /// (BackendOptions::num_threads). LimitExceeded, before allocating anything, when the
  /// method asks for more than `limits`; MemoryAllocationFailed when the heap cannot
  /// serve it.
  Error allocate(const MethodMeta& meta, const LoadLimits& limits, uint32_t threads = 1);

  /// Frees everything; a Method loaded with manager() must be gone already.
  void release();

  /// The memory for Program::load_method(); valid after allocate() returned Ok.
  MemoryManager manager() const;

  /// Bytes the method allocator has handed out (MethodMeta's figure is exact for an
  /// aligned buffer: Module checks it in debug builds).
  size_t allocator_used() const { return allocator_ ? allocator_->used() : 0; }

 private:
  struct FreeDeleter {
    void operator()(void* p) const;
  };
  using Buffer = std::unique_ptr<uint8_t, FreeDeleter>;

  Buffer method_memory_;
  std::unique_ptr<Buffer[]> arena_memory_;
  std::unique_ptr<Span[]> arenas_;
  size_t num_arenas_ = 0;
  std::unique_ptr<MemoryAllocator> allocator_;
};

}  // namespace tailor
