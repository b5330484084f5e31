// The events of an EventTracer as a Chrome trace (JSON "Trace Event Format"), which
// chrome://tracing and ui.perfetto.dev open, and `python -m inspector` reads.
#pragma once

#include <stdint.h>

#include <string>
#include <vector>

#include "runtime/trace/event_tracer.h"

namespace tailor::runner {

/// Collects the events of every run (as they are: formatting waits for write(), so it
/// disturbs no run), then writes one file:
///   {"traceEvents": [{"name": "aten::addmm.out", "cat": "kernel", "ph": "X",
///     "ts": 12.345, "dur": 3.210, "pid": 1, "tid": 1,
///     "args": {"instruction": 4, "run": 0}}, ...],
///    "displayTimeUnit": "ns", "otherData": {"format": "tailor-trace", "version": 1, ...}}
/// Times are microseconds from the first event (the method load).
class ChromeTrace {
 public:
  ChromeTrace(const std::string& program, const std::string& method,
              size_t num_instructions)
      : program_(program), method_(method), num_instructions_(num_instructions) {}

  /// Room for `events` events, so add() allocates nothing.
  void reserve(size_t events) { events_.reserve(events); }
  /// Appends the tracer's events (then the caller may clear it).
  void add(const EventTracer& tracer);
  /// Writes the file; false with `error` set when it cannot.
  bool write(const std::string& path, const EventTracer& tracer, std::string* error) const;

 private:
  std::string program_;
  std::string method_;
  size_t num_instructions_;
  std::vector<TraceEvent> events_;
  size_t dropped_ = 0;
};

}  // namespace tailor::runner
