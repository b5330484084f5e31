// FileDataLoader: reads a whole program file into heap memory (not core: uses malloc).
#pragma once

#include <stddef.h>

#include "runtime/loader/data_loader.h"

namespace tailor {

/// Reads the file once, at open(), into one 64-byte-aligned heap buffer that lives as
/// long as the loader. Use it where mmap is unavailable; MmapDataLoader avoids the copy.
class FileDataLoader final : public DataLoader {
 public:
  FileDataLoader() = default;
  FileDataLoader(const FileDataLoader&) = delete;
  FileDataLoader& operator=(const FileDataLoader&) = delete;
  ~FileDataLoader();

  /// Reads `path`. Returns AccessFailed (and logs the system error) when the file cannot
  /// be opened or read, MemoryAllocationFailed when it does not fit in memory.
  Error open(const char* path);

  Result<const void*> load(size_t offset, size_t size) override;
  size_t size() const override { return size_; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace tailor
