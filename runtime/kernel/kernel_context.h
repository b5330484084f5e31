// KernelContext: what a kernel gets besides its arguments; how it reports failure.
#pragma once

#include "runtime/core/error.h"

namespace tailor {

/// Passed to every kernel call. A kernel that cannot run logs why, calls fail() and
/// returns; execute() then stops and returns that Error.
class KernelContext final {
 public:
  /// Marks the current kernel call as failed with `error` (not Ok).
  void fail(Error error) { failure_ = error; }
  /// Ok unless a kernel called fail() since the last reset().
  Error failure_state() const { return failure_; }
  void reset() { failure_ = Error::Ok; }

 private:
  Error failure_ = Error::Ok;
};

}  // namespace tailor
