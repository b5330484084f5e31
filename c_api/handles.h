// What the C API's opaque handles hold.
#pragma once

#include <stddef.h>

#include <atomic>
#include <memory>

#include "c_api/tailor.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/thread_pool.h"
#include "runtime/loader/buffer_data_loader.h"
#include "runtime/loader/mmap_data_loader.h"
#include "runtime/module/method_memory.h"

/// A verified program and the bytes it points into (a mapped file or an owned copy).
struct tl_program {
  tailor::MmapDataLoader file;
  struct FreeDeleter {
    void operator()(void* p) const;
  };
  std::unique_ptr<void, FreeDeleter> copy;  // tl_program_load_buffer()'s bytes
  std::unique_ptr<tailor::BufferDataLoader> buffer;
  tailor::Program program;
  // The caller's reference plus one per live method: methods point into the program.
  std::atomic<size_t> references{1};
};

/// A loaded method with its memory, its threads and its I/O specs.
struct tl_method {
  tl_program* program = nullptr;
  tailor::MethodMemory memory;
  std::unique_ptr<tailor::ThreadPool> pool;
  tailor::Method method;  // after its memory and pool: destroyed before them
  std::unique_ptr<tl_value_info[]> input_infos;   // as loaded
  std::unique_ptr<tl_value_info[]> output_infos;  // as loaded, until the first run
  std::unique_ptr<bool[]> input_set;              // since the last run
  bool executed = false;                          // outputs hold a run's results
};

namespace tailor::c_api {

/// Drops one reference to `program`; the last one frees it.
void release_program(tl_program* program);

/// The spec of `value`: kind, dtype, rank, sizes and bytes.
tl_value_info value_info(const EValue& value);

}  // namespace tailor::c_api
