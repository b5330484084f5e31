// runner: loads a program, feeds it .npy inputs, runs a method, writes or checks outputs.
//
//   runner PROGRAM [--method NAME | --list-methods] [--input FILE.npy ...] [--output FILE.npy ...]
//          [--check] [--atol X] [--rtol X] [--threads N] [--repeat N] [--warmup N]
//          [--reset-state] [--verbose] [--json FILE]
//          [--max-memory BYTES] [--max-elements N]
//          [--trace FILE] [--dump-intermediates DIR]      (trace=1 builds)
//
// Exit codes: 0 ok, 1 load/run error or check failure, 2 usage error.
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <vector>

#include "runner/check.h"
#include "runner/npy.h"
#include "runner/options.h"
#include "runner/summary.h"
#include "runtime/core/half.h"
#include "runtime/kernel/cpu_level.h"
#include "runtime/kernel/thread_pool.h"
#include "runtime/module/module.h"
#include "runtime/platform/platform.h"
#if TL_TRACE
#include "runner/trace/run_trace.h"
#endif

namespace {

using tailor::Error;
using tailor::EValue;
using tailor::Method;
using tailor::ScalarType;
using tailor::runner::kExitFailure;
using tailor::runner::kExitOk;
using tailor::runner::kExitUsage;
using tailor::runner::NpyArray;
using tailor::runner::Options;
using tailor::runner::RunSummary;

// Runtime log messages are about the program file: prefix them with its path.
const char* g_log_prefix = "runner";
bool g_verbose = false;

// --reset-state: the run is the first call again, its random numbers too.
bool reset(Method& method, uint64_t seed) {
  method.set_seed(seed);
  return method.reset_state() == Error::Ok;
}

bool file_exists(const std::string& path) {
  FILE* f = fopen(path.c_str(), "rb");
  if (f != nullptr) fclose(f);
  return f != nullptr;
}

// "<dir>/<stem>_io/<name>" for PROGRAM = "<dir>/<stem>.pte".
std::string io_path(const std::string& program, const std::string& name) {
  const size_t slash = program.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : program.substr(0, slash + 1);
  std::string stem = slash == std::string::npos ? program : program.substr(slash + 1);
  const size_t dot = stem.rfind('.');
  if (dot != std::string::npos && dot > 0) stem = stem.substr(0, dot);
  return dir + stem + "_io/" + name;
}

bool set_input(const Options& o, Method& method, size_t i, const std::string& path) {
  NpyArray array;
  std::string error;
  if (!tailor::runner::read_npy(path, &array, &error)) {
    fprintf(stderr, "%s: %s\n", path.c_str(), error.c_str());
    return false;
  }
  const EValue& in = method.input(i);
  const std::string where = "input " + std::to_string(i) + " of " + o.program + " method '" +
                            o.method + "'";
  if (in.is_tensor()) {
    const ScalarType want = in.to_tensor().dtype();
    // numpy has no bfloat16: accept float32 data for a BFloat16 input.
    if (want == ScalarType::BFloat16 && array.dtype == ScalarType::Float) {
      std::vector<uint8_t> narrowed(array.numel() * 2);
      for (size_t k = 0; k < array.numel(); ++k) {
        float f;
        memcpy(&f, array.data.data() + 4 * k, 4);
        const tailor::BFloat16 b(f);
        memcpy(narrowed.data() + 2 * k, &b.bits, 2);
      }
      array.data.swap(narrowed);
      array.dtype = ScalarType::BFloat16;
    }
    if (array.dtype != want) {
      fprintf(stderr, "%s: dtype %s does not match %s (%s)\n", path.c_str(),
              tailor::scalar_type_name(array.dtype), where.c_str(),
              tailor::scalar_type_name(want));
      return false;
    }
    const Error err = method.set_input(
        i, array.dtype, array.data.data(),
        tailor::ArrayRef<int64_t>(array.shape.data(), array.shape.size()));
    if (err != Error::Ok) {
      fprintf(stderr, "%s: cannot use shape %s as %s: %s\n", path.c_str(),
              tailor::runner::format_shape(array.shape).c_str(), where.c_str(),
              tailor::error_name(err));
      return false;
    }
    return true;
  }
  // Int / Double / Bool inputs come as one-element arrays.
  if (array.numel() != 1) {
    fprintf(stderr, "%s: %s is a %s and needs a one-element array, got shape %s\n", path.c_str(),
            where.c_str(), tailor::evalue_tag_name(in.tag()),
            tailor::runner::format_shape(array.shape).c_str());
    return false;
  }
  EValue value;
  int64_t iv = 0;
  double dv = 0;
  if (in.is_int() && tailor::is_integral_type(array.dtype, false)) {
    memcpy(&iv, array.data.data(), tailor::element_size(array.dtype));
    if (array.dtype == ScalarType::Char) iv = static_cast<int8_t>(iv);
    if (array.dtype == ScalarType::Short) iv = static_cast<int16_t>(iv);
    if (array.dtype == ScalarType::Int) iv = static_cast<int32_t>(iv);
    value = EValue(iv);
  } else if (in.is_double() && array.dtype == ScalarType::Double) {
    memcpy(&dv, array.data.data(), 8);
    value = EValue(dv);
  } else if (in.is_bool() && array.dtype == ScalarType::Bool) {
    value = EValue(array.data[0] != 0);
  } else {
    fprintf(stderr, "%s: dtype %s does not fit %s (%s)\n", path.c_str(),
            tailor::scalar_type_name(array.dtype), where.c_str(), tailor::evalue_tag_name(in.tag()));
    return false;
  }
  if (method.set_input(i, value) != Error::Ok) {
    fprintf(stderr, "%s: cannot set %s\n", path.c_str(), where.c_str());
    return false;
  }
  return true;
}

// Sets every input before a run, from its file, or to zeros without files. Every run:
// planned memory is shared, so a run leaves other values' bytes in an input's (token ids
// then fall out of an embedding's range). State (a KV cache) is no input: it is kept.
bool feed_inputs(const Options& o, Method& method, const std::vector<std::string>& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!set_input(o, method, i, inputs[i])) return false;
  }
  for (size_t i = 0; inputs.empty() && i < method.inputs_size(); ++i) {
    const EValue& in = method.input(i);  // a scalar keeps the program's value
    if (in.is_tensor() && in.to_tensor().nbytes() > 0) {
      memset(in.to_tensor().data(), 0, in.to_tensor().nbytes());
    }
  }
  return true;
}

