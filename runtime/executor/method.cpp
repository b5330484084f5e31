// Method: inputs and outputs, and the execution loop. Reads only the Steps and values
// load built (method_load.cpp), so it compiles freestanding.
#include "runtime/executor/method.h"

#include "runtime/executor/step.h"
#include "runtime/kernel/kernel_context.h"
#include "runtime/platform/format.h"

namespace tailor {
namespace {

#if TL_LOG_ENABLED
// "[3, 5]" into `out` for messages.
void format_sizes(ArrayRef<int64_t> sizes, char* out, size_t size) {
  size_t used = format_string(out, size, "[");
  for (size_t d = 0; d < sizes.size() && used < size; ++d) {
    used += format_string(out + used, size - used, d == 0 ? "%lld" : ", %lld",
                          static_cast<long long>(sizes[d]));
  }
  if (used < size) format_string(out + used, size - used, "]");
}

void format_sizes(ArrayRef<int32_t> sizes, char* out, size_t size) {
  int64_t wide[kMaxTensorDim];
  for (size_t d = 0; d < sizes.size() && d < kMaxTensorDim; ++d) wide[d] = sizes[d];
  format_sizes(ArrayRef<int64_t>(wide, sizes.size()), out, size);
}
#endif

}  // namespace

Method::Method(Method&& other) { *this = static_cast<Method&&>(other); }

Method& Method::operator=(Method&& other) {
  if (this == &other) return *this;
  if (has_delegates_) internal::destroy_delegates(steps_, num_steps_);
  method_ = other.method_;
  program_ = other.program_;
  name_ = other.name_;
  values_ = other.values_;
  num_values_ = other.num_values_;
  steps_ = other.steps_;
  num_steps_ = other.num_steps_;
  input_ids_ = other.input_ids_;
  input_min_sizes_ = other.input_min_sizes_;
  num_inputs_ = other.num_inputs_;
  output_ids_ = other.output_ids_;
  num_outputs_ = other.num_outputs_;
  loaded_ = other.loaded_;
  has_delegates_ = other.has_delegates_;
  parallel_ = other.parallel_;
  scratch_ = other.scratch_;
  scratch_slices_ = other.scratch_slices_;
  prepacked_count_ = other.prepacked_count_;
  prepacked_bytes_ = other.prepacked_bytes_;
  seed_ = other.seed_;
  runs_ = other.runs_;
  rest_ = other.rest_;
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
  const int32_t* min = input_min_sizes_ != nullptr ? input_min_sizes_[index] : nullptr;
  bool below_min = false;
  for (size_t d = 0; min != nullptr && d < sizes.size() && d < t->sizes().size(); ++d) {
    below_min = below_min || sizes[d] < min[d];
  }
  if (below_min) {
#if TL_LOG_ENABLED
    char given[128];
    char lower[128];
    format_sizes(sizes, given, sizeof(given));
    format_sizes(ArrayRef<int32_t>(min, t->sizes().size()), lower, sizeof(lower));
    TL_LOG(Error, "method '%s': input %zu: shape %s is below the exported minimum %s",
           name(), index, given, lower);
#endif
    return Error::InvalidArgument;
  }
  if (t->set_sizes(sizes) != Error::Ok) {
#if TL_LOG_ENABLED  // the formatting would otherwise stay linked in for nothing
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
#endif
    return Error::InvalidArgument;
  }
  // set_sizes() guarantees nbytes() <= capacity_bytes(), the planned range.
  if (t->nbytes() > 0) __builtin_memcpy(t->data(), data, t->nbytes());
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
  ctx.set_parallel(parallel_);
  ctx.set_scratch(scratch_);
  ctx.set_random_run(seed_, runs_++);
  ctx.set_rest(rest_);
  size_t pc = 0;  // load checked every index and kind: the loop below only dispatches
  TL_TRACE_BEGIN_EXECUTE(tracer_, name_);
  while (pc < num_steps_) {
    const internal::Step& step = TL_TRACED_STEP(tracer_, steps_, pc);
    switch (step.kind) {
      case internal::StepKind::KernelCall:
        ctx.scratch().reset();  // a kernel's scratch lasts for its call
        ctx.set_instruction(pc);
        ctx.set_packed(step.packed);
        step.fn(ctx, step.args);
        if (ctx.failure_state() != Error::Ok) {
          TL_LOG(Error, "method '%s': instruction %zu (%s) failed: %s", name(), pc, step.op,
                 error_name(ctx.failure_state()));
          return ctx.failure_state();
        }
        ++pc;
        break;
      case internal::StepKind::DelegateCall: {
        const Error err = step.backend->execute(step.handle, ArrayRef<EValue*>(step.args, step.a));
        if (err != Error::Ok) {
          TL_LOG(Error, "method '%s': instruction %zu (delegate %u, backend %s) failed: %s",
                 name(), pc, static_cast<unsigned>(step.b), step.backend->name,
                 error_name(err));
          return err;
        }
        if (step.backend->rest != nullptr) ctx.set_rest({step.backend->rest, step.handle});
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
  rest_ = ctx.pending_rest();
  return TL_TRACED_END(tracer_, Error::Ok);
}

namespace internal {

void destroy_delegates(Step* steps, size_t count) {
  for (size_t pc = 0; pc < count; ++pc) {
    Step& step = steps[pc];
    if (step.kind == StepKind::DelegateCall && step.handle != nullptr &&
        step.backend->destroy != nullptr) {
      step.backend->destroy(step.handle);
    }
    step.handle = nullptr;
  }
}

}  // namespace internal
}  // namespace tailor
