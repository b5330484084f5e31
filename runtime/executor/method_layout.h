// Internal to runtime/executor: the pieces Method load is built from, shared by
// method_load.cpp, method_values.cpp, method_steps.cpp and MethodMeta (program.cpp).
// Load reads the flatbuffer (a hosted C++ library); execution only the Steps it built.
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "program_generated.h"
#include "runtime/backend/backend.h"
#include "runtime/core/evalue.h"
#include "runtime/executor/memory_manager.h"
#include "runtime/executor/program.h"
#include "runtime/executor/step.h"
#include "runtime/kernel/registry.h"

namespace tailor::internal {

/// What value and instruction parsing read and fill.
struct LoadContext {
  const Program& program;
  const fb::Method& method;
  MemoryManager& memory;
  const char* method_name;
  EValue* values;
  size_t num_values;
  const BackendOptions& backend_options;
};

/// Method-allocator bytes parse_values() / parse_steps() take for `method`; kept next to
/// the allocations they count so the two cannot drift apart.
size_t values_allocator_bytes(const fb::Method& method);
size_t steps_allocator_bytes(const fb::Method& method);
size_t io_allocator_bytes(const fb::Method& method);
/// Method-allocator bytes of the kernels' scratch (runtime/kernel/kernel_scratch.h) for
/// `threads` threads: 0 when no kernel the method calls declares any.
size_t scratch_allocator_bytes(const fb::Method& method, uint32_t threads);

/// The kernels' packed constant weights (runtime/kernel/prepack.h, method_prepack.cpp),
/// reached through gen::kPrepackPath so that a kernel table without hooks links none of it.
struct PrepackPath {
  /// Method-allocator bytes of the packed copies: 0 when no kernel the method calls packs one.
  size_t (*allocator_bytes)(const fb::Method& method);
  /// Makes the packed copy of each kernel call's constant weight whose kernel has a
  /// prepack hook (steps[pc].packed); `*made` copies of `*bytes` bytes in all.
  Error (*steps)(LoadContext& ctx, Step* steps, size_t count, size_t* made, size_t* bytes);
};

/// prepack_allocator_bytes of gen::kPrepackPath; 0 without one.
inline size_t prepack_allocator_bytes(const fb::Method& method) {
  return gen::kPrepackPath != nullptr ? gen::kPrepackPath->allocator_bytes(method) : 0;
}

/// Bytes of one thread's kernel scratch slice for `method`: the most any kernel its
/// calls resolve to takes (KernelEntry::scratch_bytes); 0 for none (method_kernels.cpp).
size_t method_scratch_bytes(const fb::Method& method);

// Appends printf output to a bounded buffer; remembers whether anything was cut.
struct KeyWriter {
  char* out;
  size_t size;
  size_t used;
  bool truncated;

  void append(const char* text) {
    const size_t len = strlen(text);
    if (truncated || len >= size - used) {
      truncated = true;
      return;
    }
    memcpy(out + used, text, len + 1);
    used += len;
  }
};

// Long enough for any realistic key ("BFloat16;0,1,2,3|" per tensor argument).
inline constexpr size_t kMaxKernelKey = 1024;
inline constexpr size_t kMaxOperatorName = 256;

/// The kernel table row a call of operator `op_name` with arguments `args` runs: the one
/// for the exact kernel key of its tensors (written to `key`; *key_ok false when it does
/// not fit), else the one for any dtype (""); nullptr when the table has neither.
const KernelEntry* find_kernel(const fb::Method& method, const char* op_name,
                               const flatbuffers::Vector<int32_t>* args, char* key,
                               size_t key_size, bool* key_ok);

/// MethodMeta::planned_bytes(threads) of `method`.
uint64_t planned_bytes(const fb::Method& method, uint32_t threads);

/// LimitExceeded (logged with both figures) when the method's planned memory or
/// elements_per_execute() is over its limit.
Error check_limits(const fb::Method& method, const LoadLimits& limits, uint32_t threads);

/// Tensor elements one run's kernel and delegate calls touch at the planned sizes (each
/// argument counted once per call, tensor lists by item), saturated at UINT64_MAX.
uint64_t elements_per_execute(const fb::Method& method);

/// Builds ctx.values[0, num_values) from the program, checking every value.
Error parse_values(LoadContext& ctx);

/// Checks every instruction, resolves each kernel call and initialises each delegate;
/// on success `*steps` holds `*count` steps from the method allocator. On failure the
/// delegates initialised so far are destroyed.
Error parse_steps(LoadContext& ctx, Step** steps, size_t* count);

/// Writes "aten::add.out" for `op` into `out`; false when it does not fit.
bool format_operator_name(const fb::Operator& op, char* out, size_t out_size);

}  // namespace tailor::internal
