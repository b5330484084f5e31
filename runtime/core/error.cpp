#include "runtime/core/error.h"

namespace tailor {

const char* error_name(Error error) {
  switch (error) {
    case Error::Ok: return "Ok";
    case Error::Internal: return "Internal";
    case Error::InvalidState: return "InvalidState";
    case Error::EndOfMethod: return "EndOfMethod";
    case Error::InvalidProgram: return "InvalidProgram";
    case Error::InvalidArgument: return "InvalidArgument";
    case Error::OperatorMissing: return "OperatorMissing";
    case Error::NotSupported: return "NotSupported";
    case Error::NotFound: return "NotFound";
    case Error::MemoryAllocationFailed: return "MemoryAllocationFailed";
    case Error::AccessFailed: return "AccessFailed";
    case Error::LimitExceeded: return "LimitExceeded";
    case Error::DelegateInvalidCompatibility: return "DelegateInvalidCompatibility";
    case Error::DelegateMemoryAllocationFailed: return "DelegateMemoryAllocationFailed";
    case Error::DelegateInvalidHandle: return "DelegateInvalidHandle";
  }
  return "Unknown";
}

}  // namespace tailor
