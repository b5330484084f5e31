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

 protected:
  // Not virtual: loaders are never deleted through this interface, and a virtual
  // destructor would pull operator delete into heap-free builds.
  ~DataLoader() = default;
};

}  // namespace tailor
