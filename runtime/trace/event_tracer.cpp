// EventTracer: one timestamp per instruction boundary, so tracing costs one clock read
// per instruction and the instruction times add up to the execute time.
#include "runtime/trace/event_tracer.h"

#include "runtime/executor/step.h"
#include "runtime/kernel/registry.h"
#include "runtime/platform/platform.h"

namespace tailor {
namespace {

// The signature of the kernel a step calls: the table row with its function and name.
const char* kernel_signature(const internal::Step& step) {
  for (size_t i = 0; i < gen::kNumKernels; ++i) {
    const KernelEntry& entry = gen::kKernels[i];
    if (entry.fn == step.fn && entry.op == step.op) return entry.args;
  }
  return nullptr;
}

// Argument slots of a kernel signature ("TTS!T": 4); 0 for none.
size_t count_slots(const char* signature) {
  size_t n = 0;
  for (const char* p = signature; p != nullptr && *p != '\0'; ++p) n += *p != '?' && *p != '!';
  return n;
}

const char* step_name(const internal::Step& step) {
  switch (step.kind) {
    case internal::StepKind::KernelCall: return step.op;
    case internal::StepKind::DelegateCall: return step.backend->name;
    case internal::StepKind::Move: return "move";
    case internal::StepKind::JumpFalse: return "jump_false";
    case internal::StepKind::Free: return "free";
  }
  return "?";
}

}  // namespace

TraceEvent* EventTracer::push(TraceEventKind kind, const char* name, uint32_t index,
                              uint64_t start) {
  if (size_ >= capacity_) {
    ++dropped_;
    return nullptr;
  }
  TraceEvent* event = &buffer_[size_++];
  *event = TraceEvent{kind, false, index, run_, name, start, start};
  return event;
}

void EventTracer::record_method_load(const char* method, const MemoryPlanFigures& plan,
                                     uint64_t start_ticks, uint64_t end_ticks) {
  memory_plan_ = plan;
  TraceEvent* event = push(TraceEventKind::MethodLoad, method, 0, start_ticks);
  if (event != nullptr) event->end_ticks = end_ticks;
}

void EventTracer::begin_execute(const char* method) {
  if (executing_) ++run_;  // the previous execute() failed before its end
  executing_ = true;
  open_step_ = nullptr;
  step_event_ = nullptr;
  execute_event_ = push(TraceEventKind::Execute, method, run_, tl_pal_current_ticks());
}

bool EventTracer::close_step(uint64_t now) {
  if (open_step_ == nullptr) return false;
  if (step_event_ != nullptr) step_event_->end_ticks = now;
  const internal::Step& step = *open_step_;
  open_step_ = nullptr;
  step_event_ = nullptr;
  const bool delegate = step.kind == internal::StepKind::DelegateCall;
  if (observer_ == nullptr || (!delegate && step.kind != internal::StepKind::KernelCall)) {
    return false;
  }
  const char* signature = delegate ? nullptr : kernel_signature(step);
  observer_(observer_context_,
            InstructionView{open_pc_, step_name(step), delegate, step.args,
                            delegate ? step.a : count_slots(signature), signature});
  return true;
}

void EventTracer::begin_step(const internal::Step* steps, size_t pc) {
  const uint64_t end = tl_pal_current_ticks();
  // The clock is read again after an observer ran: its time belongs to no instruction.
  const uint64_t now = close_step(end) ? tl_pal_current_ticks() : end;
  const internal::Step& step = steps[pc];
  open_step_ = &step;
  open_pc_ = pc;
  step_event_ = push(TraceEventKind::Instruction, step_name(step), static_cast<uint32_t>(pc),
                     now);
  if (step_event_ != nullptr) {
    step_event_->delegate = step.kind == internal::StepKind::DelegateCall;
  }
}

void EventTracer::end_execute() {
  const uint64_t now = tl_pal_current_ticks();
  close_step(now);
  if (execute_event_ != nullptr) execute_event_->end_ticks = now;
  execute_event_ = nullptr;
  executing_ = false;
  ++run_;
}

}  // namespace tailor
