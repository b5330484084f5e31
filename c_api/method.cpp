// The C API's method functions: load, specs, set inputs, execute, copy outputs.
#include <stdio.h>
#include <string.h>

#include <new>

#include "c_api/handles.h"
#include "c_api/last_error.h"
#include "runtime/core/tensor_copy.h"

using tailor::Error;
using tailor::EValue;
using tailor::ScalarType;
using tailor::c_api::begin_call;
using tailor::c_api::fail;

static_assert(static_cast<int>(ScalarType::Float) == TL_DTYPE_FLOAT32 &&
                  static_cast<int>(ScalarType::Bool) == TL_DTYPE_BOOL &&
                  static_cast<int>(ScalarType::BFloat16) == TL_DTYPE_BFLOAT16,
              "tl_dtype mirrors ScalarType");
static_assert(static_cast<int>(Error::LimitExceeded) == TL_ERROR_LIMIT_EXCEEDED,
              "tl_status mirrors Error");
static_assert(TL_MAX_RANK == tailor::kMaxTensorDim, "TL_MAX_RANK is the runtime's");

namespace {

const char* dtype_name(int dtype) {
  return tailor::is_valid_scalar_type(dtype) ? scalar_type_name(static_cast<ScalarType>(dtype))
                                             : "an unknown dtype";
}

// Fails unless `method` is a handle and `index` < `count` (of `what`, "input").
tl_status check_index(const tl_method* method, size_t index, bool input, const char* call) {
  if (method == nullptr) return fail(Error::InvalidArgument, "%s: method is NULL", call);
  const size_t count = input ? method->method.inputs_size() : method->method.outputs_size();
  if (index >= count) {
    return fail(Error::InvalidArgument, "%s: method '%s' has %zu %s, there is no %s %zu", call,
                method->method.name(), count, input ? "inputs" : "outputs",
                input ? "input" : "output", index);
  }
  return TL_OK;
}

// *out = the number of inputs (or outputs) of `method`.
tl_status count_values(const tl_method* method, bool input, size_t* out, const char* call) {
  begin_call();
  if (method == nullptr || out == nullptr) {
    return fail(Error::InvalidArgument, "%s: %s is NULL", call,
                method == nullptr ? "method" : "out");
  }
  *out = input ? method->method.inputs_size() : method->method.outputs_size();
  return TL_OK;
}

// Shape text "[2, 16]" for messages.
void format_sizes(const int64_t* sizes, size_t rank, char* buffer, size_t capacity) {
  size_t used = static_cast<size_t>(snprintf(buffer, capacity, "["));
  for (size_t d = 0; d < rank && used < capacity; ++d) {
    used += static_cast<size_t>(snprintf(buffer + used, capacity - used, "%s%lld",
                                         d > 0 ? ", " : "", static_cast<long long>(sizes[d])));
  }
  if (used < capacity) snprintf(buffer + used, capacity - used, "]");
}

// Checks the caller's description of a tensor input against `info` (its spec) and
// `nbytes`; the runtime then checks the sizes against the planned bounds.
tl_status check_tensor_input(const tl_method* method, size_t index, const tl_value_info& info,
                             int dtype, size_t nbytes, const int64_t* sizes, size_t rank) {
  const char* name = method->method.name();
  if (dtype != info.dtype) {
    return fail(Error::InvalidArgument, "method '%s': input %zu: dtype %s does not match the "
                "expected %s", name, index, dtype_name(dtype), dtype_name(info.dtype));
  }
  char given[256];
  char expected[256];
  format_sizes(sizes, rank > TL_MAX_RANK ? TL_MAX_RANK : rank, given, sizeof(given));
  format_sizes(info.sizes, info.rank, expected, sizeof(expected));
  if (rank != info.rank) {
    return fail(Error::InvalidArgument, "method '%s': input %zu: shape %s has %zu dims, the "
                "input has %u (%s%s)", name, index, given, rank, info.rank,
                info.is_dynamic ? "at most " : "", expected);
  }
  uint64_t numel = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (sizes[d] < 0 || sizes[d] > info.sizes[d]) {
      return fail(Error::InvalidArgument, "method '%s': input %zu: shape %s does not fit %s%s",
                  name, index, given, info.is_dynamic ? "the upper bounds " : "", expected);
    }
    numel *= static_cast<uint64_t>(sizes[d]);  // bounded by the planned sizes
  }
  const uint64_t want = numel * tailor::element_size(static_cast<ScalarType>(dtype));
  if (nbytes != want) {
    return fail(Error::InvalidArgument, "method '%s': input %zu: %zu bytes given, shape %s of "
                "%s takes %llu", name, index, nbytes, given, dtype_name(dtype),
                static_cast<unsigned long long>(want));
  }
  return TL_OK;
}

