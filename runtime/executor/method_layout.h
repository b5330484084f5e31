// Internal to runtime/executor: the pieces Method load is built from, shared by
// method_load.cpp, method_values.cpp, method_steps.cpp and MethodMeta (program.cpp).
// Load reads the flatbuffer (a hosted C++ library); execution only the Steps it built.
#pragma once

#include <stddef.h>
#include <stdint.h>

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
/// `threads` threads: 0 when the method calls no kernel or the runtime's kernels declare
/// none.
size_t scratch_allocator_bytes(const fb::Method& method, uint32_t threads);

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
