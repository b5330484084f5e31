// Saving what each instruction wrote, for numeric debugging (`python -m inspector
// --dump-dir DIR` compares it with torch eager, node by node).
#pragma once

#include <string>

#include "runtime/trace/event_tracer.h"

namespace tailor::runner {

/// An InstructionObserver context: after each kernel call it writes every tensor the
/// kernel wrote (the slots its signature marks '!') to DIR/<instruction>_<slot>.npy
/// (DIR/<instruction>_<slot>_<item>.npy for an item of a tensor list); after a delegate
/// call, every tensor argument. The first failure stops the dumping and is kept.
struct IntermediateDump {
  std::string dir;
  size_t files = 0;
  std::string error;  // "" while all is well

  /// The observer to give EventTracer::set_observer() with `this` as context.
  static void observe(void* context, const InstructionView& instruction);
};

/// Creates `dir` when it does not exist; false with `error` set when it cannot.
bool make_dump_dir(const std::string& dir, std::string* error);

}  // namespace tailor::runner
