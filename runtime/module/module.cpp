#include "runtime/module/module.h"

#include <stdlib.h>
#include <stddef.h>

namespace tailor {
namespace {

// Zeroed heap memory (at least one byte). calloc: large arenas come straight from the
// kernel already zeroed, so unused planned memory is never touched, and malloc's
// alignment (alignof(max_align_t)) covers MemoryAllocator::kAlignment.
static_assert(alignof(max_align_t) >= MemoryAllocator::kAlignment, "calloc alignment");
void* allocate_zeroed(size_t size) { return calloc(size == 0 ? 1 : size, 1); }

}  // namespace

void Module::FreeDeleter::operator()(void* p) const { free(p); }

Module::~Module() { free_method_memory(); }

void Module::free_method_memory() {
  method_ = Method();
  allocator_.reset();
  arenas_.reset();
  arena_memory_.reset();
  method_memory_.reset();
}

Error Module::load(const char* path) {
  TL_CHECK_OR_RETURN_ERROR(!loaded_, InvalidState, "%s: a program is already loaded", path);
  Error err = loader_.open(path);
  if (err != Error::Ok) return err;
  Result<Program> program = Program::load(loader_);
  if (!program.ok()) return program.error();
  program_ = *program;
  loaded_ = true;
  return Error::Ok;
}

Error Module::load_method(const char* name, const BackendOptions& backend_options,
                          const LoadLimits& limits) {
  TL_CHECK_OR_RETURN_ERROR(loaded_, InvalidState, "no program is loaded");
  Result<MethodMeta> meta = program_.method_meta(name);
  if (!meta.ok()) return meta.error();
  free_method_memory();
  // Before allocating: a corrupt arena size must fail here, not in the allocator.
  const Error err = meta->check_limits(limits);
  if (err != Error::Ok) return err;

  // Memory sized from the metadata: exactly what the method needs.
  const size_t method_bytes = meta->method_allocator_bytes();
  method_memory_.reset(static_cast<uint8_t*>(allocate_zeroed(method_bytes)));
  const size_t num_arenas = meta->num_arenas();
  arena_memory_.reset(new Buffer[num_arenas]);
  arenas_.reset(new Span[num_arenas > 0 ? num_arenas : 1]);
  TL_CHECK_OR_RETURN_ERROR(method_memory_ != nullptr, MemoryAllocationFailed,
                           "method '%s': cannot allocate %zu bytes", name, method_bytes);
  for (size_t i = 0; i < num_arenas; ++i) {
    const size_t size = meta->arena_size(i);
    arena_memory_[i].reset(static_cast<uint8_t*>(allocate_zeroed(size)));
    TL_CHECK_OR_RETURN_ERROR(arena_memory_[i] != nullptr, MemoryAllocationFailed,
                             "method '%s': cannot allocate arena %zu (%zu bytes)", name, i, size);
    arenas_[i] = Span{arena_memory_[i].get(), size};
  }
  allocator_.reset(new MemoryAllocator(method_memory_.get(), method_bytes));
  MemoryManager memory(allocator_.get(), ArrayRef<Span>(arenas_.get(), num_arenas));

  Result<Method> method = program_.load_method(name, memory, backend_options, limits);
  if (!method.ok()) return method.error();
  // MethodMeta's figure is exact for an aligned buffer: catch any drift in debug builds.
  TL_DCHECK(allocator_->used() + MemoryAllocator::kAlignment == method_bytes);
  method_ = static_cast<Method&&>(*method);
  return Error::Ok;
}

}  // namespace tailor
