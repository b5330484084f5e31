// Prepacked weights: a kernel's copy of a constant argument in the layout it reads, made
// once when the method loads instead of on every call.
//
// DESIGN. The GEMM packs panels of b on every call, Winograd transforms its filters on
// every call; for a constant weight both are the same work each run. Two places could do
// it once: at export (a packed constant in the program, a new constant layout in the
// schema) or at method load (this file). Load wins here:
//  - the layout depends on the CPU the program runs on (the micro-kernels' strip width:
//    32 floats on AVX-512, 16 on AVX2, 8 on NEON), which a file written at export cannot
//    know; one program keeps running on every CPU level of its target;
//  - the program file, the schema and every other runtime stay as they are; a size-profile
//    runtime (portable kernels, no hooks) loads the same file without packing anything;
//  - nothing in the file can be a malformed packed constant: the runtime makes the copy
//    from a tensor load has checked, and the kernel checks the copy fits the call.
// The cost is load time (ResNet-18: tens of milliseconds) and memory: the packed copies
// live in the method allocator (sized by MethodMeta::method_allocator_bytes() like the
// kernel scratch), while the original stays in the mmap'd file: read once to pack it, its
// pages are then given back (DataLoader::release()), so a packed linear layer costs no
// more resident memory than its original did. BENCHMARKS.md has the figures.
//
// A kernel declares a hook in its manifest (`prepack: ns::object`, a KernelPrepack):
// for each call of it whose `slot` argument is a constant tensor, Method load asks
// bytes() (from the program alone, so MethodMeta can size the memory before load; 0:
// nothing to pack for this call), then pack() into that many bytes, 64-byte aligned. The
// kernel finds the copy through KernelContext::packed() and must check it matches the
// call (it records its source and shape) before using it; a kernel whose copy does not
// fit, or that got none, runs on the original.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor.h"

namespace tailor {

/// A tensor argument as the program declares it: dtype, planned sizes, whether its data
/// is a constant and whether it is row-major.
struct PrepackTensor {
  ScalarType dtype = ScalarType::Float;
  size_t dim = 0;
  int64_t sizes[kMaxTensorDim] = {};
  bool constant = false;
  bool contiguous = false;  // dim order 0, 1, ..., dim - 1
};

/// One kernel call's arguments read from the program at load, before its values are
/// built (Method load checked every id; the sizes are the file's, not yet checked
/// against each other: a hook checks what it relies on). Implemented by the executor.
class PrepackCall {
 public:
  PrepackCall(const void* method, const void* args) : method_(method), args_(args) {}
  /// Number of argument slots.
  size_t size() const;
  /// Slot `slot` as a tensor; false when it is not one.
  bool tensor(size_t slot, PrepackTensor* out) const;
  /// Slot `slot` as an Int (a Bool reads as 0 or 1); false when it is neither.
  bool integer(size_t slot, int64_t* out) const;
  /// Slot `slot` as an int list into out[0, max); its length, or -1 when it is not an int
  /// list or is longer than `max`.
  int64_t int_list(size_t slot, int64_t* out, size_t max) const;

 private:
  const void* method_;  // const fb::Method*
  const void* args_;    // const flatbuffers::Vector<int32_t>*
};

/// A kernel's prepack hook (see above). Both functions run at load only.
struct KernelPrepack {
  size_t slot;  // the argument holding the constant weight
  /// Bytes of the packed copy for `call`; 0 when this call reads its weight as it is.
  size_t (*bytes)(const PrepackCall& call);
  /// Writes the packed copy of `weight` (the slot's constant data, at the sizes `call`
  /// declares, checked by load to lie in the program) into `packed` (`bytes` long).
  void (*pack)(const PrepackCall& call, const void* weight, void* packed, size_t bytes);
};

/// Alignment of every packed copy: a cache line.
inline constexpr size_t kPrepackAlignment = 64;

}  // namespace tailor
