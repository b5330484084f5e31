// Step: one instruction of a loaded method, decoded and checked at load so that
// Method::execute() reads no flatbuffer (the execute loop compiles freestanding).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "runtime/backend/backend.h"
#include "runtime/core/evalue.h"
#include "runtime/kernel/registry.h"

namespace tailor::internal {

enum class StepKind : uint8_t { KernelCall, DelegateCall, Move, JumpFalse, Free };

/// KernelCall: `fn(ctx, args)` for operator `op` ("aten::add.out"); DelegateCall:
/// `backend->execute(handle, args[0, a))` for delegate `b`; Move: values[b] = values[a];
/// JumpFalse: go to `b` when values[a] is false; Free: nothing (memory is planned).
/// `packed`: a KernelCall's prepacked weight (runtime/kernel/prepack.h), or nullptr.
struct Step {
  StepKind kind;
  uint32_t a;
  uint32_t b;
  OpFunction fn;
  EValue** args;
  const char* op;
  const Backend* backend = nullptr;
  DelegateHandle* handle = nullptr;
  const void* packed = nullptr;
};

/// Destroys the backend state of every DelegateCall step in steps[0, count).
void destroy_delegates(Step* steps, size_t count);

}  // namespace tailor::internal

// Tracing hooks of Method::execute(). A trace=1 build (TL_TRACE=1) times each step through
// the method's EventTracer (runtime/trace/); any other build compiles them to nothing.
// They sit on lines execute() already had, so the default runtime stays byte-identical
// (no line number in a log call moves).
#if TL_TRACE
#include "runtime/trace/event_tracer.h"

namespace tailor::internal {
inline const Step& traced_step(EventTracer* tracer, const Step* steps, size_t pc) {
  if (tracer != nullptr) tracer->begin_step(steps, pc);
  return steps[pc];
}
inline Error traced_end(EventTracer* tracer, Error result) {
  if (tracer != nullptr) tracer->end_execute();
  return result;
}
}  // namespace tailor::internal

#define TL_TRACE_BEGIN_EXECUTE(tracer, method) \
  ((tracer) != nullptr ? (tracer)->begin_execute(method) : (void)0)
#define TL_TRACED_STEP(tracer, steps, pc) (::tailor::internal::traced_step(tracer, steps, pc))
#define TL_TRACED_END(tracer, result) (::tailor::internal::traced_end(tracer, result))
#else
#define TL_TRACE_BEGIN_EXECUTE(tracer, method) ((void)0)
#define TL_TRACED_STEP(tracer, steps, pc) ((steps)[pc])
#define TL_TRACED_END(tracer, result) (result)
#endif