std::string method_list(const tailor::Program& program) {
  std::string names;
  for (size_t i = 0; i < program.num_methods(); ++i) {
    tailor::Result<const char*> name = program.method_name(i);
    names += (i > 0 ? ", " : "") + std::string(name.ok() ? *name : "?");
  }
  return names.empty() ? "none" : names;
}

// Prints, writes or checks every output, noting each in `summary`; returns the exit code.
int handle_outputs(const Options& o, Method& method, RunSummary* summary) {
  bool all_ok = true;
  for (size_t i = 0; i < method.outputs_size(); ++i) {
    NpyArray actual;
    std::string error;
    if (!tailor::runner::output_to_array(method.output(i), &actual, &error)) {
      fprintf(stderr, "%s: output %zu: %s\n", o.program.c_str(), i, error.c_str());
      all_ok = false;
      summary->outputs.push_back({{}, ScalarType::Float, 0});
      continue;
    }
    summary->outputs.push_back({actual.shape, actual.dtype, -1});
    if (i < o.outputs.size() && !tailor::runner::write_npy(o.outputs[i], actual, &error)) {
      fprintf(stderr, "%s: %s\n", o.outputs[i].c_str(), error.c_str());
      all_ok = false;
    }
    if (!o.check) {
      printf("output %zu: shape %s %s %s\n", i, tailor::runner::format_shape(actual.shape).c_str(),
             tailor::scalar_type_name(actual.dtype),
             tailor::runner::preview_values(actual, 8).c_str());
      continue;
    }
    const std::string expected_path = io_path(o.program, "expected_" + std::to_string(i) + ".npy");
    const std::string drawn_path = io_path(o.program, "drawn_" + std::to_string(i) + ".npy");
    NpyArray expected;
    if (!file_exists(expected_path) && tailor::runner::read_npy(drawn_path, &expected, &error)) {
      // Drawn by random operators (or unset): Tailor's generator is not torch's.
      const bool match = expected.dtype == actual.dtype && expected.shape == actual.shape;
      printf("output %zu: shape %s %s, drawn from random operators: shape and dtype checked "
             "(eager has %s %s): %s\n", i, tailor::runner::format_shape(actual.shape).c_str(),
             tailor::scalar_type_name(actual.dtype),
             tailor::runner::format_shape(expected.shape).c_str(),
             tailor::scalar_type_name(expected.dtype), match ? "ok" : "FAILED");
      summary->outputs.back().check = match ? 1 : 0;
      all_ok = all_ok && match;
      continue;
    }
    if (!tailor::runner::read_npy(expected_path, &expected, &error)) {
      printf("output %zu: %s: %s: FAILED\n", i, expected_path.c_str(), error.c_str());
      all_ok = false;
      summary->outputs.back().check = 0;
      continue;
    }
    std::string line;
    bool weak = false;
    const bool match = tailor::runner::compare_arrays(actual, expected, o.tol, &line, &weak);
    printf("output %zu: %s: %s\n", i, line.c_str(), match ? "ok" : "FAILED");
    if (weak) {
      printf("warning: output %zu: every expected value is within tolerance of zero, so this "
             "check would pass on zeros too; give the model inputs or weights that make its "
             "outputs larger, or lower atol\n", i);
    }
    summary->outputs.back().check = match ? 1 : 0;
    all_ok = all_ok && match;
  }
  if (o.check) printf(all_ok ? "check passed\n" : "check FAILED\n");
  return all_ok ? kExitOk : kExitFailure;
}

