#include "runner/options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "runner/build_defaults.h"
#include "runtime/kernel/thread_pool.h"

namespace tailor::runner {
namespace {

const char kUsage[] =
    "usage: runner PROGRAM [--method NAME] [--input FILE.npy ...] [--output FILE.npy ...]\n"
    "              [--check] [--atol X] [--rtol X] [--threads N] [--repeat N] [--warmup N]\n"
    "              [--verbose] [--json FILE] [--no-prepack]\n"
    "              [--max-memory BYTES] [--max-elements N] [--stack BYTES] [--seed N]\n"
    "  --method NAME    method to run (default: forward)\n"
    "  --list-methods   print each method's name, inputs, outputs and kernel scratch (a\n"
    "                   thread's), and run nothing\n"
    "  --reset-state    restore the method's state (its mutable buffers, a KV cache, the\n"
    "                   random operators' sequence) before each of the --repeat runs\n"
    "  --input FILE     one .npy per method input, in order (none: zeros, before each run)\n"
    "  --output FILE    write output i to the i-th FILE\n"
    "  --check          compare outputs with <dir>/<stem>_io/expected_<i>.npy (inputs\n"
    "                   from <dir>/<stem>_io/input_<i>.npy unless --input is given; an\n"
    "                   output of random operators, drawn_<i>.npy: shape and dtype only)\n"
    "  --atol X --rtol X  float tolerance: |a - e| <= atol + rtol * |e| (default 1e-05)\n"
    "  --threads N      threads the kernels and each delegate (backend) may use; 0: every\n"
    "                   core (default: the build's `threads:`, else 1: no thread is created)\n"
    "  --repeat N       run the method N times and print the min and median time\n"
    "  --json FILE      write a summary to FILE: every run's time, each output's shape,\n"
    "                   dtype and check result (what scripts read instead of the text)\n"
    "  --warmup N       run it N times first, untimed (not with trace=1 builds)\n"
    "  --max-memory B   refuse a method that plans more memory (default 1G; K, M, G suffixes)\n"
    "  --max-elements N refuse a method whose run touches more tensor elements (default 4G)\n"
    "  --stack BYTES    load and run the method on a thread with this much stack (K, M\n"
    "                   suffixes): checks it fits a target with small thread stacks\n"
    "  --seed N         seed of the random operators (rand, randn, dropout; default 0):\n"
    "                   the same seed draws the same numbers on any number of threads\n"
    "  --verbose        log what happens (and the CPU level the kernels use)\n"
    "  --no-prepack     leave constant weights as they are: the kernels pack them on every\n"
    "                   call (default: packed once at load, runtime/kernel/prepack.h)\n"
#if TL_TRACE
    "  --trace FILE     write a Chrome trace (chrome://tracing, ui.perfetto.dev) of the load,\n"
    "                   every run and every instruction; python -m inspector reads it\n"
    "  --dump-intermediates DIR  write what each instruction wrote (first run) to\n"
    "                   DIR/<instruction>_<argument>.npy, for python -m inspector --dump-dir\n"
#endif
    "environment: TL_CPU_LEVEL=baseline|avx2|avx512 caps the instruction set the optimized\n"
    "  kernels use (default: the best this CPU has)\n";


int usage_error(const std::string& message) {
  fprintf(stderr, "runner: %s\n%s", message.c_str(), kUsage);
  return kExitUsage;
}

// "4096", "64K", "1G" (binary multiples); false unless the whole text is such a count.
bool parse_count(const char* text, uint64_t* out) {
  if (text[0] < '0' || text[0] > '9') return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = strtoull(text, &end, 10);
  if (errno != 0) return false;
  unsigned shift = 0;
  if (*end == 'K' || *end == 'M' || *end == 'G' || *end == 'T') {
    shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 40;
    ++end;
  }
  if (*end != '\0' || n > (UINT64_MAX >> shift)) return false;
  *out = static_cast<uint64_t>(n) << shift;
  return true;
}

bool parse_number(const char* text, double* out) {
  char* end = nullptr;
  *out = strtod(text, &end);
  return end != text && *end == '\0' && *out >= 0;
}

}  // namespace

int parse_args(int argc, char** argv, Options* o) {
  std::vector<std::string>* list = nullptr;  // the option that takes several files
  o->threads = static_cast<uint32_t>(build_default_threads());
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      fputs(kUsage, stdout);
      return kExitOk;
    }
    if (arg == "--input" || arg == "--output") {
      list = arg == "--input" ? &o->inputs : &o->outputs;
      if (i + 1 >= argc || argv[i + 1][0] == '-') return usage_error(arg + " needs a file");
      continue;
    }
    if (arg == "--method" || arg == "--json" || arg == "--atol" || arg == "--rtol") {
      list = nullptr;
      if (i + 1 >= argc) return usage_error(arg + " needs a value");
      const char* value = argv[++i];
      if (arg == "--method" || arg == "--json") {
        (arg == "--method" ? o->method : o->json_file) = value;
      } else if (!parse_number(value, arg == "--atol" ? &o->tol.atol : &o->tol.rtol)) {
        return usage_error(arg + ": '" + value + "' is not a non-negative number");
      }
      continue;
    }
    if (arg == "--threads" || arg == "--repeat" || arg == "--warmup") {
      list = nullptr;
      if (i + 1 >= argc) return usage_error(arg + " needs a value");
      const char* value = argv[++i];
      char* end = nullptr;
      const unsigned long n = strtoul(value, &end, 10);
      if (end == value || *end != '\0' || n < (arg == "--repeat" ? 1u : 0u) || n > 100000 ||
          (arg == "--threads" && n > tailor::ThreadPool::kMaxThreads)) {
        return usage_error(arg + ": '" + value + "' is not a count from " +
                           (arg == "--repeat" ? "1" : "0") + " to " +
                           (arg == "--threads" ? "64" : "100000"));
      }
      (arg == "--threads" ? o->threads : arg == "--repeat" ? o->repeat : o->warmup) =
          static_cast<uint32_t>(n);
#if TL_TRACE
      // The tracer records every run it sees, the first one's intermediates too.
      if (o->warmup > 0) return usage_error("--warmup: not in a runtime built with trace=1");
#endif
      continue;
    }
    if (arg == "--seed") {
      list = nullptr;
      if (i + 1 >= argc) return usage_error(arg + " needs a value");
      const char* value = argv[++i];
      char* end = nullptr;
      errno = 0;
      o->seed = strtoull(value, &end, 10);
      if (value[0] < '0' || value[0] > '9' || *end != '\0' || errno != 0) {
        return usage_error(arg + ": '" + value + "' is not a number from 0 to 2^64-1");
      }
      continue;
    }
    if (arg == "--max-memory" || arg == "--max-elements" || arg == "--stack") {
      list = nullptr;
      if (i + 1 >= argc) return usage_error(arg + " needs a value");
      const char* value = argv[++i];
      uint64_t* limit = arg == "--max-memory"   ? &o->limits.max_memory_bytes
                        : arg == "--stack"      ? &o->stack_bytes
                                                : &o->limits.max_elements_per_execute;
      if (!parse_count(value, limit)) {
        return usage_error(arg + ": '" + value + "' is not a count (like 4096, 64M or 2G)");
      }
      continue;
    }
#if TL_TRACE
    if (arg == "--trace" || arg == "--dump-intermediates") {
      list = nullptr;
      if (i + 1 >= argc) return usage_error(arg + " needs a value");
      (arg == "--trace" ? o->trace_file : o->dump_dir) = argv[++i];
      continue;
    }
#endif
    if (arg == "--no-prepack") {
      list = nullptr;
      o->prepack = false;
      continue;
    }
    if (arg == "--check" || arg == "--verbose" || arg == "--list-methods" ||
        arg == "--reset-state") {
      list = nullptr;
      (arg == "--check"          ? o->check
       : arg == "--verbose"      ? o->verbose
       : arg == "--list-methods" ? o->list_methods
                                 : o->reset_state) = true;
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-') return usage_error("unknown option " + arg);
    if (list != nullptr) {
      list->push_back(arg);
    } else if (o->program.empty()) {
      o->program = arg;
    } else {
      return usage_error("unexpected argument '" + arg + "'");
    }
  }
  if (o->program.empty()) return usage_error("no PROGRAM given");
  o->threads = static_cast<uint32_t>(ThreadPool::resolve_threads(static_cast<int>(o->threads)));
  return -1;
}

}  // namespace tailor::runner
