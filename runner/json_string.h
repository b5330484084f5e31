// JSON string literals for what the runner writes (the --json summary, Chrome traces).
#pragma once

#include <string>

namespace tailor::runner {

/// `text` as a JSON string literal: quotes and backslashes escaped, control bytes as
/// \u00XX, other bytes (UTF-8 included) as they are.
std::string json_string(const std::string& text);

}  // namespace tailor::runner
