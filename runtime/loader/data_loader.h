// DataLoader: where a program's bytes come from (a buffer, a file, a mapping).
#pragma once

#include <stddef.h>

#include "runtime/core/result.h"

namespace tailor {

/// Gives read access to byte ranges of one program file. The core runtime reads the
/// file only through this interface.
class DataLoader {
 public:

  /// Returns a pointer to bytes [offset, offset + size) of the file. The pointer stays
  /// valid, and the bytes unchanged, for the loader's lifetime. Returns InvalidArgument
  /// when the range is not inside the file and AccessFailed when it cannot be read.
  virtual Result<const void*> load(size_t offset, size_t size) = 0;

  /// Total size of the file in bytes.
  virtual size_t size() const = 0;

  /// A hint that bytes [data, data + size) of a range load() returned will not be read
  /// soon: a loader mapping a file may drop their pages (read from the file again, the
  /// same bytes, if they are). Method load gives it each constant it packed a copy of
  /// (runtime/kernel/prepack.h), so the original does not stay resident beside the copy.
  /// The default keeps everything.
  virtual void release(const void* data, size_t size) {
    (void)data;
    (void)size;
  }

 protected:
  // Not virtual: loaders are never deleted through this interface, and a virtual
  // destructor would pull operator delete into heap-free builds.
  ~DataLoader() = default;
};

}  // namespace tailor
