// Method load, part 2: checks every instruction and resolves each kernel call once.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "runtime/executor/method_layout.h"

namespace tailor::internal {
namespace {

#define TL_STEP_CHECK(cond, error, fmt, ...)                                     \
  TL_CHECK_OR_RETURN_ERROR(cond, error, "method '%s': instruction %zu: " fmt, \
                           ctx.method_name, pc, ##__VA_ARGS__)


template <typename V>
size_t vector_size(const V* v) {
  return v != nullptr ? v->size() : 0;
}

bool valid_id(const LoadContext& ctx, int32_t id) {
  return id >= 0 && static_cast<size_t>(id) < ctx.num_values;
}

// Whether a value of kind `tag` fits signature token `c` (see KernelEntry::args).
bool kind_matches(char c, EValue::Tag tag) {
  using Tag = EValue::Tag;
  switch (c) {
    case 'T': return tag == Tag::Tensor;
    case 'L': return tag == Tag::TensorList;
    case 'O': return tag == Tag::OptionalTensorList;
    case 'S': return tag == Tag::Int || tag == Tag::Double || tag == Tag::Bool;
    case 'i': return tag == Tag::Int;
    case 'I': return tag == Tag::IntList;
    case 'f': return tag == Tag::Double;
    case 'F': return tag == Tag::DoubleList;
    case 'b': return tag == Tag::Bool;
    case 'B': return tag == Tag::BoolList;
    case 's': return tag == Tag::String;
    default: return false;
  }
}

size_t count_slots(const char* signature) {
  size_t n = 0;
  for (const char* p = signature; *p != '\0'; ++p) n += *p != '?' && *p != '!';
  return n;
}

bool is_constant_tensor(const LoadContext& ctx, int32_t id) {
  const fb::Tensor* t = ctx.method.values()->Get(static_cast<uint32_t>(id))->val_as_Tensor();
  return t != nullptr && t->constant() != nullptr;
}

// The first value id in value `id` (a tensor, or a tensor list's items) whose data is in
// the constant segment, or -1. Load checked every list item id.
int32_t constant_tensor_in(const LoadContext& ctx, int32_t id) {
  if (is_constant_tensor(ctx, id)) return id;
  const fb::Value* v = ctx.method.values()->Get(static_cast<uint32_t>(id));
  const flatbuffers::Vector<int32_t>* items = nullptr;
  if (const fb::TensorList* l = v->val_as_TensorList()) items = l->items();
  if (const fb::OptionalTensorList* l = v->val_as_OptionalTensorList()) items = l->items();
  for (size_t i = 0; i < vector_size(items); ++i) {
    const int32_t item = items->Get(static_cast<uint32_t>(i));
    if (item >= 0 && is_constant_tensor(ctx, item)) return item;
  }
  return -1;
}

// Whether the bytes of `a` and `b` (at their planned sizes) partly overlap: neither the
// same range nor apart. A written argument must not: a kernel copying one into the other
// (memcpy) or vectorizing over both assumes they do not, and a valid memory plan never
// gives a tensor memory another one uses at that instruction.
bool partly_overlap(const Tensor& a, const Tensor& b) {
  const auto* pa = static_cast<const uint8_t*>(a.data());
  const auto* pb = static_cast<const uint8_t*>(b.data());
  const size_t na = a.nbytes();
  const size_t nb = b.nbytes();
  if (na == 0 || nb == 0 || pa == nullptr || pb == nullptr) return false;
  if (pa == pb && na == nb) return false;
  return pa < pb + nb && pb < pa + na;
}

// Calls f(tensor) for each tensor of a value: itself, or a list's items (None items
// skipped), however many; stops at and returns the first false f returns.
template <typename F>
bool all_tensors_of(const EValue& v, F&& f) {
  if (v.is_tensor()) return f(v.to_tensor());
  if (v.tag() != EValue::Tag::TensorList && v.tag() != EValue::Tag::OptionalTensorList) {
    return true;
  }
  const ArrayRef<Tensor*> items =
      v.tag() == EValue::Tag::TensorList ? v.to_tensor_list() : v.to_optional_tensor_list();
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i] != nullptr && !f(*items[i])) return false;
  }
  return true;
}