int run(const Options& o) {
  g_log_prefix = o.program.c_str();
  tailor::Module module;
  Error err = module.load(o.program.c_str());
  if (err != Error::Ok) {
    fprintf(stderr, "%s: cannot load program: %s\n", o.program.c_str(), tailor::error_name(err));
    return kExitFailure;
  }
  if (o.list_methods) {
    for (size_t i = 0; i < module.program().num_methods(); ++i) {
      tailor::Result<const char*> name = module.program().method_name(i);
      if (!name.ok()) return kExitFailure;
      tailor::Result<tailor::MethodMeta> meta = module.program().method_meta(*name);
      if (!meta.ok()) return kExitFailure;
      printf("%s: %zu inputs, %zu outputs, kernel scratch %zu bytes a thread\n", *name,
             meta->num_inputs(), meta->num_outputs(), meta->kernel_scratch_bytes());
    }
    return kExitOk;
  }
  if (!module.program().method_meta(o.method.c_str()).ok()) {
    fprintf(stderr, "%s: no method '%s' (methods: %s)\n", o.program.c_str(), o.method.c_str(),
            method_list(module.program()).c_str());
    return kExitFailure;
  }
  tailor::BackendOptions backend_options;
  backend_options.num_threads = o.threads;
  backend_options.prepack_weights = o.prepack;
#if TL_TRACE
  const uint64_t load_start = tl_pal_current_ticks();
#endif
  err = module.load_method(o.method.c_str(), backend_options, o.limits);
  if (err != Error::Ok) {
    fprintf(stderr, "%s: cannot load method '%s': %s\n", o.program.c_str(), o.method.c_str(),
            tailor::error_name(err));
    return kExitFailure;
  }
  Method& method = module.method();
#if TL_TRACE
  tailor::runner::RunTrace trace(o.program, o.trace_file, o.dump_dir, o.repeat);
  if (!trace.attach(method, *module.program().method_meta(o.method.c_str()), load_start,
                    tl_pal_current_ticks())) {
    return kExitFailure;
  }
#endif
  // The kernels' threads: none created for 1.
  tailor::ThreadPool pool(static_cast<int>(o.threads));
  if (method.set_parallel(pool.parallel()) != Error::Ok) return kExitFailure;
  method.set_seed(o.seed);
  if (g_verbose) {
    fprintf(stderr, "%s: CPU level %s (this CPU: %s)\n", o.program.c_str(),
            tailor::cpu_level_name(tailor::cpu_level()),
            tailor::cpu_level_name(tailor::cpu_level_detected()));
    fprintf(stderr, "%s: %zu constant weights packed at load (%zu bytes)\n", o.program.c_str(),
            method.prepacked_weights(), method.prepacked_bytes());
  }

  // Inputs: given files, the check directory, or zeros.
  std::vector<std::string> inputs = o.inputs;
  if (inputs.empty() && o.check) {
    for (size_t i = 0; i < method.inputs_size(); ++i) {
      inputs.push_back(io_path(o.program, "input_" + std::to_string(i) + ".npy"));
    }
  }
  if (!inputs.empty() && inputs.size() != method.inputs_size()) {
    fprintf(stderr, "%s: method '%s' takes %zu inputs, got %zu input files\n", o.program.c_str(),
            o.method.c_str(), method.inputs_size(), inputs.size());
    return kExitFailure;
  }
  if (o.outputs.size() > method.outputs_size()) {
    fprintf(stderr, "%s: method '%s' has %zu outputs, got %zu output files\n", o.program.c_str(),
            o.method.c_str(), method.outputs_size(), o.outputs.size());
    return kExitFailure;
  }

  // Warm-up runs first, untimed and untraced: a new process's first runs pay for page
  // faults and cold caches (a burst of 20 timed the demo GPT 10% slow).
  for (uint32_t run = 0; run < o.warmup; ++run) {
    if (!feed_inputs(o, method, inputs)) return kExitFailure;
    if (o.reset_state && !reset(method, o.seed)) return kExitFailure;
    if ((err = method.execute()) != Error::Ok) {
      fprintf(stderr, "%s: method '%s' failed: %s\n", o.program.c_str(), o.method.c_str(),
              tailor::error_name(err));
      return kExitFailure;
    }
  }
  std::vector<uint64_t> times;
  for (uint32_t run = 0; run < o.repeat; ++run) {
    if (!feed_inputs(o, method, inputs)) return kExitFailure;
    if (o.reset_state && !reset(method, o.seed)) return kExitFailure;
    const uint64_t start = tl_pal_current_ticks();
    err = method.execute();
    times.push_back(tl_pal_ticks_to_ns(tl_pal_current_ticks() - start));
#if TL_TRACE
    trace.after_run();
#endif
    if (err != Error::Ok) {
      fprintf(stderr, "%s: method '%s' failed: %s\n", o.program.c_str(), o.method.c_str(),
              tailor::error_name(err));
      return kExitFailure;
    }
  }
#if TL_TRACE
  if (!trace.finish()) return kExitFailure;
#endif
  RunSummary summary{o.program, o.method, o.threads, times, {}, method.prepacked_weights(),
                     method.prepacked_bytes()};
  if (o.repeat > 1) {
    std::sort(times.begin(), times.end());
    printf("%s: method '%s' ran %u times: min %.4f ms, median %.4f ms\n", o.program.c_str(),
           o.method.c_str(), o.repeat, times[0] / 1e6, times[times.size() / 2] / 1e6);
  }
  if (g_verbose) {
    fprintf(stderr, "%s: method '%s' ran in %.3f ms\n", o.program.c_str(), o.method.c_str(),
            summary.times_ns[0] / 1e6);
  }
  const int exit_code = handle_outputs(o, method, &summary);
  std::string error;
  if (!o.json_file.empty() && !tailor::runner::write_summary(o.json_file, summary, &error)) {
    fprintf(stderr, "runner: --json: %s\n", error.c_str());
    return kExitFailure;
  }
  return exit_code;
}

}  // namespace

