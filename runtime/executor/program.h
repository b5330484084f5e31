// Program: a verified .pte file; the source of MethodMeta and Method.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "runtime/backend/backend.h"
#include "runtime/core/result.h"
#include "runtime/loader/data_loader.h"

namespace tailor {
namespace fb {
struct Program;
struct Method;
}  // namespace fb

class Method;
class MemoryManager;

namespace internal {
uint64_t planned_bytes(const fb::Method& method, uint32_t threads);
}  // namespace internal

/// What a method may ask for, checked at load so a small hostile file cannot make the
/// runtime allocate or compute without bound. Raise them for models that need more.
struct LoadLimits {
  /// Planned memory: every arena plus the method allocator (MethodMeta::planned_bytes()).
  uint64_t max_memory_bytes = uint64_t{1} << 30;
  /// Tensor elements the kernel and delegate calls of one execute() touch, counted at
  /// the planned upper bounds (MethodMeta::elements_per_execute()). A lower bound on
  /// the work: a matmul does more than it touches.
  uint64_t max_elements_per_execute = uint64_t{1} << 32;
};

/// What a method needs before it can be loaded: its I/O counts and its memory.
class MethodMeta final {
 public:
  const char* name() const;
  size_t num_inputs() const;
  size_t num_outputs() const;
  /// Number of planned arenas the MemoryManager must provide.
  size_t num_arenas() const;
  /// Bytes arena `index` needs; 0 when `index` >= num_arenas().
  size_t arena_size(size_t index) const;
  /// Bytes the method allocator needs for Method load with BackendOptions::num_threads
  /// = `threads` (each thread gets a slice of the kernels' scratch): exact for a buffer
  /// aligned to MemoryAllocator::kAlignment, plus kAlignment so any buffer is enough.
  size_t method_allocator_bytes(uint32_t threads = 1) const;
  /// Bytes of each thread's kernel scratch slice (runtime/kernel/kernel_scratch.h) that
  /// method_allocator_bytes() holds: the most any kernel the method calls takes, in this
  /// runtime's kernel table; 0 when none takes any.
  size_t kernel_scratch_bytes() const;
  /// Bytes of method_allocator_bytes() the kernels' packed constant weights take
  /// (runtime/kernel/prepack.h): 0 when no kernel of the method packs one.
  size_t prepack_bytes() const;
  /// All the memory loading the method for `threads` threads takes: every arena plus
  /// method_allocator_bytes(threads), saturated at UINT64_MAX.
  /// LoadLimits::max_memory_bytes bounds it.
  uint64_t planned_bytes(uint32_t threads = 1) const;
  /// Tensor elements one execute() touches at the planned sizes (see LoadLimits).
  uint64_t elements_per_execute() const;
  /// LimitExceeded (logged with the figures) when planned_bytes(threads) or
  /// elements_per_execute() is over `limits`; check before allocating the memory.
  Error check_limits(const LoadLimits& limits, uint32_t threads = 1) const;

 private:
  friend class Program;
  friend uint64_t internal::planned_bytes(const fb::Method& method, uint32_t threads);
  explicit MethodMeta(const fb::Method* method) : method_(method) {}
  const fb::Method* method_;
};

/// A program file whose structure has been verified. Holds pointers into the memory
/// the DataLoader returned, so the loader must outlive the Program and every Method
/// loaded from it. Immutable after load: several threads may use one Program.
class Program final {
 public:
  Program() = default;

  /// Reads the header and checks the file identifier ("TL01"), the extended header
  /// ("TLH1") and every size in it against the file; runs the flatbuffers Verifier over
  /// the program bytes; loads the constant segment and checks every segment is inside
  /// it; checks method names are unique (at most 1024 methods). Returns InvalidProgram
  /// (with a log saying what is wrong) for a malformed or truncated file, or the
  /// loader's error.
  static Result<Program> load(DataLoader& loader);

  size_t num_methods() const;
  /// Name of method `index`; InvalidArgument when out of range.
  Result<const char*> method_name(size_t index) const;
  /// Metadata of method `name`; NotFound when the program has no such method.
  Result<MethodMeta> method_meta(const char* name) const;

  /// Loads method `name` with `memory` (see Method). The memory must outlive it.
  /// `backend_options` go to the backend of every delegate the method calls.
  /// LimitExceeded (logged with the figures) when the method plans more memory or
  /// touches more elements per run than `limits` allow.
  Result<Method> load_method(const char* name, MemoryManager& memory,
                             const BackendOptions& backend_options = BackendOptions(),
                             const LoadLimits& limits = LoadLimits()) const;

  /// The verified flatbuffer root, for Method load.
  const fb::Program* flatbuffer() const { return program_; }

  /// Address of bytes [offset, offset + nbytes) of constant segment `segment`, or
  /// InvalidProgram when the range is not inside it. Does not log.
  Result<const uint8_t*> constant_data(uint32_t segment, uint64_t offset, size_t nbytes) const;
  /// Tells the loader that constant bytes [data, data + nbytes) will not be read soon
  /// (DataLoader::release()): Method load does once it packed a copy of them.
  void release_constant(const void* data, size_t nbytes) const {
    if (loader_ != nullptr) loader_->release(data, nbytes);
  }

 private:
  const fb::Method* find_method(const char* name) const;

  const fb::Program* program_ = nullptr;
  DataLoader* loader_ = nullptr;  // for release_constant()
  const uint8_t* segment_data_ = nullptr;
  size_t segment_size_ = 0;
};

}  // namespace tailor