// Checks no tensor the kernel writes (slot `written`) partly overlaps any tensor argument.
Error check_written_overlap(const LoadContext& ctx, size_t pc, const char* op_name,
                            size_t written, const flatbuffers::Vector<int32_t>* args) {
  const EValue& outs = ctx.values[args->Get(static_cast<uint32_t>(written))];
  for (size_t slot = 0; slot < vector_size(args); ++slot) {
    const EValue& others = ctx.values[args->Get(static_cast<uint32_t>(slot))];
    const bool apart = all_tensors_of(outs, [&](const Tensor& out) {
      return all_tensors_of(others, [&](const Tensor& other) {
        return !partly_overlap(out, other);
      });
    });
    TL_STEP_CHECK(apart, InvalidProgram,
                  "%s argument %zu is written by the kernel, but its memory partly "
                  "overlaps argument %zu's; a tensor it writes must be apart from the "
                  "others or the same one (corrupt memory plan)", op_name, written, slot);
  }
  return Error::Ok;
}

// Checks the call's arguments against the kernel's signature: the kernel reads exactly
// that many slots and unboxes each as that kind without checking.
Error check_arguments(const LoadContext& ctx, size_t pc, const char* op_name,
                      const char* signature, const flatbuffers::Vector<int32_t>* args) {
  const size_t nargs = vector_size(args);
  const size_t want = count_slots(signature);
  TL_STEP_CHECK(nargs == want, InvalidProgram,
                "%s takes %zu arguments (signature %s), the call passes %zu", op_name, want,
                signature, nargs);
  const char* p = signature;
  for (size_t slot = 0; slot < nargs; ++slot) {
    const bool written = *p == '!';
    if (written) ++p;
    const bool optional = *p == '?';
    if (optional) ++p;
    const char token = *p++;
    const int32_t id = args->Get(static_cast<uint32_t>(slot));
    const EValue::Tag tag = ctx.values[id].tag();
    TL_STEP_CHECK((optional && tag == EValue::Tag::None) || kind_matches(token, tag),
                  InvalidProgram, "%s argument %zu is a %s value, the kernel expects '%s%c'",
                  op_name, slot, evalue_tag_name(tag), optional ? "?" : "", token);
    // The kernel writes this argument: it must be planned memory. Constants are the
    // file's bytes (read-only memory, or a mapping the next run would read back).
    const int32_t constant = written ? constant_tensor_in(ctx, id) : -1;
    TL_STEP_CHECK(constant < 0, InvalidProgram,
                  "%s argument %zu is written by the kernel, but value %" PRId32
                  " is a constant tensor; out arguments must be planned memory",
                  op_name, slot, constant);
    if (written) {
      const Error err = check_written_overlap(ctx, pc, op_name, slot, args);
      if (err != Error::Ok) return err;
    }
  }
  return Error::Ok;
}

// The first tensor (argument or list item) of the call whose dtype is not in
// `selected` (bit 1u << ScalarType code), or nullptr.
const Tensor* unselected_tensor(const LoadContext& ctx, uint32_t selected,
                                const flatbuffers::Vector<int32_t>* args, size_t* slot) {
  const Tensor* found = nullptr;
  for (*slot = 0; *slot < vector_size(args); ++*slot) {
    all_tensors_of(ctx.values[args->Get(static_cast<uint32_t>(*slot))], [&](const Tensor& t) {
      if (((selected >> static_cast<uint32_t>(t.dtype())) & 1u) != 0) return true;
      found = &t;
      return false;
    });
    if (found != nullptr) return found;
  }
  return nullptr;
}

