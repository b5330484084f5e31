// ChromeTrace: EventTracer events -> Chrome trace JSON.
#include "runner/trace/chrome_trace.h"

#include <stdio.h>

#include "runner/json_string.h"
#include "runtime/platform/platform.h"

namespace tailor::runner {
namespace {

// Nanoseconds as microseconds with three decimals: "12.345".
std::string micros(uint64_t ns) {
  char text[32];
  snprintf(text, sizeof(text), "%llu.%03llu", static_cast<unsigned long long>(ns / 1000),
           static_cast<unsigned long long>(ns % 1000));
  return text;
}

const char* category(const TraceEvent& e) {
  switch (e.kind) {
    case TraceEventKind::MethodLoad: return "load";
    case TraceEventKind::Execute: return "execute";
    case TraceEventKind::Instruction: break;
  }
  return e.delegate ? "delegate" : "kernel";
}

std::string memory_plan_json(const MemoryPlanFigures& plan) {
  return "{\"arenas\": " + std::to_string(plan.num_arenas) +
         ", \"arena_bytes\": " + std::to_string(plan.arena_bytes) +
         ", \"method_allocator_bytes\": " + std::to_string(plan.method_allocator_bytes) +
         ", \"planned_bytes\": " + std::to_string(plan.planned_bytes) + "}";
}

}  // namespace

void ChromeTrace::add(const EventTracer& tracer) {
  events_.insert(events_.end(), tracer.events(), tracer.events() + tracer.size());
  dropped_ += tracer.dropped();
}

bool ChromeTrace::write(const std::string& path, const EventTracer& tracer,
                        std::string* error) const {
  // Times count from the first event's start (the load's).
  const uint64_t origin = events_.empty() ? 0 : tl_pal_ticks_to_ns(events_[0].start_ticks);
  std::string events;
  uint32_t runs = 0;
  for (const TraceEvent& e : events_) {
    const uint64_t start = tl_pal_ticks_to_ns(e.start_ticks);
    const uint64_t end = tl_pal_ticks_to_ns(e.end_ticks);
    std::string args;
    if (e.kind == TraceEventKind::Instruction) {
      args = "{\"instruction\": " + std::to_string(e.index) + ", \"run\": " +
             std::to_string(e.run) + "}";
    } else if (e.kind == TraceEventKind::Execute) {
      args = "{\"run\": " + std::to_string(e.run) + "}";
      runs = e.run + 1 > runs ? e.run + 1 : runs;
    } else {
      args = "{\"memory_plan\": " + memory_plan_json(tracer.memory_plan()) + "}";
    }
    const std::string name = e.kind == TraceEventKind::MethodLoad
                                 ? std::string("load ") + e.name
                                 : std::string(e.name);
    events += events.empty() ? "\n" : ",\n";
    events += "{\"name\": " + json_string(name) + ", \"cat\": \"" + category(e) +
              "\", \"ph\": \"X\", \"ts\": " + micros(start >= origin ? start - origin : 0) +
              ", \"dur\": " + micros(end >= start ? end - start : 0) +
              ", \"pid\": 1, \"tid\": 1, \"args\": " + args + "}";
  }
  const std::string names =
      "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": " +
      json_string("runner " + program_) + "}},\n{\"name\": \"thread_name\", \"ph\": \"M\", "
      "\"pid\": 1, \"tid\": 1, \"args\": {\"name\": " + json_string("method " + method_) + "}}";
  const std::string text =
      "{\"traceEvents\": [\n" + names + (events.empty() ? "" : ",") + events +
      "\n],\n\"displayTimeUnit\": \"ns\",\n\"otherData\": {\"format\": \"tailor-trace\", "
      "\"version\": 1, \"program\": " + json_string(program_) + ", \"method\": " +
      json_string(method_) + ", \"instructions\": " + std::to_string(num_instructions_) +
      ", \"runs\": " + std::to_string(runs) + ", \"dropped_events\": " +
      std::to_string(dropped_) + ", \"memory_plan\": " + memory_plan_json(tracer.memory_plan()) +
      "}}\n";
  FILE* f = fopen(path.c_str(), "wb");
  if (f == nullptr) {
    *error = "cannot write the trace (does its directory exist?)";
    return false;
  }
  const bool ok = fwrite(text.data(), 1, text.size(), f) == text.size();
  if (fclose(f) != 0 || !ok) {
    *error = "cannot write the trace (disk full?)";
    return false;
  }
  return true;
}

}  // namespace tailor::runner
