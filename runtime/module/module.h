// Module: the few calls an application needs to run a program file (not core: uses
// the heap for the memory the core asks for).
#pragma once

#include <stddef.h>

#include "runtime/core/evalue.h"
#include "runtime/executor/memory_manager.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/loader/mmap_data_loader.h"
#include "runtime/module/method_memory.h"

namespace tailor {

/// Owns a mapped program file, the Program, one loaded Method and all their memory.
///
/// @code
///   Module m;
///   if (m.load("mlp.pte") != Error::Ok || m.load_method("forward") != Error::Ok) ...
///   m.method().set_input(0, data, sizes);
///   m.method().execute();
///   const Tensor& y = m.method().output(0).to_tensor();
/// @endcode
class Module final {
 public:
  Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  ~Module();

  /// Maps `path` and loads (verifies) its program. Errors as MmapDataLoader::open() and
  /// Program::load(); InvalidState when a program is already loaded.
  Error load(const char* path);

  /// Loads method `name` with a method allocator and zeroed arenas sized from its
  /// MethodMeta, replacing (and freeing) any method loaded before. NotFound when the
  /// program has no such method; LimitExceeded, before allocating anything, when the
  /// method asks for more than `limits`; otherwise the errors of Program::load_method().
  /// `backend_options` go to every delegate's backend (threads, ...).
  Error load_method(const char* name, const BackendOptions& backend_options = BackendOptions(),
                    const LoadLimits& limits = LoadLimits());

  const Program& program() const { return program_; }
  /// The loaded method; only valid after load_method() returned Ok.
  Method& method() { return method_; }

 private:
  void free_method_memory();

  MmapDataLoader loader_;
  Program program_;
  Method method_;
  bool loaded_ = false;
  MethodMemory memory_;
};

}  // namespace tailor
