// EventTracer: what a method did and when, for profiling. Compiled only into trace=1
// builds (TL_TRACE=1); the default runtime has no hook and no byte of it.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "runtime/core/evalue.h"

namespace tailor {

namespace internal {
struct Step;
}  // namespace internal

enum class TraceEventKind : uint8_t {
  MethodLoad,   ///< Program::load_method() as the application timed it
  Execute,      ///< one Method::execute()
  Instruction,  ///< one instruction of an execute(): a kernel or delegate call, ...
};

/// One timed event. Ticks are tl_pal_current_ticks() (tl_pal_ticks_to_ns() converts).
struct TraceEvent {
  TraceEventKind kind;
  bool delegate;         ///< Instruction: a delegate call (`name` is its backend)
  uint32_t index;        ///< Instruction: its index in the method; Execute: the run
  uint32_t run;          ///< the execute() the event belongs to (0, 1, ...)
  const char* name;      ///< operator ("aten::addmm.out"), backend, or method name
  uint64_t start_ticks;
  uint64_t end_ticks;
};

/// The memory plan of the traced method (MethodMeta's figures).
struct MemoryPlanFigures {
  size_t num_arenas = 0;
  uint64_t arena_bytes = 0;             ///< every arena together
  uint64_t method_allocator_bytes = 0;  ///< values, tensor metadata, instruction table
  uint64_t planned_bytes = 0;           ///< both
};

/// An instruction that has just run, for an InstructionObserver. Valid during the call.
struct InstructionView {
  size_t index;
  const char* name;       ///< operator or backend
  bool delegate;
  EValue* const* args;    ///< the call's arguments in slot order
  size_t num_args;
  /// The kernel's argument kinds (KernelEntry::args: '!' marks a slot it writes), or
  /// nullptr when unknown (delegate calls: any argument may be written).
  const char* signature;
};

/// Called after each instruction (kernel and delegate calls) while observing, e.g. to
/// save intermediate outputs. Its own time is not counted in the instruction's.
using InstructionObserver = void (*)(void* context, const InstructionView& instruction);

/// Records into a buffer the application owns (`capacity` events; no allocation).
/// Events that do not fit are counted in dropped(). Attach it with
/// Method::set_event_tracer(); a method records one Execute event per execute() and one
/// Instruction event per instruction it runs. Not thread-safe (neither is a Method).
class EventTracer final {
 public:
  EventTracer(TraceEvent* buffer, size_t capacity) : buffer_(buffer), capacity_(capacity) {}

  /// Records a load of `method` the caller timed, with the memory plan it was given
  /// (MethodMeta's figures).
  void record_method_load(const char* method, const MemoryPlanFigures& plan,
                          uint64_t start_ticks, uint64_t end_ticks);

  /// Calls `observer(context, ...)` after every instruction; nullptr stops observing.
  void set_observer(InstructionObserver observer, void* context) {
    observer_ = observer;
    observer_context_ = context;
  }

  const TraceEvent* events() const { return buffer_; }
  size_t size() const { return size_; }
  size_t dropped() const { return dropped_; }
  const MemoryPlanFigures& memory_plan() const { return memory_plan_; }
  /// Forgets the recorded events (not the run count or the memory plan), e.g. after
  /// the application saved them.
  void clear() {
    size_ = 0;
    dropped_ = 0;
  }

  // Called by Method::execute() through the hooks of runtime/executor/step.h.
  void begin_execute(const char* method);
  void begin_step(const internal::Step* steps, size_t pc);
  void end_execute();

 private:
  TraceEvent* push(TraceEventKind kind, const char* name, uint32_t index, uint64_t start);
  // Ends the open instruction at `now`; true when an observer ran.
  bool close_step(uint64_t now);

  TraceEvent* buffer_;
  size_t capacity_;
  size_t size_ = 0;
  size_t dropped_ = 0;
  uint32_t run_ = 0;
  bool executing_ = false;
  TraceEvent* execute_event_ = nullptr;
  TraceEvent* step_event_ = nullptr;
  const internal::Step* open_step_ = nullptr;
  size_t open_pc_ = 0;
  InstructionObserver observer_ = nullptr;
  void* observer_context_ = nullptr;
  MemoryPlanFigures memory_plan_;
};

}  // namespace tailor
