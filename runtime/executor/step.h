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
struct Step {
  StepKind kind;
  uint32_t a;
  uint32_t b;
  OpFunction fn;
  EValue** args;
  const char* op;
  const Backend* backend = nullptr;
  DelegateHandle* handle = nullptr;
};

/// Destroys the backend state of every DelegateCall step in steps[0, count).
void destroy_delegates(Step* steps, size_t count);

}  // namespace tailor::internal
