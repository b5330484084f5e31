// concurrent_methods: runs every method of one program from several threads at once
// through the C API (c_api/tailor.h), as its header allows: a program shared by all, each
// method used by one thread at a time.
//
//   concurrent_methods PROGRAM THREADS ROUNDS KERNEL_THREADS OUT_DIR
//
// Each method takes one Float tensor and gives one. First every method runs once on one
// thread with one kernel thread: the reference, written with its input to
// OUT_DIR/<method>.input.f32 and .output.f32 (raw float32, C order) for the caller to
// compare with torch. Then THREADS threads each load every method with KERNEL_THREADS
// threads (loads, runs and destroys overlap on purpose) and run them ROUNDS times; every
// output must equal the reference bit for bit. Exits 0 when all do, 1 otherwise.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "c_api/tailor.h"

namespace {

struct Case {
  std::string method;
  std::vector<int64_t> sizes;
  std::vector<float> input;
  std::vector<float> output;  // the single-threaded reference
};

std::atomic<int> g_failures{0};

void failed(const std::string& what) {
  fprintf(stderr, "FAILED: %s (last error: %s)\n", what.c_str(), tl_last_error());
  ++g_failures;
}

// Runs `method` on `c`'s input; its output into `out`.
bool run_once(tl_method* method, const Case& c, std::vector<float>* out) {
  if (tl_method_set_input(method, 0, TL_DTYPE_FLOAT32, c.input.data(),
                          c.input.size() * sizeof(float), c.sizes.data(),
                          c.sizes.size()) != TL_OK ||
      tl_method_execute(method) != TL_OK) {
    return false;
  }
  tl_value_info info;
  if (tl_method_output_info(method, 0, &info) != TL_OK) return false;
  out->resize(info.nbytes / sizeof(float));
  return tl_method_copy_output(method, 0, out->data(), out->size() * sizeof(float)) == TL_OK;
}

// Method `name` with `threads` kernel (and delegate) threads, or nullptr (a failure counted).
tl_method* load(tl_program* program, const std::string& name, uint32_t threads) {
  tl_method_options options = {};
  options.num_threads = threads;
  tl_method* method = nullptr;
  if (tl_method_load(program, name.c_str(), &options, &method) != TL_OK) {
    failed("load " + name);
  }
  return method;
}

// The reference: each method alone, one thread; its input made from its index.
bool reference(tl_program* program, Case* c, size_t index) {
  tl_method* method = load(program, c->method, 1);
  if (method == nullptr) return false;
  tl_value_info info;
  bool ok = tl_method_input_info(method, 0, &info) == TL_OK &&
            info.kind == TL_VALUE_TENSOR && info.dtype == TL_DTYPE_FLOAT32;
  if (ok) {
    c->sizes.assign(info.sizes, info.sizes + info.rank);
    c->input.resize(info.nbytes / sizeof(float));
    for (size_t i = 0; i < c->input.size(); ++i) {
      c->input[i] = static_cast<float>(sin(0.37 * static_cast<double>(i) + index));
    }
    ok = run_once(method, *c, &c->output);
  }
  if (!ok) failed("reference run of " + c->method);
  tl_method_destroy(method);
  return ok;
}

bool write_floats(const std::string& path, const std::vector<float>& data) {
  FILE* f = fopen(path.c_str(), "wb");
  const bool ok = f != nullptr && fwrite(data.data(), sizeof(float), data.size(), f) ==
                                      data.size();
  if (f != nullptr) fclose(f);
  return ok;
}

// One thread: its own methods, loaded here, each run `rounds` times against the reference.
void worker(tl_program* program, const std::vector<Case>* cases, int rounds,
            uint32_t kernel_threads, int id) {
  std::vector<tl_method*> methods;
  for (const Case& c : *cases) methods.push_back(load(program, c.method, kernel_threads));
  std::vector<float> out;
  for (int round = 0; round < rounds; ++round) {
    for (size_t m = 0; m < methods.size(); ++m) {
      const Case& c = (*cases)[(m + static_cast<size_t>(id)) % cases->size()];
      tl_method* method = methods[(m + static_cast<size_t>(id)) % methods.size()];
      if (method == nullptr) continue;
      const std::string where = "thread " + std::to_string(id) + " round " +
                                std::to_string(round) + " method " + c.method;
      if (!run_once(method, c, &out)) {
        failed(where);
      } else if (out.size() != c.output.size() ||
                 memcmp(out.data(), c.output.data(), out.size() * sizeof(float)) != 0) {
        failed(where + ": output differs from the single-threaded run");
      }
    }
  }
  for (tl_method* method : methods) tl_method_destroy(method);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s PROGRAM THREADS ROUNDS KERNEL_THREADS OUT_DIR\n", argv[0]);
    return 2;
  }
  const int threads = atoi(argv[2]);
  const int rounds = atoi(argv[3]);
  const uint32_t kernel_threads = static_cast<uint32_t>(atoi(argv[4]));
  const std::string out_dir = argv[5];
  tl_program* program = nullptr;
  if (tl_program_load_file(argv[1], &program) != TL_OK) {
    failed(std::string("load ") + argv[1]);
    return 1;
  }
  size_t count = 0;
  tl_program_method_count(program, &count);
  std::vector<Case> cases(count);
  for (size_t i = 0; i < count; ++i) {
    const char* name = nullptr;
    tl_program_method_name(program, i, &name);
    cases[i].method = name != nullptr ? name : "";
    if (reference(program, &cases[i], i) &&
        !(write_floats(out_dir + "/" + cases[i].method + ".input.f32", cases[i].input) &&
          write_floats(out_dir + "/" + cases[i].method + ".output.f32", cases[i].output))) {
      failed("write the reference of " + cases[i].method);
    }
  }
  std::vector<std::thread> pool;
  for (int t = 0; t < threads && g_failures == 0; ++t) {
    pool.emplace_back(worker, program, &cases, rounds, kernel_threads, t);
  }
  for (std::thread& t : pool) t.join();
  tl_program_destroy(program);
  if (g_failures != 0) return 1;
  printf("%zu methods, %d threads x %d rounds, %u kernel threads each: concurrent check "
         "passed\n", count, threads, rounds, kernel_threads);
  return 0;
}
