// Method: load orchestration, inputs and outputs, and the execution loop.
#include "runtime/executor/method.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "runtime/executor/method_layout.h"
#include "runtime/kernel/kernel_context.h"

namespace tailor {
namespace {

// "[3, 5]" into `out` for messages.
void format_sizes(ArrayRef<int64_t> sizes, char* out, size_t size) {
  size_t used = static_cast<size_t>(snprintf(out, size, "["));
  for (size_t d = 0; d < sizes.size() && used < size; ++d) {
    used += static_cast<size_t>(
        snprintf(out + used, size - used, d == 0 ? "%" PRId64 : ", %" PRId64, sizes[d]));
  }
  if (used < size) snprintf(out + used, size - used, "]");
}

void format_sizes(ArrayRef<int32_t> sizes, char* out, size_t size) {
  int64_t wide[kMaxTensorDim];
  for (size_t d = 0; d < sizes.size() && d < kMaxTensorDim; ++d) wide[d] = sizes[d];
  format_sizes(ArrayRef<int64_t>(wide, sizes.size()), out, size);
}

}  // namespace

const char* Method::name() const {
  return method_ != nullptr && method_->name() != nullptr ? method_->name()->c_str() : "";
}

Method::Method(Method&& other) { *this = static_cast<Method&&>(other); }

Method& Method::operator=(Method&& other) {
  if (this == &other) return *this;
  if (has_delegates_) internal::destroy_delegates(steps_, num_steps_);
  method_ = other.method_;
  values_ = other.values_;
  num_values_ = other.num_values_;
  steps_ = other.steps_;
  num_steps_ = other.num_steps_;
  input_ids_ = other.input_ids_;
  num_inputs_ = other.num_inputs_;
  output_ids_ = other.output_ids_;
  num_outputs_ = other.num_outputs_;
  loaded_ = other.loaded_;
  has_delegates_ = other.has_delegates_;
  // The moved-from method keeps nothing to destroy.
  other.steps_ = nullptr;
  other.num_steps_ = 0;
  other.loaded_ = false;
  other.has_delegates_ = false;
  return *this;
}

Method::~Method() {
  if (has_delegates_) internal::destroy_delegates(steps_, num_steps_);
}

Error Method::init(const Program& program, const fb::Method* method, MemoryManager& memory,
                   const BackendOptions& backend_options) {
  method_ = method;
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
  err = parse_io();
  if (err != Error::Ok) return err;
  err = internal::parse_steps(ctx, &steps_, &num_steps_);
  if (err != Error::Ok) return err;
  has_delegates_ = method->delegates() != nullptr && method->delegates()->size() > 0;
  loaded_ = true;
  return Error::Ok;
}

Error Method::parse_io() {
  const auto* inputs = method_->inputs();
  const auto* outputs = method_->outputs();
  num_inputs_ = inputs != nullptr ? inputs->size() : 0;
  num_outputs_ = outputs != nullptr ? outputs->size() : 0;
  input_ids_ = num_inputs_ > 0 ? inputs->data() : nullptr;
  output_ids_ = num_outputs_ > 0 ? outputs->data() : nullptr;
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
  }
  for (size_t i = 0; i < num_outputs_; ++i) {
    const int32_t id = output_ids_[i];
    TL_CHECK_OR_RETURN_ERROR(id >= 0 && static_cast<size_t>(id) < num_values_, InvalidProgram,
                             "method '%s': output %zu refers to value %" PRId32
                             ", out of range (%zu values)",
                             name(), i, id, num_values_);
  }
  return Error::Ok;
}

const EValue& Method::input(size_t index) const {
  TL_DCHECK(loaded_ && index < num_inputs_);
  return values_[input_ids_[index]];
}

const EValue& Method::output(size_t index) const {
  TL_DCHECK(loaded_ && index < num_outputs_);
  return values_[output_ids_[index]];
}

Error Method::input_tensor(size_t index, Tensor** tensor) const {
  TL_CHECK_OR_RETURN_ERROR(loaded_, InvalidState, "method is not loaded");
  TL_CHECK_OR_RETURN_ERROR(index < num_inputs_, InvalidArgument,
                           "method '%s' has %zu inputs, there is no input %zu", name(),
                           num_inputs_, index);
  const EValue& v = values_[input_ids_[index]];
  TL_CHECK_OR_RETURN_ERROR(v.is_tensor(), InvalidArgument,
                           "method '%s': input %zu is a %s, not a tensor", name(), index,
                           evalue_tag_name(v.tag()));
  *tensor = &v.to_tensor();
  return Error::Ok;
}

