// Backend: the interface a delegate backend (backends/<name>/runtime/) implements, and
// the table of backends a runtime was built with.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "runtime/core/array_ref.h"
#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/result.h"

namespace tailor {

/// Settings the application gives every backend when it loads a method.
struct BackendOptions {
  /// Threads a backend may use to run one delegate call; 1 runs on the caller's thread.
  uint32_t num_threads = 1;
  /// Method load packs the constant weights of kernels that declare a prepack hook
  /// (runtime/kernel/prepack.h); false leaves them as they are (the memory
  /// MethodMeta::method_allocator_bytes() reserves for them then goes unused).
  bool prepack_weights = true;
};

/// A backend's state for one delegate of one loaded method; only the backend knows its
/// layout.
struct DelegateHandle;

/// What init() gets besides its payload: the values of the delegate call (inputs, then
/// outputs, in the order the payload refers to them). Constant tensors already hold
/// their data; planned tensors are at their upper-bound sizes and hold no data yet.
struct BackendInitContext {
  ArrayRef<EValue*> args;
  const BackendOptions& options;
  const char* method_name;
  /// The handle this backend's init() returned for the method's previous delegate, or
  /// nullptr for its first: a backend may share state (a thread pool) among one method's
  /// delegates. Those are created by one load, destroyed by one destructor and never run
  /// at once, so what they share needs no lock; other methods' delegates share nothing.
  DelegateHandle* previous;
};

/// One backend: a name the program's Delegate entries use ("xnnpack") and its
/// functions. A Method calls init() once per DelegateCall at load, execute() each time
/// the instruction runs, rest() as it says and destroy() when it is destroyed.
struct Backend {
  const char* name;
  /// True when the backend can run on this machine (e.g. the CPU has the instructions
  /// it needs). Method load rejects a delegate of an unavailable backend.
  bool (*is_available)();
  /// Checks the `size` bytes of `payload` (owned by the program, alive as long as the
  /// method) against `ctx.args` and prepares to run them. Returns the handle, or
  /// DelegateInvalidCompatibility for a payload it cannot run,
  /// DelegateMemoryAllocationFailed when out of memory (logged).
  Result<DelegateHandle*> (*init)(const BackendInitContext& ctx, const void* payload,
                                  size_t size);
  /// Runs the delegate on `args` (the same values init() saw, inputs now filled) and
  /// resizes dynamic outputs. Errors are logged.
  Error (*execute)(DelegateHandle* handle, ArrayRef<EValue*> args);
  /// Optional (nullptr when init() keeps no state): frees what init() created.
  void (*destroy)(DelegateHandle* handle);
  /// Optional: the backend's own threads stop waiting for its next call and sleep. A
  /// Method calls it, with the handle of the last delegate it ran, when a kernel is about
  /// to split work over the application's threads after that delegate (in the same run or
  /// the next): a thread of the backend polling for work would take a core the kernel's
  /// threads need.
  void (*rest)(DelegateHandle* handle) = nullptr;
};

namespace gen {
/// Defined by the generated gen/register_backends.cpp: the backends this runtime was
/// built with (the target manifest's `backends:`). A runtime linked without that file
/// has none (runtime/backend/no_backends.cpp).
extern const Backend* const kBackends[];
extern const size_t kNumBackends;
}  // namespace gen

/// The backend named `name` in this runtime, or nullptr.
const Backend* backend_find(const char* name);

/// Writes the names of this runtime's backends ("xnnpack, ...", or "none") into `out`
/// for messages.
void backend_list_names(char* out, size_t size);

}  // namespace tailor
