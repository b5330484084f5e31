// Reading a whole file, with the error naming it.
#pragma once

#include <string>

#include "apps/llm/tokenizer/status.h"

namespace llm {

Status read_whole_file(const std::string& path, std::string* out);

}  // namespace llm
