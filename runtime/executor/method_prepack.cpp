// Method load, part 3: the kernels' packed copies of constant weights (runtime/kernel/
// prepack.h), sized from the flatbuffer alone (MethodMeta) and made once per call. Only a
// kernel table with a prepack hook references kMethodPrepack (gen::kPrepackPath), so only
// such a runtime links this file.
#include "runtime/executor/method_layout.h"

namespace tailor {

namespace {

const fb::Method& fb_method(const void* method) { return *static_cast<const fb::Method*>(method); }
const flatbuffers::Vector<int32_t>* fb_args(const void* args) {
  return static_cast<const flatbuffers::Vector<int32_t>*>(args);
}

}  // namespace

size_t PrepackCall::size() const { return args_ != nullptr ? fb_args(args_)->size() : 0; }

// Load checked (or MethodMeta's callers skip) every argument id before a hook runs; the
// checks stay here so a hook never reads outside the method's values.
static const fb::Value* prepack_value(const void* method, const void* args, size_t slot) {
  const auto* ids = fb_args(args);
  const auto* values = fb_method(method).values();
  if (ids == nullptr || values == nullptr || slot >= ids->size()) return nullptr;
  const int32_t id = ids->Get(static_cast<uint32_t>(slot));
  if (id < 0 || static_cast<uint32_t>(id) >= values->size()) return nullptr;
  return values->Get(static_cast<uint32_t>(id));
}

bool PrepackCall::tensor(size_t slot, PrepackTensor* out) const {
  const fb::Value* v = prepack_value(method_, args_, slot);
  const fb::Tensor* t = v != nullptr ? v->val_as_Tensor() : nullptr;
  if (t == nullptr || !is_valid_scalar_type(static_cast<int>(t->scalar_type()))) return false;
  const size_t dim = t->sizes() != nullptr ? t->sizes()->size() : 0;
  if (dim > kMaxTensorDim) return false;
  out->dtype = static_cast<ScalarType>(t->scalar_type());
  out->dim = dim;
  for (size_t d = 0; d < dim; ++d) out->sizes[d] = t->sizes()->Get(static_cast<uint32_t>(d));
  out->constant = t->constant() != nullptr;
  out->contiguous = true;
  for (size_t d = 0; d < dim; ++d) {
    const auto* order = t->dim_order();
    out->contiguous = out->contiguous && order != nullptr && order->size() == dim &&
                      order->Get(static_cast<uint32_t>(d)) == d;
  }
  return true;
}

bool PrepackCall::integer(size_t slot, int64_t* out) const {
  const fb::Value* v = prepack_value(method_, args_, slot);
  if (v == nullptr) return false;
  if (const fb::Int* i = v->val_as_Int()) {
    *out = i->value();
    return true;
  }
  if (const fb::Bool* b = v->val_as_Bool()) {
    *out = b->value() ? 1 : 0;
    return true;
  }
  return false;
}

int64_t PrepackCall::int_list(size_t slot, int64_t* out, size_t max) const {
  const fb::Value* v = prepack_value(method_, args_, slot);
  const fb::IntList* list = v != nullptr ? v->val_as_IntList() : nullptr;
  const auto* values = fb_method(method_).values();
  if (list == nullptr) return -1;
  const size_t n = list->items() != nullptr ? list->items()->size() : 0;
  if (n > max) return -1;
  for (size_t i = 0; i < n; ++i) {
    const int32_t id = list->items()->Get(static_cast<uint32_t>(i));
    if (id < 0 || static_cast<uint32_t>(id) >= values->size()) return -1;
    const fb::Int* item = values->Get(static_cast<uint32_t>(id))->val_as_Int();
    if (item == nullptr) return -1;
    out[i] = item->value();
  }
  return static_cast<int64_t>(n);
}

namespace internal {
namespace {

// The hook of instruction `pc` and the bytes of its packed copy (0: none).
size_t call_prepack(const fb::Method& method, size_t pc, const KernelPrepack** hook) {
  *hook = nullptr;
  const fb::KernelCall* call = method.instructions()->Get(static_cast<uint32_t>(pc))
                                   ->instr_as_KernelCall();
  const auto* operators = method.operators();
  if (call == nullptr || operators == nullptr || call->op_index() >= operators->size()) {
    return 0;
  }
  char op_name[kMaxOperatorName];
  char key[kMaxKernelKey];
  bool key_ok = false;
  if (!format_operator_name(*operators->Get(call->op_index()), op_name, sizeof(op_name))) {
    return 0;
  }
  const KernelEntry* entry = find_kernel(method, op_name, call->args(), key, sizeof(key), &key_ok);
  if (entry == nullptr || entry->prepack == nullptr) return 0;
  const PrepackCall view(&method, call->args());
  PrepackTensor weight;
  if (!view.tensor(entry->prepack->slot, &weight) || !weight.constant) return 0;
  *hook = entry->prepack;
  return entry->prepack->bytes(view);
}

size_t reserved(size_t bytes) {
  return bytes == 0 ? 0 : MemoryAllocator::round_up(bytes + kPrepackAlignment);
}

size_t packed_bytes(const fb::Method& method) {
  const size_t n = method.instructions() != nullptr ? method.instructions()->size() : 0;
  size_t total = 0;
  for (size_t pc = 0; pc < n; ++pc) {
    const KernelPrepack* hook = nullptr;
    const size_t bytes = reserved(call_prepack(method, pc, &hook));
    total = bytes > SIZE_MAX - total ? SIZE_MAX : total + bytes;
  }
  return total;
}

Error pack_steps(LoadContext& ctx, Step* steps, size_t count, size_t* made, size_t* bytes) {
  *made = 0;
  *bytes = 0;
  MemoryAllocator& allocator = *ctx.memory.method_allocator();
  for (size_t pc = 0; pc < count; ++pc) {
    const KernelPrepack* hook = nullptr;
    const size_t size = call_prepack(ctx.method, pc, &hook);
    if (size == 0) continue;
    auto* data = static_cast<uint8_t*>(allocator.allocate(reserved(size)));
    TL_CHECK_OR_RETURN_ERROR(data != nullptr, MemoryAllocationFailed,
                             "method '%s': instruction %zu: the method allocator has no room "
                             "for a packed weight of %zu bytes; give it "
                             "MethodMeta::method_allocator_bytes()",
                             ctx.method_name, pc, size);
    data += (kPrepackAlignment - reinterpret_cast<uintptr_t>(data) % kPrepackAlignment) %
            kPrepackAlignment;
    const fb::KernelCall* call = ctx.method.instructions()->Get(static_cast<uint32_t>(pc))
                                     ->instr_as_KernelCall();
    // parse_values() checked the constant's bytes lie in the program.
    const int32_t id = call->args()->Get(static_cast<uint32_t>(hook->slot));
    const Tensor& weight = ctx.values[id].to_tensor();
    hook->pack(PrepackCall(&ctx.method, call->args()), weight.data(), data, size);
    // The kernel reads the copy from now on: the original's pages may go (a call the
    // copy does not fit reads them from the file again).
    ctx.program.release_constant(weight.data(), weight.nbytes());
    steps[pc].packed = data;
    ++*made;
    *bytes += size;
  }
  return Error::Ok;
}

}  // namespace

extern const PrepackPath kMethodPrepack = {&packed_bytes, &pack_steps};

}  // namespace internal
}  // namespace tailor
