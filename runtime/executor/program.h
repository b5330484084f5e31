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
  /// Bytes the method allocator needs for Method load: exact for a buffer aligned to
  /// MemoryAllocator::kAlignment, plus kAlignment so any buffer is enough.
  size_t method_allocator_bytes() const;

 private:
  friend class Program;
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
  Result<Method> load_method(const char* name, MemoryManager& memory,
                             const BackendOptions& backend_options = BackendOptions()) const;

  /// The verified flatbuffer root, for Method load.
  const fb::Program* flatbuffer() const { return program_; }

  /// Address of bytes [offset, offset + nbytes) of constant segment `segment`, or
  /// InvalidProgram when the range is not inside it. Does not log.
  Result<const uint8_t*> constant_data(uint32_t segment, uint64_t offset, size_t nbytes) const;

 private:
  const fb::Method* find_method(const char* name) const;

  const fb::Program* program_ = nullptr;
  const uint8_t* segment_data_ = nullptr;
  size_t segment_size_ = 0;
};

}  // namespace tailor
