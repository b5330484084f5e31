// What the runner's --trace FILE and --dump-intermediates DIR do around the method's
// load and runs (trace=1 builds only).
#pragma once

#include <stdint.h>

#include <memory>
#include <string>
#include <vector>

#include "runner/trace/chrome_trace.h"
#include "runner/trace/intermediates.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/trace/event_tracer.h"

namespace tailor::runner {

/// Attaches an EventTracer to the method when a trace file or a dump directory is
/// asked for, keeps every run's events, and writes the trace at the end. Intermediate
/// outputs are saved during the first run only. Errors are printed with their file.
class RunTrace {
 public:
  RunTrace(const std::string& program, const std::string& trace_file,
           const std::string& dump_dir, uint32_t runs)
      : program_(program), trace_file_(trace_file), dump_dir_(dump_dir), runs_(runs) {}
  RunTrace(const RunTrace&) = delete;
  RunTrace& operator=(const RunTrace&) = delete;
  ~RunTrace() {
    if (method_ != nullptr) method_->set_event_tracer(nullptr);
  }

  /// Right after the method loaded (between `load_start` and `load_end` ticks).
  bool attach(Method& method, const MethodMeta& meta, uint64_t load_start, uint64_t load_end);
  /// After each execute().
  void after_run();
  /// After the last run: writes the trace file.
  bool finish();

 private:
  std::string program_;
  std::string trace_file_;
  std::string dump_dir_;
  uint32_t runs_;
  Method* method_ = nullptr;
  std::vector<TraceEvent> buffer_;
  std::unique_ptr<EventTracer> tracer_;
  std::unique_ptr<ChromeTrace> chrome_;
  IntermediateDump dump_;
};

}  // namespace tailor::runner
