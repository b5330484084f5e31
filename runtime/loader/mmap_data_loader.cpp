#include "runtime/loader/mmap_data_loader.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tailor {

MmapDataLoader::~MmapDataLoader() {
  if (data_ != nullptr) munmap(data_, size_);
}

Error MmapDataLoader::open(const char* path) {
  TL_CHECK_OR_RETURN_ERROR(!open_, InvalidState, "%s: loader is already open", path);
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  TL_CHECK_OR_RETURN_ERROR(fd >= 0, AccessFailed, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    TL_LOG(Error, "%s: not a regular file", path);
    return Error::AccessFailed;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  // mmap of 0 bytes fails; an empty file is simply an empty range.
  void* data = nullptr;
  if (size > 0) {
    data = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED) {
      const int err = errno;
      close(fd);
      TL_LOG(Error, "%s: cannot map: %s", path, strerror(err));
      return Error::AccessFailed;
    }
  }
  close(fd);
  data_ = data;
  size_ = size;
  open_ = true;
  return Error::Ok;
}

Result<const void*> MmapDataLoader::load(size_t offset, size_t size) {
  TL_CHECK_OR_RETURN_ERROR(open_, InvalidState, "mmap loader is not open");
  TL_CHECK_OR_RETURN_ERROR(offset <= size_ && size <= size_ - offset, InvalidArgument,
                           "range [%zu, +%zu) is outside the %zu-byte file", offset, size,
                           size_);
  // An empty file has no mapping; hand out a valid, never-dereferenced address.
  static const char kEmpty[1] = {0};
  if (data_ == nullptr) return Result<const void*>(kEmpty);
  return Result<const void*>(static_cast<const char*>(data_) + offset);
}

void MmapDataLoader::release(const void* data, size_t size) {
  const auto begin = reinterpret_cast<uintptr_t>(data);
  const auto base = reinterpret_cast<uintptr_t>(data_);
  if (data_ == nullptr || begin < base || begin - base > size_ || size > size_ - (begin - base)) {
    return;
  }
  // Only pages wholly inside: their neighbours may hold other constants still read.
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t first = (begin + page - 1) / page * page;
  const uintptr_t last = (begin + size) / page * page;
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

}  // namespace tailor