extern "C" void tl_pal_emit_log(tl_pal_log_level_t level, const char* file, size_t line,
                                const char* message) {
  if (level == TL_PAL_LOG_ERROR || level == TL_PAL_LOG_FATAL) {
    fprintf(stderr, "%s: %s\n", g_log_prefix, message);
  } else if (g_verbose) {
    fprintf(stderr, "%s: [%c %s:%zu] %s\n", g_log_prefix, static_cast<char>(level), file, line,
            message);
  }
}

struct StackRun {
  const Options* options;
  int exit_code;
};

void* run_on_thread(void* arg) {
  StackRun& r = *static_cast<StackRun*>(arg);
  r.exit_code = run(*r.options);
  return nullptr;
}

// run() on a thread with `o.stack_bytes` of stack, as a small-stack target would.
int run_with_stack(const Options& o) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  StackRun r{&o, kExitFailure};
  pthread_t thread;
  const int err = pthread_attr_setstacksize(&attr, static_cast<size_t>(o.stack_bytes));
  if (err != 0 || pthread_create(&thread, &attr, &run_on_thread, &r) != 0) {
    fprintf(stderr, "runner: --stack %llu: cannot start a thread with that stack (at least "
                    "%zu bytes)\n", static_cast<unsigned long long>(o.stack_bytes),
            static_cast<size_t>(PTHREAD_STACK_MIN));
    pthread_attr_destroy(&attr);
    return kExitUsage;
  }
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  return r.exit_code;
}

int main(int argc, char** argv) {
  Options options;
  const int stop = tailor::runner::parse_args(argc, argv, &options);
  if (stop >= 0) return stop;
  g_verbose = options.verbose;
  return options.stack_bytes > 0 ? run_with_stack(options) : run(options);
}