// The build compiled the kernel for the dtypes its models use (KernelEntry::dtypes); a
// call with another would fail inside the kernel on every run, so load refuses it.
Error check_selected_dtypes(const LoadContext& ctx, size_t pc, const char* op_name,
                            uint32_t selected, const flatbuffers::Vector<int32_t>* args) {
  size_t slot = 0;
  const Tensor* t = unselected_tensor(ctx, selected, args, &slot);
  if (t == nullptr) return Error::Ok;
#if TL_LOG_ENABLED
  char names[256];
  KeyWriter w{names, sizeof(names), 0, false};
  names[0] = '\0';
  for (int code = 0; code < kNumScalarTypeCodes; ++code) {
    if (is_valid_scalar_type(code) && ((selected >> code) & 1u) != 0) {
      w.append(w.used > 0 ? ", " : "");
      w.append(scalar_type_name(static_cast<ScalarType>(code)));
    }
  }
  TL_LOG(Error,
         "method '%s': instruction %zu: %s argument %zu has dtype %s, which this runtime "
         "did not select for it (selected: %s); build the runtime with this program among "
         "its models (or with select=all)",
         ctx.method_name, pc, op_name, slot, scalar_type_name(t->dtype()),
         w.used > 0 ? names : "none");
#else
  (void)pc;
  (void)op_name;
#endif
  return Error::NotSupported;
}

Error parse_kernel_call(LoadContext& ctx, size_t pc, const fb::KernelCall& call, Step& step) {
  // Operator.
  const uint32_t op_index = call.op_index();
  const size_t num_ops = vector_size(ctx.method.operators());
  TL_STEP_CHECK(op_index < num_ops, InvalidProgram,
                "operator index %" PRIu32 " out of range (%zu operators)", op_index, num_ops);
  const fb::Operator* op = ctx.method.operators()->Get(op_index);
  TL_STEP_CHECK(op->name() != nullptr, InvalidProgram, "operator %" PRIu32 " has no name",
                op_index);
  char op_name[kMaxOperatorName];
  TL_STEP_CHECK(format_operator_name(*op, op_name, sizeof(op_name)), InvalidProgram,
                "operator name '%s' is too long", op->name()->c_str());

  // Arguments.
  const auto* args = call.args();
  const size_t nargs = vector_size(args);
  for (size_t i = 0; i < nargs; ++i) {
    const int32_t id = args->Get(static_cast<uint32_t>(i));
    TL_STEP_CHECK(valid_id(ctx, id), InvalidProgram,
                  "%s argument %zu refers to value %" PRId32 ", out of range (%zu values)",
                  op_name, i, id, ctx.num_values);
  }
  EValue** arg_ptrs = ctx.memory.method_allocator()->allocate_array<EValue*>(nargs);
  TL_STEP_CHECK(arg_ptrs != nullptr, MemoryAllocationFailed,
                "the method allocator is full; give it MethodMeta::method_allocator_bytes()");
  for (size_t i = 0; i < nargs; ++i) {
    arg_ptrs[i] = &ctx.values[args->Get(static_cast<uint32_t>(i))];
  }

  // Kernel: the exact key first, then the kernel registered for any dtype ("").
  char key[kMaxKernelKey];
  bool key_ok = false;
  const KernelEntry* entry = find_kernel(ctx.method, op_name, args, key, sizeof(key), &key_ok);
  if (entry == nullptr) {
    if (!key_ok) snprintf(key, sizeof(key), "(too long)");
    if (registry_has_operator(op_name)) {
      TL_LOG(Error,
             "method '%s': no kernel for operator %s (key %s) in this runtime; its kernels "
             "were built for other dtypes or dim orders",
             ctx.method_name, op_name, key);
    } else {
      TL_LOG(Error, "method '%s': no kernel for operator %s (key %s) in this runtime",
             ctx.method_name, op_name, key);
    }
    return Error::OperatorMissing;
  }
  if (entry->args != nullptr) {
    const Error err = check_arguments(ctx, pc, op_name, entry->args, args);
    if (err != Error::Ok) return err;
  }
  const Error dtype_err = check_selected_dtypes(ctx, pc, op_name, entry->dtypes, args);
  if (dtype_err != Error::Ok) return dtype_err;
  step = Step{StepKind::KernelCall, op_index, 0, entry->fn, arg_ptrs, entry->op};
  return Error::Ok;
}