// The EValue for a scalar input of kind `info.kind` from one element, or None.
EValue scalar_input(const tl_value_info& info, int dtype, const void* data, size_t nbytes) {
  if (info.kind == TL_VALUE_INT && dtype == TL_DTYPE_INT64 && nbytes == 8) {
    int64_t v;
    memcpy(&v, data, 8);
    return EValue(v);
  }
  if (info.kind == TL_VALUE_DOUBLE && dtype == TL_DTYPE_FLOAT64 && nbytes == 8) {
    double v;
    memcpy(&v, data, 8);
    return EValue(v);
  }
  if (info.kind == TL_VALUE_BOOL && dtype == TL_DTYPE_BOOL && nbytes == 1) {
    return EValue(*static_cast<const uint8_t*>(data) != 0);
  }
  return EValue();
}

}  // namespace

namespace tailor::c_api {

tl_value_info value_info(const EValue& value) {
  tl_value_info info;
  memset(&info, 0, sizeof(info));
  if (value.is_tensor()) {
    const Tensor& t = value.to_tensor();
    info.kind = TL_VALUE_TENSOR;
    info.dtype = static_cast<int32_t>(t.dtype());
    info.rank = static_cast<uint32_t>(t.dim());
    for (size_t d = 0; d < info.rank; ++d) info.sizes[d] = t.sizes()[d];
    info.is_dynamic = t.is_dynamic() ? 1 : 0;
    info.nbytes = t.nbytes();
  } else if (value.is_int() || value.is_double()) {
    info.kind = value.is_int() ? TL_VALUE_INT : TL_VALUE_DOUBLE;
    info.dtype = value.is_int() ? TL_DTYPE_INT64 : TL_DTYPE_FLOAT64;
    info.nbytes = 8;
  } else if (value.is_bool()) {
    info.kind = TL_VALUE_BOOL;
    info.dtype = TL_DTYPE_BOOL;
    info.nbytes = 1;
  } else {
    info.kind = TL_VALUE_OTHER;
    info.dtype = -1;
  }
  return info;
}

}  // namespace tailor::c_api

