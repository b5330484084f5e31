// TL_LOG: printf-style logging through tl_pal_emit_log().
//
// Building with TL_LOG_ENABLED=0 removes every message string and argument evaluation
// from the binary (the arguments are only kept in an unevaluated sizeof, so variables
// used only for logging do not warn as unused).
#pragma once

#include "runtime/platform/platform.h"

#ifndef TL_LOG_ENABLED
#define TL_LOG_ENABLED 1
#endif

namespace tailor {

enum class LogLevel : char {
  Debug = TL_PAL_LOG_DEBUG,
  Info = TL_PAL_LOG_INFO,
  Error = TL_PAL_LOG_ERROR,
  Fatal = TL_PAL_LOG_FATAL,
};

namespace internal {

/// Formats `fmt` into a bounded stack buffer (longer messages are cut) and hands it to
/// tl_pal_emit_log(). A Fatal message then calls tl_pal_abort().
void log_message(LogLevel level, const char* file, int line, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));

/// Never called: lets a disabled TL_LOG type-check its arguments at no cost.
inline int log_discard(const char*, ...) { return 0; }

}  // namespace internal
}  // namespace tailor

#if TL_LOG_ENABLED
#define TL_LOG(level, fmt, ...)                                                   \
  ::tailor::internal::log_message(::tailor::LogLevel::level, __FILE__, __LINE__, \
                                  fmt, ##__VA_ARGS__)
#else
#define TL_LOG(level, fmt, ...) \
  ((void)sizeof(::tailor::internal::log_discard(fmt, ##__VA_ARGS__)))
#endif
