// The runner's command line: its options, their usage text and their parsing.
#pragma once

#include <stdint.h>

#include <string>
#include <vector>

#include "runner/check.h"
#include "runtime/module/module.h"

namespace tailor::runner {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

struct Options {
  std::string program;
  std::string method = "forward";
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  bool check = false;
  tailor::runner::Tolerance tol;
  uint32_t threads = 1;
  uint32_t repeat = 1;
  uint32_t warmup = 0;  // untimed runs before the --repeat ones
  std::string json_file;  // --json: the summary (runner/summary.h)
  bool verbose = false;
  bool list_methods = false;
  bool reset_state = false;  // Method::reset_state() before each run
  bool prepack = true;       // BackendOptions::prepack_weights
  tailor::LoadLimits limits;
  uint64_t stack_bytes = 0;  // 0: the main thread's stack
  uint64_t seed = 0;         // Method::set_seed()
#if TL_TRACE
  std::string trace_file;
  std::string dump_dir;
#endif
};

/// Fills `o` from the command line; -1 when the arguments are fine, else the exit code
/// to stop with (after printing the usage or what is wrong).
int parse_args(int argc, char** argv, Options* o);

}  // namespace tailor::runner
