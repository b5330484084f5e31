// Method load: checks the method's memory, then builds its values, inputs/outputs and
// steps from the program (method_values.cpp, method_steps.cpp).
#include <inttypes.h>

#include "runtime/executor/method.h"
#include "runtime/executor/method_layout.h"

namespace tailor {

Error Method::init(const Program& program, const fb::Method* method, MemoryManager& memory,
                   const BackendOptions& backend_options, const LoadLimits& limits) {
  method_ = method;
  program_ = &program;
  name_ = method->name() != nullptr ? method->name()->c_str() : "";
  // Limits first: nothing is built for a method that asks for too much.
  const Error limit_err =
      internal::check_limits(*method, limits, backend_options.num_threads);
  if (limit_err != Error::Ok) return limit_err;
  TL_CHECK_OR_RETURN_ERROR(memory.method_allocator() != nullptr, InvalidArgument,
                           "method '%s': the memory manager has no method allocator", name());

  // Arenas: the application's spans must cover what the program planned.
  const auto* sizes = method->arena_sizes();
  const size_t num_arenas = sizes != nullptr ? sizes->size() : 0;
  TL_CHECK_OR_RETURN_ERROR(memory.arenas().size() >= num_arenas, MemoryAllocationFailed,
                           "method '%s' needs %zu arenas, the memory manager has %zu", name(),
                           num_arenas, memory.arenas().size());
  for (size_t i = 0; i < num_arenas; ++i) {
    const uint64_t need = sizes->Get(static_cast<uint32_t>(i));
    const Span& have = memory.arenas()[i];
    TL_CHECK_OR_RETURN_ERROR(need <= have.size && (have.data != nullptr || need == 0),
                             MemoryAllocationFailed,
                             "method '%s': arena %zu is %zu bytes, the method needs %" PRIu64,
                             name(), i, have.size, need);
    TL_CHECK_OR_RETURN_ERROR(
        reinterpret_cast<uintptr_t>(have.data) % MemoryAllocator::kAlignment == 0,
        InvalidArgument, "method '%s': arena %zu is not %zu-byte aligned", name(), i,
        MemoryAllocator::kAlignment);
  }

  // Values, then inputs/outputs, then instructions (their checks read value kinds).
  internal::LoadContext ctx{program, *method, memory, name(), nullptr, 0, backend_options};
  Error err = internal::parse_values(ctx);
  if (err != Error::Ok) return err;
  values_ = ctx.values;
  num_values_ = ctx.num_values;
  err = parse_io(memory);
  if (err != Error::Ok) return err;
  err = internal::parse_steps(ctx, &steps_, &num_steps_);
  if (err != Error::Ok) return err;
  err = init_scratch(*memory.method_allocator(), backend_options.num_threads);
  if (err != Error::Ok) return err;
  if (backend_options.prepack_weights && gen::kPrepackPath != nullptr) {
    err = gen::kPrepackPath->steps(ctx, steps_, num_steps_, &prepacked_count_,
                                   &prepacked_bytes_);
    if (err != Error::Ok) return err;
  }
  has_delegates_ = method->delegates() != nullptr && method->delegates()->size() > 0;
  loaded_ = true;
  return reset_state();
}

Error Method::init_scratch(MemoryAllocator& allocator, uint32_t threads) {
  if (internal::scratch_allocator_bytes(*method_, threads) == 0) return Error::Ok;
  const uint32_t slices = threads > 0 ? threads : 1;
  const size_t bytes = internal::method_scratch_bytes(*method_);
  scratch_ = allocator.allocate_array<KernelScratch>(slices);
  // The slices in one block, at a cache line: KernelScratch aligns inside it.
  constexpr size_t kAlign = KernelScratch::kAlignment;
  auto* data = static_cast<uint8_t*>(allocator.allocate(slices * bytes + kAlign));
  TL_CHECK_OR_RETURN_ERROR(scratch_ != nullptr && data != nullptr, MemoryAllocationFailed,
                           "method '%s': the method allocator has no room for %u kernel "
                           "scratch slices of %zu bytes; give it "
                           "MethodMeta::method_allocator_bytes(%u)",
                           name(), slices, bytes, slices);
  data += (kAlign - reinterpret_cast<uintptr_t>(data) % kAlign) % kAlign;
  for (uint32_t i = 0; i < slices; ++i) scratch_[i] = KernelScratch(data + i * bytes, bytes);
  scratch_slices_ = slices;
  return Error::Ok;
}

Error Method::set_parallel(const Parallel* parallel) {
  const int threads = parallel != nullptr ? parallel->threads : 1;
  TL_CHECK_OR_RETURN_ERROR(
      scratch_ == nullptr || threads <= static_cast<int>(scratch_slices_), InvalidArgument,
      "method '%s' was loaded with kernel scratch for %u thread(s), not %d; load it with "
      "BackendOptions::num_threads = %d", name(), scratch_slices_, threads, threads);
  parallel_ = parallel;
  return Error::Ok;
}

Error Method::reset_state() {
  TL_CHECK_OR_RETURN_ERROR(loaded_, InvalidState, "method is not loaded");
  // parse_tensor() checked each initial value is inside the segment and sized as its
  // buffer, so this only copies.
  for (size_t i = 0; i < num_values_; ++i) {
    const fb::Tensor* t = method_->values()->Get(static_cast<uint32_t>(i))->val_as_Tensor();
    const fb::ConstantRef* initial = t != nullptr ? t->initial() : nullptr;
    if (initial == nullptr) continue;
    Tensor& buffer = values_[i].to_tensor();
    Result<const uint8_t*> bytes =
        program_->constant_data(initial->segment(), initial->offset(), buffer.nbytes());
    // Load planned the buffer in an arena, so its data is never null.
    if (bytes.ok()) __builtin_memcpy(buffer.data(), *bytes, buffer.nbytes());
  }
  return Error::Ok;
}

namespace internal {

Error check_limits(const fb::Method& method, const LoadLimits& limits, uint32_t threads) {
  const char* name = method.name() != nullptr ? method.name()->c_str() : "";
  const uint64_t planned = planned_bytes(method, threads);
  TL_CHECK_OR_RETURN_ERROR(planned <= limits.max_memory_bytes, LimitExceeded,
                           "method '%s' plans %" PRIu64 " bytes of memory (arenas and method "
                           "allocator), over the limit of %" PRIu64 "; raise "
                           "LoadLimits::max_memory_bytes (runner --max-memory) if the model "
                           "needs it",
                           name, planned, limits.max_memory_bytes);
  const uint64_t elements = elements_per_execute(method);
  TL_CHECK_OR_RETURN_ERROR(elements <= limits.max_elements_per_execute, LimitExceeded,
                           "method '%s' touches %" PRIu64 " tensor elements per run, over the "
                           "limit of %" PRIu64 "; raise LoadLimits::max_elements_per_execute "
                           "(runner --max-elements) if the model needs it",
                           name, elements, limits.max_elements_per_execute);
  return Error::Ok;
}

size_t io_allocator_bytes(const fb::Method& method) {
  const size_t n = method.inputs() != nullptr ? method.inputs()->size() : 0;
  return MemoryAllocator::round_up(n * sizeof(const int32_t*));
}

}  // namespace internal

Error Method::parse_io(MemoryManager& memory) {
  const auto* inputs = method_->inputs();
  const auto* outputs = method_->outputs();
  num_inputs_ = inputs != nullptr ? inputs->size() : 0;
  num_outputs_ = outputs != nullptr ? outputs->size() : 0;
  input_ids_ = num_inputs_ > 0 ? inputs->data() : nullptr;
  output_ids_ = num_outputs_ > 0 ? outputs->data() : nullptr;
  const int32_t** min_sizes = nullptr;
  if (num_inputs_ > 0) {
    min_sizes = memory.method_allocator()->allocate_array<const int32_t*>(num_inputs_);
    TL_CHECK_OR_RETURN_ERROR(min_sizes != nullptr, MemoryAllocationFailed,
                             "method '%s': the method allocator is full; give it "
                             "MethodMeta::method_allocator_bytes()",
                             name());
  }
  for (size_t i = 0; i < num_inputs_; ++i) {
    const int32_t id = input_ids_[i];
    TL_CHECK_OR_RETURN_ERROR(id >= 0 && static_cast<size_t>(id) < num_values_, InvalidProgram,
                             "method '%s': input %zu refers to value %" PRId32
                             ", out of range (%zu values)",
                             name(), i, id, num_values_);
    const EValue& v = values_[id];
    TL_CHECK_OR_RETURN_ERROR(v.is_tensor() || v.is_scalar(), InvalidProgram,
                             "method '%s': input %zu is a %s value; inputs are tensors, ints, "
                             "floats or bools",
                             name(), i, evalue_tag_name(v.tag()));
    // Inputs are copied in, so they need planned memory, not constant data.
    const fb::Tensor* t = method_->values()->Get(static_cast<uint32_t>(id))->val_as_Tensor();
    TL_CHECK_OR_RETURN_ERROR(t == nullptr || t->constant() == nullptr, InvalidProgram,
                             "method '%s': input %zu is a constant tensor", name(), i);
    // Lower bounds (optional): one per dim, none above the planned size.
    min_sizes[i] = nullptr;
    if (t != nullptr && t->min_sizes() != nullptr) {
      const auto* lower = t->min_sizes();
      const size_t dim = t->sizes() != nullptr ? t->sizes()->size() : 0;
      bool fits = lower->size() == dim;
      for (uint32_t d = 0; fits && d < dim; ++d) {
        fits = lower->Get(d) >= 0 && lower->Get(d) <= t->sizes()->Get(d);
      }
      TL_CHECK_OR_RETURN_ERROR(fits, InvalidProgram,
                               "method '%s': input %zu: min_sizes must hold one size per dim, "
                               "from 0 to the planned size",
                               name(), i);
      min_sizes[i] = dim > 0 ? lower->data() : nullptr;
    }
  }
  input_min_sizes_ = min_sizes;
  for (size_t i = 0; i < num_outputs_; ++i) {
    const int32_t id = output_ids_[i];
    TL_CHECK_OR_RETURN_ERROR(id >= 0 && static_cast<size_t>(id) < num_values_, InvalidProgram,
                             "method '%s': output %zu refers to value %" PRId32
                             ", out of range (%zu values)",
                             name(), i, id, num_values_);
  }
  return Error::Ok;
}

}  // namespace tailor
