// KernelScratch: temporary memory for kernels, in place of large stack buffers.
//
// A packing panel of 64 KB on the stack overflows the small thread stacks of Android
// and embedded systems, so kernels take such buffers from a scratch slice instead. The
// Method reserves the slices in its method allocator at load (MethodMeta::
// method_allocator_bytes(threads)): one per thread the method may run on, each
// MethodMeta::kernel_scratch_bytes() long, the largest `scratch_bytes` any kernel the
// method calls declares in its manifest (KernelEntry::scratch_bytes): an MLP's method
// reserves the GEMM's 70 KB, also in a runtime whose convolution takes 4 MB. A kernel
// gets its thread's slice from KernelContext::scratch() or from its parallel_for() task,
// allocates from it for the length of its call, and finds it empty again on the next
// call.
#pragma once

#include <stddef.h>
#include <stdint.h>

// What a kernel logs when its scratch slice was too small (the Error is
// MemoryAllocationFailed): the manifest under-declared what the kernel takes.
#define TL_SCRATCH_TOO_SMALL \
  "%s: the kernel scratch slice is too small; raise the kernel's scratch_bytes in its manifest"

namespace tailor {

/// A bump allocator over one slice of scratch memory, used by one thread at a time.
class KernelScratch final {
 public:
  static constexpr size_t kAlignment = 64;  // a cache line: SIMD loads never straddle

  KernelScratch() = default;
  KernelScratch(uint8_t* data, size_t size) : data_(data), size_(size) {}

  /// `count` T's, 64-byte aligned, valid until reset() (at the end of the kernel call or
  /// of the parallel task); nullptr when the slice has not that much left, which the
  /// kernel reports as MemoryAllocationFailed.
  template <typename T>
  T* allocate(size_t count) {
    const size_t start = (used_ + kAlignment - 1) / kAlignment * kAlignment;
    if (start > size_ || count > (size_ - start) / sizeof(T)) return nullptr;
    used_ = start + count * sizeof(T);
    return reinterpret_cast<T*>(data_ + start);
  }
  /// Bytes allocated so far; reset(mark) frees everything allocated after it.
  size_t mark() const { return used_; }
  void reset(size_t mark = 0) { used_ = mark; }
  size_t size() const { return size_; }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t used_ = 0;
};

/// Frees what a scope allocated from `scratch` when it ends: a task of a parallel_for()
/// may run on the calling thread, whose slice holds the caller's buffers below it.
class ScratchScope final {
 public:
  explicit ScratchScope(KernelScratch& scratch) : scratch_(scratch), mark_(scratch.mark()) {}
  ~ScratchScope() { scratch_.reset(mark_); }
  ScratchScope(const ScratchScope&) = delete;
  ScratchScope& operator=(const ScratchScope&) = delete;

 private:
  KernelScratch& scratch_;
  size_t mark_;
};

}  // namespace tailor
