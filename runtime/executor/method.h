// Method: one loaded, checked, ready-to-run method of a Program.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "runtime/backend/backend.h"
#include "runtime/core/array_ref.h"
#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/scalar_type.h"
#include "runtime/executor/memory_manager.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/kernel_context.h"
#include "runtime/kernel/kernel_scratch.h"
#include "runtime/kernel/parallel.h"

namespace tailor {

namespace internal {
struct Step;
}  // namespace internal

/// Built by Program::load_method(), which checks everything the program file can get
/// wrong (value kinds, every index, every tensor's bytes inside its arena or constant
/// segment, dtypes, dim orders) and resolves every kernel once; execute() then runs the
/// instructions without re-checking. Values, tensor metadata and the instruction table
/// live in the MemoryManager's method allocator, tensor data in its arenas. A Method is
/// not thread-safe; independent Methods are. It owns its delegates' backend state
/// (destroyed with it, so a method with delegates needs its memory until then), so it
/// moves but does not copy.
class Method final {
 public:
  Method() = default;
  Method(const Method&) = delete;
  Method& operator=(const Method&) = delete;
  Method(Method&& other);
  Method& operator=(Method&& other);
  ~Method();

  const char* name() const { return name_; }
  size_t inputs_size() const { return num_inputs_; }
  size_t outputs_size() const { return num_outputs_; }

  /// Input `index` (< inputs_size()): a Tensor at its planned sizes, or an Int/Double/Bool.
  const EValue& input(size_t index) const;
  /// Output `index` (< outputs_size()), valid after execute().
  const EValue& output(size_t index) const;

  /// Copies `data` (laid out in the input tensor's dim order, `sizes` elements of its
  /// dtype) into tensor input `index` and sets its sizes. InvalidArgument (logged) when
  /// the index is out of range, the input is not a tensor, or `sizes` does not fit: a
  /// static input needs exactly its planned sizes, a dynamic one sizes within its bounds
  /// (at most the planned upper bounds, at least the export's minimum when the program
  /// records one).
  Error set_input(size_t index, const void* data, ArrayRef<int64_t> sizes);
  /// As above, and first checks the caller's element type `dtype` is the input's.
  Error set_input(size_t index, ScalarType dtype, const void* data, ArrayRef<int64_t> sizes);
  /// Sets an Int, Double or Bool input; InvalidArgument when the kinds differ.
  Error set_input(size_t index, const EValue& value);

  /// Lets kernels split their work over `parallel`'s threads (runtime/kernel/parallel.h;
  /// nullptr, the default: the calling thread only). Not owned: it must outlive every
  /// execute() that uses it. InvalidArgument (logged) when the method reserved kernel
  /// scratch for fewer threads at load (BackendOptions::num_threads).
  Error set_parallel(const Parallel* parallel);

  /// Seeds the method's random operators (rand, randn, native_dropout in training) and
  /// restarts their sequence: the k-th execute() after set_seed(s) draws the same numbers
  /// for the same s, on any number of threads. A loaded method starts at seed 0.
  void set_seed(uint64_t seed) {
    seed_ = seed;
    runs_ = 0;
  }

  /// Sets every mutable buffer (state the method keeps between execute() calls, such as
  /// a KV cache) back to its initial value from the program, as load does. Returns Ok,
  /// or InvalidState when the method is not loaded.
  Error reset_state();

  /// The constant weights load packed for their kernels (runtime/kernel/prepack.h), and
  /// their bytes in the method allocator.
  size_t prepacked_weights() const { return prepacked_count_; }
  size_t prepacked_bytes() const { return prepacked_bytes_; }

  /// Runs every instruction once. Returns Ok, InvalidState when the method is not loaded,
  /// or the Error a kernel reported (logged with the instruction and operator).
  Error execute();

 private:
  friend class Program;

  Error init(const Program& program, const fb::Method* method, MemoryManager& memory,
             const BackendOptions& backend_options, const LoadLimits& limits);
  Error parse_io(MemoryManager& memory);
  Error input_tensor(size_t index, Tensor** tensor) const;
  Error init_scratch(MemoryAllocator& allocator, uint32_t threads);

  const fb::Method* method_ = nullptr;
  const Program* program_ = nullptr;  // for reset_state(); outlives the method
  const char* name_ = "";
  EValue* values_ = nullptr;
  size_t num_values_ = 0;
  internal::Step* steps_ = nullptr;
  size_t num_steps_ = 0;
  const int32_t* input_ids_ = nullptr;
  // Per input, the lower bounds of a dynamic tensor's sizes (program bytes), or nullptr.
  const int32_t* const* input_min_sizes_ = nullptr;
  size_t num_inputs_ = 0;
  const int32_t* output_ids_ = nullptr;
  size_t num_outputs_ = 0;
  bool loaded_ = false;
  // Only then does the destructor read the steps (in memory the application may have
  // freed already when the method has no backend state to destroy).
  bool has_delegates_ = false;
  const Parallel* parallel_ = nullptr;
  // One slice of kernel scratch per thread (none when no kernel declares scratch).
  KernelScratch* scratch_ = nullptr;
  uint32_t scratch_slices_ = 0;
  size_t prepacked_count_ = 0;
  size_t prepacked_bytes_ = 0;
  uint64_t seed_ = 0;
  uint64_t runs_ = 0;  // execute() calls since the seed was set
  // The Backend::rest the last run left for its next split (the run ended with a
  // delegate): the next run's first split makes it.
  DelegateRest rest_;

#if TL_TRACE
 public:
  /// trace=1 builds: records every execute() and instruction into `tracer` (not owned;
  /// nullptr stops). It belongs to this Method object: a method moved into it later
  /// (as Module::load_method() does) keeps it.
  void set_event_tracer(class EventTracer* tracer) { tracer_ = tracer; }
  /// The number of instructions: one execute() records at most that many events + 1.
  size_t num_instructions() const { return num_steps_; }

 private:
  class EventTracer* tracer_ = nullptr;
#endif
};

}  // namespace tailor