extern "C" {

tl_status tl_method_load(tl_program* program, const char* name,
                         const tl_method_options* options, tl_method** out) {
  begin_call();
  if (out == nullptr) return fail(Error::InvalidArgument, "tl_method_load: out is NULL");
  *out = nullptr;
  if (program == nullptr || name == nullptr) {
    return fail(Error::InvalidArgument, "tl_method_load: %s is NULL",
                program == nullptr ? "program" : "name");
  }
  tailor::Result<tailor::MethodMeta> meta = program->program.method_meta(name);
  if (!meta.ok()) return fail(meta.error(), "the program has no method '%s'", name);
  const tl_method_options defaults = {};
  const tl_method_options& o = options != nullptr ? *options : defaults;
  const uint32_t threads = o.num_threads == 0 ? 1 : o.num_threads;
  if (threads > static_cast<uint32_t>(tailor::ThreadPool::kMaxThreads)) {
    return fail(Error::InvalidArgument, "method '%s': %u threads asked for, at most %d", name,
                threads, tailor::ThreadPool::kMaxThreads);
  }
  tailor::LoadLimits limits;
  if (o.max_memory_bytes != 0) limits.max_memory_bytes = o.max_memory_bytes;
  if (o.max_elements_per_execute != 0) limits.max_elements_per_execute = o.max_elements_per_execute;

  tl_method* m = new (std::nothrow) tl_method;
  if (m == nullptr) return fail(Error::MemoryAllocationFailed, "cannot load method '%s'", name);
  Error err = m->memory.allocate(*meta, limits, threads);
  tailor::BackendOptions backend_options;
  backend_options.num_threads = threads;
  if (err == Error::Ok) {
    tailor::MemoryManager memory = m->memory.manager();
    tailor::Result<tailor::Method> loaded =
        program->program.load_method(name, memory, backend_options, limits);
    err = loaded.error();
    if (loaded.ok()) m->method = static_cast<tailor::Method&&>(*loaded);
  }
  if (err != Error::Ok) {
    delete m;
    return fail(err, "cannot load method '%s'", name);
  }
  const size_t num_inputs = m->method.inputs_size();
  const size_t num_outputs = m->method.outputs_size();
  m->pool.reset(new (std::nothrow) tailor::ThreadPool(static_cast<int>(threads)));
  m->input_infos.reset(new (std::nothrow) tl_value_info[num_inputs > 0 ? num_inputs : 1]);
  m->output_infos.reset(new (std::nothrow) tl_value_info[num_outputs > 0 ? num_outputs : 1]);
  m->input_set.reset(new (std::nothrow) bool[num_inputs > 0 ? num_inputs : 1]());
  if (!m->pool || !m->input_infos || !m->output_infos || !m->input_set) {
    delete m;
    return fail(Error::MemoryAllocationFailed, "cannot load method '%s'", name);
  }
  err = m->method.set_parallel(m->pool->parallel());  // load reserved scratch for `threads`
  if (err != Error::Ok) {
    delete m;
    return fail(err, "cannot load method '%s'", name);
  }
  for (size_t i = 0; i < num_inputs; ++i) {
    m->input_infos[i] = tailor::c_api::value_info(m->method.input(i));
  }
  for (size_t i = 0; i < num_outputs; ++i) {
    m->output_infos[i] = tailor::c_api::value_info(m->method.output(i));
  }
  program->references.fetch_add(1);
  m->program = program;
  *out = m;
  return TL_OK;
}

void tl_method_destroy(tl_method* method) {
  begin_call();
  if (method == nullptr) return;
  tl_program* program = method->program;
  delete method;  // the Method first (member order), then its memory
  if (program != nullptr) tailor::c_api::release_program(program);
}

tl_status tl_method_input_count(const tl_method* method, size_t* out) {
  return count_values(method, true, out, "tl_method_input_count");
}

tl_status tl_method_output_count(const tl_method* method, size_t* out) {
  return count_values(method, false, out, "tl_method_output_count");
}

tl_status tl_method_input_info(const tl_method* method, size_t index, tl_value_info* out) {
  begin_call();
  const tl_status status = check_index(method, index, true, "tl_method_input_info");
  if (status != TL_OK) return status;
  if (out == nullptr) return fail(Error::InvalidArgument, "tl_method_input_info: out is NULL");
  *out = method->input_infos[index];
  return TL_OK;
}

tl_status tl_method_output_info(const tl_method* method, size_t index, tl_value_info* out) {
  begin_call();
  const tl_status status = check_index(method, index, false, "tl_method_output_info");
  if (status != TL_OK) return status;
  if (out == nullptr) return fail(Error::InvalidArgument, "tl_method_output_info: out is NULL");
  *out = method->executed ? tailor::c_api::value_info(method->method.output(index))
                          : method->output_infos[index];
  return TL_OK;
}

tl_status tl_method_set_input(tl_method* method, size_t index, tl_dtype dtype,
                              const void* data, size_t nbytes, const int64_t* sizes,
                              size_t rank) {
  begin_call();
  tl_status status = check_index(method, index, true, "tl_method_set_input");
  if (status != TL_OK) return status;
  if ((data == nullptr && nbytes > 0) || (sizes == nullptr && rank > 0)) {
    return fail(Error::InvalidArgument, "tl_method_set_input: %s is NULL",
                data == nullptr && nbytes > 0 ? "data" : "sizes");
  }
  const tl_value_info& info = method->input_infos[index];
  method->input_set[index] = false;
  if (info.kind == TL_VALUE_TENSOR) {
    status = check_tensor_input(method, index, info, dtype, nbytes, sizes, rank);
    if (status != TL_OK) return status;
    const Error err = method->method.set_input(index, static_cast<ScalarType>(dtype), data,
                                               tailor::ArrayRef<int64_t>(sizes, rank));
    if (err != Error::Ok) return fail(err, "cannot set input %zu", index);
  } else {
    const EValue value = rank == 0 ? scalar_input(info, dtype, data, nbytes) : EValue();
    if (value.is_none()) {
      return fail(Error::InvalidArgument, "method '%s': input %zu is a scalar of dtype %s: "
                  "give one element (rank 0, %llu bytes), not %s with rank %zu and %zu bytes",
                  method->method.name(), index, dtype_name(info.dtype),
                  static_cast<unsigned long long>(info.nbytes), dtype_name(dtype), rank, nbytes);
    }
    const Error err = method->method.set_input(index, value);
    if (err != Error::Ok) return fail(err, "cannot set input %zu", index);
  }
  method->input_set[index] = true;
  return TL_OK;
}

tl_status tl_method_set_seed(tl_method* method, uint64_t seed) {
  begin_call();
  if (method == nullptr) return fail(Error::InvalidArgument, "tl_method_set_seed: method is NULL");
  method->method.set_seed(seed);
  return TL_OK;
}

tl_status tl_method_execute(tl_method* method) {
  begin_call();
  if (method == nullptr) return fail(Error::InvalidArgument, "tl_method_execute: method is NULL");
  for (size_t i = 0; i < method->method.inputs_size(); ++i) {
    if (!method->input_set[i]) {
      return fail(Error::InvalidState, "method '%s': input %zu is not set (set every input "
                  "before each run: a run may reuse an input's memory)", method->method.name(),
                  i);
    }
  }
  for (size_t i = 0; i < method->method.inputs_size(); ++i) method->input_set[i] = false;
  const Error err = method->method.execute();
  method->executed = err == Error::Ok;
  if (err != Error::Ok) return fail(err, "method '%s' failed", method->method.name());
  return TL_OK;
}

tl_status tl_method_copy_output(const tl_method* method, size_t index, void* dst,
                                size_t capacity) {
  begin_call();
  const tl_status status = check_index(method, index, false, "tl_method_copy_output");
  if (status != TL_OK) return status;
  if (!method->executed) {
    return fail(Error::InvalidState, "method '%s': no outputs before a successful run",
                method->method.name());
  }
  const EValue& value = method->method.output(index);
  const tl_value_info info = tailor::c_api::value_info(value);
  if (info.kind == TL_VALUE_OTHER) {
    return fail(Error::NotSupported, "method '%s': output %zu is a %s value",
                method->method.name(), index, tailor::evalue_tag_name(value.tag()));
  }
  if (capacity < info.nbytes || (dst == nullptr && info.nbytes > 0)) {
    return fail(Error::InvalidArgument, "method '%s': output %zu takes %llu bytes, the buffer "
                "has %zu", method->method.name(), index,
                static_cast<unsigned long long>(info.nbytes), dst == nullptr ? 0 : capacity);
  }
  if (value.is_tensor()) {
    tailor::copy_to_c_order(value.to_tensor(), dst);
  } else if (value.is_int()) {
    const int64_t v = value.to_int();
    memcpy(dst, &v, 8);
  } else if (value.is_double()) {
    const double v = value.to_double();
    memcpy(dst, &v, 8);
  } else {
    *static_cast<uint8_t*>(dst) = value.to_bool() ? 1 : 0;
  }
  return TL_OK;
}

}  // extern "C"
