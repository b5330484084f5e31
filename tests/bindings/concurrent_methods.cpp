// concurrent_methods: runs every method of one program from several threads at once
// through the C API (c_api/tailor.h), as its header allows: a program shared by all, each
// method used by one thread at a time.
//
//   concurrent_methods PROGRAM THREADS ROUNDS KERNEL_THREADS OUT_DIR
//
// Each method takes one Float tensor and gives one. THREADS threads each load every
// method with KERNEL_THREADS threads and run them ROUNDS times; loads, runs and destroys
// overlap on purpose, and nothing ran before them, so whatever the library sets up on
// first use is set up by threads at once. Then each method runs alone on one thread with
// one kernel thread: every output of every thread must equal that run's bit for bit. Its
// input and output go to OUT_DIR/<method>.input.f32 and .output.f32 (raw float32, C
// order) for the caller to compare with torch. Exits 0 when all is well, 1 otherwise.
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

std::atomic<int> g_failures{0};

void failed(const std::string& what) {
  fprintf(stderr, "FAILED: %s (last error: %s)\n", what.c_str(), tl_last_error());
  ++g_failures;
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

// Runs `method` (the `index`-th of the program) on an input made from its index; its
// input into `in`, its output into `out`.
bool run_once(tl_method* method, size_t index, std::vector<float>* in, std::vector<float>* out) {
  tl_value_info info;
  if (tl_method_input_info(method, 0, &info) != TL_OK || info.kind != TL_VALUE_TENSOR ||
      info.dtype != TL_DTYPE_FLOAT32) {
    return false;
  }
  in->resize(info.nbytes / sizeof(float));
  for (size_t i = 0; i < in->size(); ++i) {
    (*in)[i] = static_cast<float>(sin(0.37 * static_cast<double>(i) + index));
  }
  if (tl_method_set_input(method, 0, TL_DTYPE_FLOAT32, in->data(), info.nbytes, info.sizes,
                          info.rank) != TL_OK ||
      tl_method_execute(method) != TL_OK || tl_method_output_info(method, 0, &info) != TL_OK) {
    return false;
  }
  out->resize(info.nbytes / sizeof(float));
  return tl_method_copy_output(method, 0, out->data(), info.nbytes) == TL_OK;
}

bool same(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

bool write_floats(const std::string& path, const std::vector<float>& data) {
  FILE* f = fopen(path.c_str(), "wb");
  const bool ok = f != nullptr && fwrite(data.data(), sizeof(float), data.size(), f) ==
                                      data.size();
  if (f != nullptr) fclose(f);
  return ok;
}

// One thread: the methods `names`, loaded here, each run `rounds` times (each thread in
// its own order); `first` gets each one's first output, which every later one must equal.
void worker(tl_program* program, const std::vector<std::string>* names, int rounds,
            uint32_t kernel_threads, int id, std::vector<std::vector<float>>* first) {
  const size_t count = names->size();
  std::vector<tl_method*> methods;
  for (const std::string& name : *names) methods.push_back(load(program, name, kernel_threads));
  first->resize(count);
  std::vector<float> in;
  std::vector<float> out;
  for (int round = 0; round < rounds; ++round) {
    for (size_t k = 0; k < count; ++k) {
      const size_t m = (k + static_cast<size_t>(id)) % count;
      if (methods[m] == nullptr) continue;
      const std::string where = "thread " + std::to_string(id) + " round " +
                                std::to_string(round) + " method " + (*names)[m];
      if (!run_once(methods[m], m, &in, round == 0 ? &(*first)[m] : &out)) {
        failed(where);
      } else if (round > 0 && !same(out, (*first)[m])) {
        failed(where + ": output differs from the thread's first");
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
  std::vector<std::string> names(count);
  for (size_t m = 0; m < count; ++m) {
    const char* name = nullptr;
    tl_program_method_name(program, m, &name);
    names[m] = name != nullptr ? name : "";
  }
  std::vector<std::vector<std::vector<float>>> outputs(static_cast<size_t>(threads));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back(worker, program, &names, rounds, kernel_threads, t,
                      &outputs[static_cast<size_t>(t)]);
  }
  for (std::thread& t : pool) t.join();
  for (size_t m = 0; m < count; ++m) {  // the reference: alone, on one thread
    std::vector<float> in;
    std::vector<float> want;
    tl_method* method = load(program, names[m], 1);
    if (method == nullptr || !run_once(method, m, &in, &want)) {
      failed("single-threaded run of " + names[m]);
    } else if (!write_floats(out_dir + "/" + names[m] + ".input.f32", in) ||
               !write_floats(out_dir + "/" + names[m] + ".output.f32", want)) {
      failed("write the single-threaded run of " + names[m]);
    }
    tl_method_destroy(method);
    for (int t = 0; t < threads; ++t) {
      if (!same(outputs[static_cast<size_t>(t)][m], want)) {
        failed("thread " + std::to_string(t) + " method " + names[m] +
               ": output differs from the single-threaded run");
      }
    }
  }
  tl_program_destroy(program);
  if (g_failures != 0) return 1;
  printf("%zu methods, %d threads x %d rounds, %u kernel threads each: concurrent check "
         "passed\n", count, threads, rounds, kernel_threads);
  return 0;
}
