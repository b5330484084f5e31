// Which kernel each call of a method runs, read from the flatbuffer alone: Method load
// resolves its steps with it, and MethodMeta sizes the method's kernel scratch with it
// before anything is loaded, so the two cannot disagree.
#include <stdio.h>

#include "runtime/executor/method_layout.h"

namespace tailor::internal {
namespace {

// The kernel key of a call (docs/internals.md): "<Dtype>;<dim order>" per tensor
// argument, joined by '|'. False when it does not fit or an argument id is out of range
// (load rejects such a call before it looks a kernel up).
bool format_kernel_key(const fb::Method& method, const flatbuffers::Vector<int32_t>* args,
                       char* out, size_t size) {
  KeyWriter w{out, size, 0, false};
  out[0] = '\0';
  const auto* values = method.values();
  const size_t num_values = values != nullptr ? values->size() : 0;
  bool first = true;
  for (uint32_t i = 0; args != nullptr && i < args->size(); ++i) {
    const int32_t id = args->Get(i);
    if (id < 0 || static_cast<size_t>(id) >= num_values) return false;
    const fb::Tensor* t = values->Get(static_cast<uint32_t>(id))->val_as_Tensor();
    if (t == nullptr) continue;
    w.append(first ? "" : "|");
    w.append(scalar_type_name(static_cast<ScalarType>(t->scalar_type())));
    w.append(";");
    const auto* order = t->dim_order();
    for (uint32_t d = 0; order != nullptr && d < order->size(); ++d) {
      char digits[8];
      snprintf(digits, sizeof(digits), d == 0 ? "%u" : ",%u", unsigned{order->Get(d)});
      w.append(digits);
    }
    first = false;
  }
  return !w.truncated;
}

}  // namespace

const KernelEntry* find_kernel(const fb::Method& method, const char* op_name,
                               const flatbuffers::Vector<int32_t>* args, char* key,
                               size_t key_size, bool* key_ok) {
  *key_ok = format_kernel_key(method, args, key, key_size);
  const KernelEntry* entry = *key_ok ? registry_find_entry(op_name, key) : nullptr;
  return entry != nullptr ? entry : registry_find_entry(op_name, "");
}

size_t method_scratch_bytes(const fb::Method& method) {
  const auto* instructions = method.instructions();
  const auto* operators = method.operators();
  size_t most = 0;
  for (uint32_t i = 0; instructions != nullptr && i < instructions->size(); ++i) {
    const fb::KernelCall* call = instructions->Get(i)->instr_as_KernelCall();
    if (call == nullptr || operators == nullptr || call->op_index() >= operators->size()) {
      continue;  // not a kernel call, or one load rejects
    }
    char op_name[kMaxOperatorName];
    char key[kMaxKernelKey];
    bool key_ok = false;
    const KernelEntry* entry =
        format_operator_name(*operators->Get(call->op_index()), op_name, sizeof(op_name))
            ? find_kernel(method, op_name, call->args(), key, sizeof(key), &key_ok)
            : nullptr;
    if (entry != nullptr && entry->scratch_bytes > most) most = entry->scratch_bytes;
  }
  return most;
}

size_t scratch_allocator_bytes(const fb::Method& method, uint32_t threads) {
  const size_t bytes = method_scratch_bytes(method);
  if (bytes == 0) return 0;
  const size_t slices = threads > 0 ? threads : 1;
  return MemoryAllocator::round_up(slices * sizeof(KernelScratch)) +
         MemoryAllocator::round_up(slices * bytes + KernelScratch::kAlignment);
}

}  // namespace tailor::internal