// The handle `backend` made for the last delegate call in steps[0, pc), or nullptr.
DelegateHandle* previous_handle(const Step* steps, size_t pc, const Backend* backend) {
  while (pc-- > 0) {
    if (steps[pc].kind == StepKind::DelegateCall && steps[pc].backend == backend) {
      return steps[pc].handle;
    }
  }
  return nullptr;
}

// Finds the call's backend among the runtime's and lets it prepare its payload; `steps`
// holds the method's steps before `pc`, already loaded.
Error parse_delegate_call(LoadContext& ctx, size_t pc, const fb::DelegateCall& call,
                          Step* steps) {
  const auto* delegates = ctx.method.delegates();
  const uint32_t index = call.delegate_index();
  TL_STEP_CHECK(index < vector_size(delegates), InvalidProgram,
                "delegate index %" PRIu32 " out of range (%zu delegates)", index,
                vector_size(delegates));
  const fb::Delegate* delegate = delegates->Get(index);
  TL_STEP_CHECK(delegate->backend() != nullptr, InvalidProgram, "delegate %" PRIu32
                " names no backend", index);
  const char* name = delegate->backend()->c_str();
  const Backend* backend = backend_find(name);
  if (backend == nullptr) {
#if TL_LOG_ENABLED
    char built[128];
    backend_list_names(built, sizeof(built));
    TL_LOG(Error,
           "method '%s': instruction %zu: delegate %" PRIu32 " needs backend '%s', which "
           "this runtime was built without (its backends: %s); build it for a target that "
           "lists the backend (backends: [%s] in manifests/targets/, e.g. target=host-%s)",
           ctx.method_name, pc, index, name, built, name, name);
#endif
    return Error::NotSupported;
  }
  TL_STEP_CHECK(backend->is_available(), DelegateInvalidCompatibility,
                "backend '%s' is not available on this machine", name);

  const auto* args = call.args();
  const size_t nargs = vector_size(args);
  for (size_t i = 0; i < nargs; ++i) {
    const int32_t id = args->Get(static_cast<uint32_t>(i));
    TL_STEP_CHECK(valid_id(ctx, id), InvalidProgram,
                  "delegate %" PRIu32 " argument %zu refers to value %" PRId32
                  ", out of range (%zu values)",
                  index, i, id, ctx.num_values);
  }
  EValue** arg_ptrs = ctx.memory.method_allocator()->allocate_array<EValue*>(nargs);
  TL_STEP_CHECK(arg_ptrs != nullptr || nargs == 0, MemoryAllocationFailed,
                "the method allocator is full; give it MethodMeta::method_allocator_bytes()");
  for (size_t i = 0; i < nargs; ++i) {
    arg_ptrs[i] = &ctx.values[args->Get(static_cast<uint32_t>(i))];
  }

  const auto* data = delegate->data();
  const BackendInitContext init{ArrayRef<EValue*>(arg_ptrs, nargs), ctx.backend_options,
                                ctx.method_name, previous_handle(steps, pc, backend)};
  Result<DelegateHandle*> handle =
      backend->init(init, data != nullptr ? data->data() : nullptr, vector_size(data));
  TL_CHECK_OK_OR_RETURN_ERROR(handle.error(),
                              "method '%s': instruction %zu: backend '%s' rejected delegate "
                              "%" PRIu32 ": %s",
                              ctx.method_name, pc, name, index, error_name(handle.error()));
  steps[pc] = Step{StepKind::DelegateCall, static_cast<uint32_t>(nargs), index, nullptr,
                   arg_ptrs, nullptr, backend, *handle};
  return Error::Ok;
}

