// RunTrace: the runner's tracing and dumping, kept out of runner.cpp.
#include "runner/trace/run_trace.h"

#include <stdio.h>

namespace tailor::runner {

bool RunTrace::attach(Method& method, const MethodMeta& meta, uint64_t load_start,
                      uint64_t load_end) {
  if (trace_file_.empty() && dump_dir_.empty()) return true;
  std::string error;
  if (!dump_dir_.empty() && !make_dump_dir(dump_dir_, &error)) {
    fprintf(stderr, "%s: --dump-intermediates: %s\n", dump_dir_.c_str(), error.c_str());
    return false;
  }
  // One run's events (its instructions and the execute) plus the load.
  buffer_.resize(method.num_instructions() + 2);
  tracer_.reset(new EventTracer(buffer_.data(), buffer_.size()));
  MemoryPlanFigures plan;
  plan.num_arenas = meta.num_arenas();
  for (size_t i = 0; i < plan.num_arenas; ++i) plan.arena_bytes += meta.arena_size(i);
  plan.method_allocator_bytes = meta.method_allocator_bytes();
  plan.planned_bytes = meta.planned_bytes();
  tracer_->record_method_load(method.name(), plan, load_start, load_end);
  chrome_.reset(new ChromeTrace(program_, method.name(), method.num_instructions()));
  chrome_->reserve(1 + static_cast<size_t>(runs_) * (method.num_instructions() + 1));
  if (!dump_dir_.empty()) {
    dump_.dir = dump_dir_;
    tracer_->set_observer(&IntermediateDump::observe, &dump_);
  }
  method.set_event_tracer(tracer_.get());
  method_ = &method;
  return true;
}

void RunTrace::after_run() {
  if (tracer_ == nullptr) return;
  tracer_->set_observer(nullptr, nullptr);  // the first run's outputs are the dump
  chrome_->add(*tracer_);
  tracer_->clear();
}

bool RunTrace::finish() {
  if (tracer_ == nullptr) return true;
  if (!dump_dir_.empty()) {
    if (!dump_.error.empty()) {
      fprintf(stderr, "%s\n", dump_.error.c_str());
      return false;
    }
    fprintf(stderr, "%s: wrote %zu intermediate outputs\n", dump_dir_.c_str(), dump_.files);
  }
  std::string error;
  if (!trace_file_.empty() && !chrome_->write(trace_file_, *tracer_, &error)) {
    fprintf(stderr, "%s: %s\n", trace_file_.c_str(), error.c_str());
    return false;
  }
  return true;
}

}  // namespace tailor::runner
