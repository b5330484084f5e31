// Method load, part 1: builds every value and checks everything a value can get wrong.
#include <inttypes.h>
#include <new>

#include "runtime/executor/method_layout.h"

namespace tailor::internal {
namespace {

// Every load error names the method and the value; the file name is the caller's.
#define TL_VALUE_CHECK(cond, fmt, ...)                                               \
  TL_CHECK_OR_RETURN_ERROR(cond, InvalidProgram, "method '%s': value %zu: " fmt, \
                           ctx.method_name, index, ##__VA_ARGS__)

// What MemoryAllocator::allocate_array<T>(n) charges.
template <typename T>
size_t array_bytes(size_t n) {
  return MemoryAllocator::round_up(n * sizeof(T));
}

template <typename T>
T* allocate(LoadContext& ctx, size_t n) {
  MemoryAllocator* alloc = ctx.memory.method_allocator();
  T* p = alloc->allocate_array<T>(n);
  if (p == nullptr) {
    TL_LOG(Error,
           "method '%s': the method allocator is full (%zu of %zu bytes used); give it "
           "MethodMeta::method_allocator_bytes()",
           ctx.method_name, alloc->used(), alloc->capacity());
  }
  return p;
}

template <typename V>
size_t vector_size(const V* v) {
  return v != nullptr ? v->size() : 0;
}

fb::ValueKind kind_of(const LoadContext& ctx, int32_t id) {
  return ctx.method.values()->Get(static_cast<uint32_t>(id))->val_type();
}

Error parse_tensor(LoadContext& ctx, size_t index, const fb::Tensor& t) {
  // Dtype, rank, dim order.
  const int code = static_cast<int>(t.scalar_type());
  TL_VALUE_CHECK(is_valid_scalar_type(code), "tensor has invalid dtype code %d", code);
  const ScalarType dtype = static_cast<ScalarType>(code);
  const size_t dim = vector_size(t.sizes());
  TL_VALUE_CHECK(dim <= kMaxTensorDim, "tensor has %zu dims, at most %zu are supported", dim,
                 kMaxTensorDim);
  TL_VALUE_CHECK(vector_size(t.dim_order()) == dim, "dim_order has %zu entries for %zu dims",
                 vector_size(t.dim_order()), dim);
  bool seen[kMaxTensorDim] = {};
  for (size_t d = 0; d < dim; ++d) {
    const uint8_t o = t.dim_order()->Get(static_cast<uint32_t>(d));
    TL_VALUE_CHECK(o < dim && !seen[o], "dim_order is not a permutation of 0..%zu", dim - 1);
    seen[o] = true;
  }

  // Size in bytes at the planned (upper-bound) sizes, without overflow.
  size_t numel = 1;
  for (size_t d = 0; d < dim; ++d) {
    const int32_t s = t.sizes()->Get(static_cast<uint32_t>(d));
    TL_VALUE_CHECK(s >= 0, "size %" PRId32 " of dim %zu is negative", s, d);
    TL_VALUE_CHECK(s == 0 || numel <= SIZE_MAX / static_cast<size_t>(s), "tensor is too large");
    numel *= static_cast<size_t>(s);
  }
  const size_t elem = element_size(dtype);
  TL_VALUE_CHECK(numel <= SIZE_MAX / elem, "tensor is too large");
  const size_t nbytes = numel * elem;

  // Memory: a constant, a planned arena range, or nothing for an empty tensor. A mutable
  // buffer is planned, static, and has initial bytes in the segment, checked here with
  // the constants' check since Method::reset_state() copies them without checking again.
  const fb::ConstantRef* constant = t.constant();
  const fb::ConstantRef* initial = t.initial();
  const fb::Allocation* allocation = t.allocation();
  TL_VALUE_CHECK(constant == nullptr || allocation == nullptr,
                 "tensor has both constant data and an arena allocation");
  TL_VALUE_CHECK(initial == nullptr || (allocation != nullptr && !t.dynamic()),
                 "a mutable buffer (with an initial value) must be planned and static");
  const fb::ConstantRef* source = constant != nullptr ? constant : initial;
  uint8_t* data = nullptr;
  if (source != nullptr) {
    Result<const uint8_t*> bytes =
        ctx.program.constant_data(source->segment(), source->offset(), nbytes);
    TL_VALUE_CHECK(bytes.ok(),
                   "constant [segment %" PRIu32 ", offset %" PRIu64 ", %zu bytes] is outside "
                   "the constant segment",
                   source->segment(), source->offset(), nbytes);
    // A C++ bool holding any byte but 0 or 1 is undefined behaviour in every kernel that
    // reads it: the file's Bool constants and initial values are checked once, here.
    if (dtype == ScalarType::Bool) {
      for (size_t i = 0; i < nbytes; ++i) {
        TL_VALUE_CHECK((*bytes)[i] <= 1, "Bool %s holds byte %u at element %zu; a Bool is 0 "
                       "or 1", constant != nullptr ? "constant" : "initial value",
                       unsigned{(*bytes)[i]}, i);
      }
    }
    // Kernels take tensors as mutable; constants are only ever read.
    data = const_cast<uint8_t*>(*bytes);
  }
  if (allocation != nullptr) {
    const uint32_t arena = allocation->arena();
    const size_t num_arenas = vector_size(ctx.method.arena_sizes());
    TL_VALUE_CHECK(arena < num_arenas, "arena %" PRIu32 " out of range (%zu arenas)", arena,
                   num_arenas);
    const uint64_t arena_size = ctx.method.arena_sizes()->Get(arena);
    const uint64_t offset = allocation->offset();
    TL_VALUE_CHECK(offset <= arena_size && nbytes <= arena_size - offset,
                   "planned range [%" PRIu64 ", +%zu) is outside arena %" PRIu32
                   " (%" PRIu64 " bytes)",
                   offset, nbytes, arena, arena_size);
    // Method::init checked the provided arena is at least arena_size bytes.
    data = ctx.memory.arenas()[arena].data + offset;
  } else if (constant == nullptr) {
    TL_VALUE_CHECK(nbytes == 0, "tensor of %zu bytes has no memory (no constant, no allocation)",
                   nbytes);
  }
  TL_VALUE_CHECK(data == nullptr || reinterpret_cast<uintptr_t>(data) % elem == 0,
                 "tensor data is not aligned to its %zu-byte elements", elem);

  // Metadata from the method allocator; sizes are copied so dynamic tensors can resize.
  Tensor* tensor = allocate<Tensor>(ctx, 1);
  int32_t* sizes = allocate<int32_t>(ctx, dim);
  int64_t* strides = allocate<int64_t>(ctx, dim);
  if (tensor == nullptr || sizes == nullptr || strides == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  for (size_t d = 0; d < dim; ++d) sizes[d] = t.sizes()->Get(static_cast<uint32_t>(d));
  const uint8_t* dim_order = dim > 0 ? t.dim_order()->data() : nullptr;
  new (tensor) Tensor(dtype, dim, sizes, dim_order, strides, data, nbytes, t.dynamic());
  ctx.values[index] = EValue::from_tensor(tensor);
  return Error::Ok;
}

// Int, Tensor and optional-Tensor lists: items are ids of values of one kind.
Error parse_id_list(LoadContext& ctx, size_t index, EValue::Tag tag,
                    const flatbuffers::Vector<int32_t>* items) {
  const size_t n = vector_size(items);
  const bool optional = tag == EValue::Tag::OptionalTensorList;
  const fb::ValueKind want =
      tag == EValue::Tag::IntList ? fb::ValueKind_Int : fb::ValueKind_Tensor;
  for (size_t i = 0; i < n; ++i) {
    const int32_t id = items->Get(static_cast<uint32_t>(i));
    if (optional && id == -1) continue;
    TL_VALUE_CHECK(id >= 0 && static_cast<size_t>(id) < ctx.num_values,
                   "list item %zu refers to value %" PRId32 ", out of range (%zu values)", i, id,
                   ctx.num_values);
    const fb::ValueKind kind = kind_of(ctx, id);
    TL_VALUE_CHECK(kind == want || (optional && kind == fb::ValueKind_NONE),
                   "%s item %zu refers to value %" PRId32 " of kind %s", evalue_tag_name(tag),
                   i, id, fb::EnumNameValueKind(kind));
  }
  BoxedList* list = allocate<BoxedList>(ctx, 1);
  void* scratch = tag == EValue::Tag::IntList ? static_cast<void*>(allocate<int64_t>(ctx, n))
                                               : static_cast<void*>(allocate<Tensor*>(ctx, n));
  if (list == nullptr || scratch == nullptr) return Error::MemoryAllocationFailed;
  *list = BoxedList{n > 0 ? items->data() : nullptr, ctx.values, scratch, n};
  ctx.values[index] = EValue::from_list(tag, list);
  return Error::Ok;
}

Error parse_value(LoadContext& ctx, size_t index) {
  const fb::Value* v = ctx.method.values()->Get(static_cast<uint32_t>(index));
  const fb::ValueKind kind = v->val_type();
  TL_VALUE_CHECK(kind == fb::ValueKind_NONE || v->val() != nullptr, "%s value has no payload",
                 fb::EnumNameValueKind(kind));
  switch (kind) {
    case fb::ValueKind_NONE:
      ctx.values[index] = EValue();
      return Error::Ok;
    case fb::ValueKind_Int:
      ctx.values[index] = EValue(v->val_as_Int()->value());
      return Error::Ok;
    case fb::ValueKind_Double:
      ctx.values[index] = EValue(v->val_as_Double()->value());
      return Error::Ok;
    case fb::ValueKind_Bool:
      ctx.values[index] = EValue(v->val_as_Bool()->value());
      return Error::Ok;
    case fb::ValueKind_String: {
      const flatbuffers::String* s = v->val_as_String()->value();
      TL_VALUE_CHECK(s != nullptr, "String value has no text");
      ctx.values[index] = EValue::from_string(s->c_str());
      return Error::Ok;
    }
    case fb::ValueKind_Tensor:
      return parse_tensor(ctx, index, *v->val_as_Tensor());
    case fb::ValueKind_IntList:
      return parse_id_list(ctx, index, EValue::Tag::IntList, v->val_as_IntList()->items());
    case fb::ValueKind_TensorList:
      return parse_id_list(ctx, index, EValue::Tag::TensorList,
                           v->val_as_TensorList()->items());
    case fb::ValueKind_OptionalTensorList:
      return parse_id_list(ctx, index, EValue::Tag::OptionalTensorList,
                           v->val_as_OptionalTensorList()->items());
    case fb::ValueKind_DoubleList: {
      // The verifier checked the items are inside the buffer and 8-byte aligned.
      const auto* items = v->val_as_DoubleList()->items();
      BoxedList* list = allocate<BoxedList>(ctx, 1);
      if (list == nullptr) return Error::MemoryAllocationFailed;
      const size_t n = vector_size(items);
      *list = BoxedList{nullptr, ctx.values,
                        n > 0 ? const_cast<double*>(items->data()) : nullptr, n};
      ctx.values[index] = EValue::from_list(EValue::Tag::DoubleList, list);
      return Error::Ok;
    }
    case fb::ValueKind_BoolList: {
      // Copied: a file byte other than 0/1 must not become an invalid bool.
      const auto* items = v->val_as_BoolList()->items();
      const size_t n = vector_size(items);
      BoxedList* list = allocate<BoxedList>(ctx, 1);
      bool* copy = allocate<bool>(ctx, n);
      if (list == nullptr || copy == nullptr) return Error::MemoryAllocationFailed;
      for (size_t i = 0; i < n; ++i) copy[i] = items->Get(static_cast<uint32_t>(i)) != 0;
      *list = BoxedList{nullptr, ctx.values, copy, n};
      ctx.values[index] = EValue::from_list(EValue::Tag::BoolList, list);
      return Error::Ok;
    }
  }
  TL_VALUE_CHECK(false, "unknown value kind %d", static_cast<int>(kind));
  return Error::InvalidProgram;
}

}  // namespace

size_t values_allocator_bytes(const fb::Method& method) {
  const size_t n = vector_size(method.values());
  size_t total = array_bytes<EValue>(n);
  for (size_t i = 0; i < n; ++i) {
    const fb::Value* v = method.values()->Get(static_cast<uint32_t>(i));
    switch (v->val_type()) {
      case fb::ValueKind_Tensor: {
        const fb::Tensor* t = v->val_as_Tensor();
        const size_t dim = t != nullptr ? vector_size(t->sizes()) : 0;
        total += array_bytes<Tensor>(1) + array_bytes<int32_t>(dim) + array_bytes<int64_t>(dim);
        break;
      }
      case fb::ValueKind_IntList: {
        const fb::IntList* l = v->val_as_IntList();
        total += array_bytes<BoxedList>(1) +
                 array_bytes<int64_t>(l != nullptr ? vector_size(l->items()) : 0);
        break;
      }
      case fb::ValueKind_TensorList: {
        const fb::TensorList* l = v->val_as_TensorList();
        total += array_bytes<BoxedList>(1) +
                 array_bytes<Tensor*>(l != nullptr ? vector_size(l->items()) : 0);
        break;
      }
      case fb::ValueKind_OptionalTensorList: {
        const fb::OptionalTensorList* l = v->val_as_OptionalTensorList();
        total += array_bytes<BoxedList>(1) +
                 array_bytes<Tensor*>(l != nullptr ? vector_size(l->items()) : 0);
        break;
      }
      case fb::ValueKind_BoolList: {
        const fb::BoolList* l = v->val_as_BoolList();
        total += array_bytes<BoxedList>(1) +
                 array_bytes<bool>(l != nullptr ? vector_size(l->items()) : 0);
        break;
      }
      case fb::ValueKind_DoubleList:
        total += array_bytes<BoxedList>(1);
        break;
      default:
        break;
    }
  }
  return total;
}

Error parse_values(LoadContext& ctx) {
  ctx.num_values = vector_size(ctx.method.values());
  ctx.values = allocate<EValue>(ctx, ctx.num_values);
  if (ctx.values == nullptr) return Error::MemoryAllocationFailed;
  for (size_t i = 0; i < ctx.num_values; ++i) new (&ctx.values[i]) EValue();
  for (size_t i = 0; i < ctx.num_values; ++i) {
    const Error err = parse_value(ctx, i);
    if (err != Error::Ok) return err;
  }
  return Error::Ok;
}

}  // namespace tailor::internal
