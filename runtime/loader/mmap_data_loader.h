// MmapDataLoader: maps a program file so constants point straight into the page cache.
#pragma once

#include <stddef.h>

#include "runtime/loader/data_loader.h"

namespace tailor {

/// Maps the whole file privately at open() and unmaps it in the destructor. The segment
/// base is 4096-aligned in the file, so constant tensors are page-aligned views of the
/// file and cost no copy. The mapping is copy-on-write: a kernel that (wrongly) writes a
/// constant changes only this process's copy, never the file.
class MmapDataLoader final : public DataLoader {
 public:
  MmapDataLoader() = default;
  MmapDataLoader(const MmapDataLoader&) = delete;
  MmapDataLoader& operator=(const MmapDataLoader&) = delete;
  ~MmapDataLoader();

  /// Maps `path`. Returns AccessFailed (and logs the system error) when it cannot be
  /// opened or mapped.
  Error open(const char* path);

  Result<const void*> load(size_t offset, size_t size) override;
  size_t size() const override { return size_; }
  /// Drops the mapping's whole pages inside the range (madvise MADV_DONTNEED).
  void release(const void* data, size_t size) override;

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
  bool open_ = false;
};

}  // namespace tailor
