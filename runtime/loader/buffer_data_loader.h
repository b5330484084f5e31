// BufferDataLoader: a program that is already in memory (embedded or read by the app).
#pragma once

#include <stddef.h>

#include "runtime/loader/data_loader.h"

namespace tailor {

/// Serves ranges of a caller-owned buffer, which must outlive the loader and every
/// Program loaded from it. Program load needs the buffer 16-byte aligned.
class BufferDataLoader final : public DataLoader {
 public:
  BufferDataLoader(const void* data, size_t size) : data_(data), size_(size) {}

  Result<const void*> load(size_t offset, size_t size) override {
    TL_CHECK_OR_RETURN_ERROR(offset <= size_ && size <= size_ - offset, InvalidArgument,
                             "range [%zu, +%zu) is outside the %zu-byte buffer", offset, size,
                             size_);
    return Result<const void*>(static_cast<const char*>(data_) + offset);
  }

  size_t size() const override { return size_; }

 private:
  const void* data_;
  size_t size_;
};

}  // namespace tailor