// Loads steps[pc] from `instr`; steps[0, pc) are loaded.
Error parse_step(LoadContext& ctx, size_t pc, size_t num_steps, const fb::Instruction& instr,
                 Step* steps) {
  Step& step = steps[pc];
  const fb::InstructionKind kind = instr.instr_type();
  TL_STEP_CHECK(kind != fb::InstructionKind_NONE && instr.instr() != nullptr, InvalidProgram,
                "instruction is empty");
  switch (kind) {
    case fb::InstructionKind_KernelCall:
      return parse_kernel_call(ctx, pc, *instr.instr_as_KernelCall(), step);
    case fb::InstructionKind_DelegateCall:
      return parse_delegate_call(ctx, pc, *instr.instr_as_DelegateCall(), steps);
    case fb::InstructionKind_Move: {
      const fb::Move* move = instr.instr_as_Move();
      TL_STEP_CHECK(valid_id(ctx, move->from()) && valid_id(ctx, move->to()), InvalidProgram,
                    "move %" PRId32 " -> %" PRId32 " refers to a value out of range (%zu values)",
                    move->from(), move->to(), ctx.num_values);
      const EValue::Tag from = ctx.values[move->from()].tag();
      const EValue::Tag to = ctx.values[move->to()].tag();
      TL_STEP_CHECK(from == to, InvalidProgram, "move from a %s value to a %s value",
                    evalue_tag_name(from), evalue_tag_name(to));
      // A moved tensor may land in a slot a later kernel writes; only constants never
      // move, so every written tensor stays planned memory (the exporter emits no moves).
      const int32_t constant = constant_tensor_in(ctx, move->from());
      TL_STEP_CHECK(constant < 0, InvalidProgram,
                    "move %" PRId32 " -> %" PRId32 " moves value %" PRId32
                    ", a constant tensor; only planned tensors may move",
                    move->from(), move->to(), constant);
      step = Step{StepKind::Move, static_cast<uint32_t>(move->from()),
                  static_cast<uint32_t>(move->to()), nullptr, nullptr, nullptr};
      return Error::Ok;
    }
    case fb::InstructionKind_JumpFalse: {
      const fb::JumpFalse* jump = instr.instr_as_JumpFalse();
      TL_STEP_CHECK(valid_id(ctx, jump->cond()) && ctx.values[jump->cond()].is_bool(),
                    InvalidProgram, "jump condition %" PRId32 " is not a Bool value",
                    jump->cond());
      TL_STEP_CHECK(jump->destination() <= num_steps, InvalidProgram,
                    "jump destination %" PRIu32 " out of range (%zu instructions)",
                    jump->destination(), num_steps);
      // Forward only, so every program ends after at most one pass over its steps: the
      // exporter emits no loops, and a crafted backward jump could spin forever.
      TL_STEP_CHECK(jump->destination() > pc, InvalidProgram,
                    "jump destination %" PRIu32 " is not after the jump; jumps go forward",
                    jump->destination());
      step = Step{StepKind::JumpFalse, static_cast<uint32_t>(jump->cond()), jump->destination(),
                  nullptr, nullptr, nullptr};
      return Error::Ok;
    }
    case fb::InstructionKind_Free: {
      const fb::Free* free_ = instr.instr_as_Free();
      TL_STEP_CHECK(valid_id(ctx, free_->value()), InvalidProgram,
                    "free of value %" PRId32 ", out of range (%zu values)", free_->value(),
                    ctx.num_values);
      step = Step{StepKind::Free, static_cast<uint32_t>(free_->value()), 0, nullptr, nullptr,
                  nullptr};
      return Error::Ok;
    }
    default:
      break;
  }
  TL_STEP_CHECK(false, InvalidProgram, "unknown instruction kind %d", static_cast<int>(kind));
  return Error::InvalidProgram;
}

}  // namespace

bool format_operator_name(const fb::Operator& op, char* out, size_t out_size) {
  const char* name = op.name() != nullptr ? op.name()->c_str() : "";
  const char* overload = op.overload() != nullptr ? op.overload()->c_str() : "";
  const int n = overload[0] != '\0' ? snprintf(out, out_size, "%s.%s", name, overload)
                                    : snprintf(out, out_size, "%s", name);
  return n >= 0 && static_cast<size_t>(n) < out_size;
}

