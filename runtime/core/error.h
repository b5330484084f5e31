// Error codes and the checking macros used at every fallible boundary.
#pragma once

#include <stdint.h>

#include "runtime/platform/log.h"

namespace tailor {

/// Outcome of a fallible call. Ranges: 0x00 system, 0x10 program, 0x20 resource,
/// 0x30 backend.
enum class Error : uint32_t {
  /// Success.
  Ok = 0x00,
  /// A runtime invariant broke: a bug in the runtime, not in the program.
  Internal = 0x01,
  /// The object is not ready for this call (e.g. a method that failed to load).
  InvalidState = 0x02,
  /// Execution ran past the last instruction.
  EndOfMethod = 0x03,

  /// The program file is malformed or inconsistent.
  InvalidProgram = 0x10,
  /// An argument (an input, an index, a size) does not fit what the callee expects.
  InvalidArgument = 0x11,
  /// No kernel in this runtime implements an operator the program calls.
  OperatorMissing = 0x12,
  /// The program uses a feature this runtime was built without.
  NotSupported = 0x13,
  /// A named item (a method, an input) does not exist.
  NotFound = 0x14,

  /// A memory arena or allocator is too small.
  MemoryAllocationFailed = 0x20,
  /// A file or buffer could not be read.
  AccessFailed = 0x21,
  /// The program needs more than a LoadLimits bound allows (memory, work per run).
  LimitExceeded = 0x22,

  /// A backend cannot run the delegated payload it was given.
  DelegateInvalidCompatibility = 0x30,
  /// A backend ran out of memory.
  DelegateMemoryAllocationFailed = 0x31,
  /// A delegate handle is invalid.
  DelegateInvalidHandle = 0x32,
};

/// The enumerator name of `error` ("InvalidProgram"), or "Unknown" for other values.
/// The string is static.
const char* error_name(Error error);

}  // namespace tailor

/// Logs `fmt` and returns Error::`error` from the enclosing function when `cond` is false.
#define TL_CHECK_OR_RETURN_ERROR(cond, error, fmt, ...) \
  do {                                                  \
    if (!(cond)) {                                      \
      TL_LOG(Error, fmt, ##__VA_ARGS__);                \
      return ::tailor::Error::error;                    \
    }                                                   \
  } while (0)

/// Evaluates `expr` (an Error) once; when it is not Ok, logs `fmt` and returns it.
#define TL_CHECK_OK_OR_RETURN_ERROR(expr, fmt, ...)       \
  do {                                                    \
    const ::tailor::Error tl_check_error_ = (expr);       \
    if (tl_check_error_ != ::tailor::Error::Ok) {         \
      TL_LOG(Error, fmt, ##__VA_ARGS__);                  \
      return tl_check_error_;                             \
    }                                                     \
  } while (0)