Error Method::set_input(size_t index, const void* data, ArrayRef<int64_t> sizes) {
  Tensor* t = nullptr;
  const Error err = input_tensor(index, &t);
  if (err != Error::Ok) return err;
  if (t->set_sizes(sizes) != Error::Ok) {
    char given[128];
    char planned[128];
    format_sizes(sizes, given, sizeof(given));
    format_sizes(t->sizes(), planned, sizeof(planned));
    if (t->is_dynamic()) {
      TL_LOG(Error,
             "method '%s': input %zu: shape %s does not fit the planned upper bounds %s "
             "(%zu bytes)",
             name(), index, given, planned, t->capacity_bytes());
    } else {
      TL_LOG(Error, "method '%s': input %zu: shape %s does not match the expected %s", name(),
             index, given, planned);
    }
    return Error::InvalidArgument;
  }
  // set_sizes() guarantees nbytes() <= capacity_bytes(), the planned range.
  if (t->nbytes() > 0) memcpy(t->data(), data, t->nbytes());
  return Error::Ok;
}

Error Method::set_input(size_t index, ScalarType dtype, const void* data,
                        ArrayRef<int64_t> sizes) {
  Tensor* t = nullptr;
  const Error err = input_tensor(index, &t);
  if (err != Error::Ok) return err;
  TL_CHECK_OR_RETURN_ERROR(dtype == t->dtype(), InvalidArgument,
                           "method '%s': input %zu: dtype %s does not match the expected %s",
                           name(), index, scalar_type_name(dtype), scalar_type_name(t->dtype()));
  return set_input(index, data, sizes);
}

Error Method::set_input(size_t index, const EValue& value) {
  TL_CHECK_OR_RETURN_ERROR(loaded_, InvalidState, "method is not loaded");
  TL_CHECK_OR_RETURN_ERROR(index < num_inputs_, InvalidArgument,
                           "method '%s' has %zu inputs, there is no input %zu", name(),
                           num_inputs_, index);
  EValue& v = values_[input_ids_[index]];
  TL_CHECK_OR_RETURN_ERROR(v.is_scalar() && value.tag() == v.tag(), InvalidArgument,
                           "method '%s': input %zu is a %s, cannot set it from a %s", name(),
                           index, evalue_tag_name(v.tag()), evalue_tag_name(value.tag()));
  v = value;
  return Error::Ok;
}

Error Method::execute() {
  TL_CHECK_OR_RETURN_ERROR(loaded_, InvalidState, "method is not loaded");
  KernelContext ctx;
  size_t pc = 0;
  // Load checked every index and kind; this loop only dispatches.
  while (pc < num_steps_) {
    const internal::Step& step = steps_[pc];
    switch (step.kind) {
      case internal::StepKind::KernelCall:
        step.fn(ctx, step.args);
        if (ctx.failure_state() != Error::Ok) {
          char op[256];
          internal::format_operator_name(*step.op, op, sizeof(op));
          TL_LOG(Error, "method '%s': instruction %zu (%s) failed: %s", name(), pc, op,
                 error_name(ctx.failure_state()));
          return ctx.failure_state();
        }
        ++pc;
        break;
      case internal::StepKind::DelegateCall: {
        const Error err = step.backend->execute(step.handle, ArrayRef<EValue*>(step.args, step.a));
        if (err != Error::Ok) {
          TL_LOG(Error, "method '%s': instruction %zu (delegate %" PRIu32 ", backend %s) "
                 "failed: %s", name(), pc, step.b, step.backend->name, error_name(err));
          return err;
        }
        ++pc;
        break;
      }
      case internal::StepKind::Move:
        values_[step.b] = values_[step.a];
        ++pc;
        break;
      case internal::StepKind::JumpFalse:
        pc = values_[step.a].to_bool() ? pc + 1 : step.b;
        break;
      case internal::StepKind::Free:
        // Memory is planned ahead of time: nothing to release.
        ++pc;
        break;
    }
  }
  return Error::Ok;
}

}  // namespace tailor
