#include "runtime/loader/file_data_loader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

namespace tailor {

// Matches the constant alignment inside the segment, so constants stay aligned.
constexpr size_t kBufferAlignment = 64;

FileDataLoader::~FileDataLoader() { free(data_); }

Error FileDataLoader::open(const char* path) {
  TL_CHECK_OR_RETURN_ERROR(data_ == nullptr, InvalidState, "%s: loader is already open", path);
  FILE* file = fopen(path, "rb");
  TL_CHECK_OR_RETURN_ERROR(file != nullptr, AccessFailed, "%s: cannot open: %s", path,
                           strerror(errno));
  struct stat st;
  if (fstat(fileno(file), &st) != 0 || !S_ISREG(st.st_mode)) {
    fclose(file);
    TL_LOG(Error, "%s: not a regular file", path);
    return Error::AccessFailed;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  void* data = nullptr;
  // posix_memalign with size 0 may return nullptr; always ask for at least one block.
  if (posix_memalign(&data, kBufferAlignment, size == 0 ? kBufferAlignment : size) != 0) {
    fclose(file);
    TL_LOG(Error, "%s: cannot allocate %zu bytes", path, size);
    return Error::MemoryAllocationFailed;
  }
  const size_t got = size == 0 ? 0 : fread(data, 1, size, file);
  fclose(file);
  if (got != size) {
    free(data);
    TL_LOG(Error, "%s: read %zu of %zu bytes", path, got, size);
    return Error::AccessFailed;
  }
  data_ = data;
  size_ = size;
  return Error::Ok;
}

Result<const void*> FileDataLoader::load(size_t offset, size_t size) {
  TL_CHECK_OR_RETURN_ERROR(data_ != nullptr, InvalidState, "file loader is not open");
  TL_CHECK_OR_RETURN_ERROR(offset <= size_ && size <= size_ - offset, InvalidArgument,
                           "range [%zu, +%zu) is outside the %zu-byte file", offset, size,
                           size_);
  return Result<const void*>(static_cast<const char*>(data_) + offset);
}

}  // namespace tailor