namespace {

uint64_t add_saturated(uint64_t a, uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; }

// Elements of value `id` at its planned sizes: a tensor's, or the sum of a list's items.
uint64_t value_elements(const fb::Method& method, int32_t id, int depth = 0) {
  const auto* values = method.values();
  if (values == nullptr || id < 0 || static_cast<uint32_t>(id) >= values->size()) return 0;
  const fb::Value* v = values->Get(static_cast<uint32_t>(id));
  if (const fb::Tensor* t = v->val_as_Tensor()) {
    uint64_t numel = 1;
    for (uint32_t d = 0; t->sizes() != nullptr && d < t->sizes()->size(); ++d) {
      const int32_t s = t->sizes()->Get(d);
      const uint64_t size = s > 0 ? static_cast<uint64_t>(s) : 0;
      if (size == 0) return 0;
      numel = numel > UINT64_MAX / size ? UINT64_MAX : numel * size;
    }
    return numel;
  }
  const flatbuffers::Vector<int32_t>* items = nullptr;
  if (const fb::TensorList* l = v->val_as_TensorList()) items = l->items();
  if (const fb::OptionalTensorList* l = v->val_as_OptionalTensorList()) items = l->items();
  uint64_t total = 0;
  for (size_t i = 0; depth == 0 && i < vector_size(items); ++i) {
    total = add_saturated(total,
                          value_elements(method, items->Get(static_cast<uint32_t>(i)), 1));
  }
  return total;
}

}  // namespace

uint64_t elements_per_execute(const fb::Method& method) {
  uint64_t total = 0;
  for (size_t pc = 0; pc < vector_size(method.instructions()); ++pc) {
    const fb::Instruction* instr = method.instructions()->Get(static_cast<uint32_t>(pc));
    const flatbuffers::Vector<int32_t>* args = nullptr;
    if (const fb::KernelCall* call = instr->instr_as_KernelCall()) args = call->args();
    if (const fb::DelegateCall* call = instr->instr_as_DelegateCall()) args = call->args();
    for (size_t i = 0; i < vector_size(args); ++i) {
      total = add_saturated(total,
                            value_elements(method, args->Get(static_cast<uint32_t>(i))));
    }
  }
  return total;
}

size_t steps_allocator_bytes(const fb::Method& method) {
  const size_t n = vector_size(method.instructions());
  size_t total = MemoryAllocator::round_up(n * sizeof(Step));
  for (size_t pc = 0; pc < n; ++pc) {
    const fb::Instruction* instr = method.instructions()->Get(static_cast<uint32_t>(pc));
    if (const fb::KernelCall* call = instr->instr_as_KernelCall()) {
      total += MemoryAllocator::round_up(vector_size(call->args()) * sizeof(EValue*));
    } else if (const fb::DelegateCall* call = instr->instr_as_DelegateCall()) {
      total += MemoryAllocator::round_up(vector_size(call->args()) * sizeof(EValue*));
    }
  }
  return total;
}

Error parse_steps(LoadContext& ctx, Step** steps, size_t* count) {
  const size_t n = vector_size(ctx.method.instructions());
  Step* out = ctx.memory.method_allocator()->allocate_array<Step>(n);
  TL_CHECK_OR_RETURN_ERROR(out != nullptr, MemoryAllocationFailed,
                           "method '%s': the method allocator is full; give it "
                           "MethodMeta::method_allocator_bytes()",
                           ctx.method_name);
  for (size_t pc = 0; pc < n; ++pc) {
    out[pc] = Step{};
    const Error err =
        parse_step(ctx, pc, n, *ctx.method.instructions()->Get(static_cast<uint32_t>(pc)), out);
    if (err != Error::Ok) {
      destroy_delegates(out, pc);
      return err;
    }
  }
  *steps = out;
  *count = n;
  return Error::Ok;
}

}  // namespace tailor::internal
