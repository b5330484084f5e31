// The kernel table: the build generates it (gen/register_kernels.cpp); Method load
// looks each kernel call up here once.
#pragma once

#include <stddef.h>

#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/kernel/kernel_context.h"
#include "runtime/kernel/prepack.h"

namespace tailor {

/// A boxed kernel: reads its arguments from `args` (value pointers in schema order, see
/// docs/internals.md) and reports failure through `ctx`.
using OpFunction = void (*)(KernelContext& ctx, EValue** args);

/// One row of the kernel table: operator "aten::add.out", kernel key
/// "Float;0,1|Float;0,1|Float;0,1" or "" for any dtype/dim order, and the function.
///
/// `args` (optional, an extension of docs/internals.md) spells the kind of every
/// argument slot the function reads, so Method load can reject a call with too few
/// arguments or a value of the wrong kind instead of letting the kernel read past its
/// arguments: one token per slot, T Tensor, L Tensor[], O Tensor?[], S Scalar, i int
/// (also SymInt, ScalarType, Layout, MemoryFormat, Device), I int[], f float,
/// F float[], b bool, B bool[], s str; a leading '?' also accepts None ("?T" is
/// Tensor?), and a leading '!' marks a slot the kernel writes (Tensor(a!), Tensor(a!)[]),
/// which must not hold a constant tensor ("!?T" when both). add.out is "TTS!T".
/// nullptr leaves the call unchecked.
///
/// `dtypes` (bit 1u << ScalarType code) are the dtypes the build compiled the kernel for
/// (its operator's row of gen/selected_dtypes.h): Method load rejects a call passing a
/// tensor of any other dtype (NotSupported, naming the operator and the dtype).
///
/// `scratch_bytes` is what the kernel takes from its thread's scratch slice (its
/// manifest's scratch_bytes, runtime/kernel/kernel_scratch.h): a method's slices are as
/// large as the most any kernel it calls takes.
///
/// `prepack` (its manifest's prepack:, runtime/kernel/prepack.h) packs a constant weight
/// of each call once at load; nullptr: the kernel reads its weights as they are.
struct KernelEntry {
  const char* op;
  const char* key;
  OpFunction fn;
  const char* args = nullptr;
  uint32_t dtypes = 0xffffffffu;
  uint32_t scratch_bytes = 0;
  const KernelPrepack* prepack = nullptr;
};

namespace internal {
/// Method load's prepacking (runtime/executor/method_prepack.cpp), defined there.
struct PrepackPath;
extern const PrepackPath kMethodPrepack;
}  // namespace internal

namespace gen {
/// Defined by the generated gen/register_kernels.cpp, sorted by (op, key) with strcmp.
extern const KernelEntry kKernels[];
extern const size_t kNumKernels;
/// &internal::kMethodPrepack when a kernel of the table has a prepack hook, else nullptr:
/// only then does a runtime link the prepack path (the size profile's never does).
extern const internal::PrepackPath* const kPrepackPath;
}  // namespace gen

/// The row registered for exactly (`op`, `key`), found by binary search; the key ""
/// names a kernel for any dtypes. nullptr (not logged: the caller knows the context)
/// when the table has no such row.
const KernelEntry* registry_find_entry(const char* op, const char* key);

/// True when the table has any kernel for `op`, whatever its key.
bool registry_has_operator(const char* op);

}  // namespace tailor
