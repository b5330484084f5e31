// Reading a whole file (or standard input), with the error naming it, and its lines.
#pragma once

#include <stdio.h>

#include <string>
#include <vector>

#include "apps/llm/tokenizer/status.h"

namespace llm {

Status read_whole_file(const std::string& path, std::string* out);
/// Everything left in `stream` (standard input); `name` goes into the error.
Status read_stream(FILE* stream, const std::string& name, std::string* out);
/// The lines of `text` (line k + 1 at index k), without their "\n" or "\r\n".
std::vector<std::string> split_lines(const std::string& text);
/// The path of `name` in the folder of `path` ("dir/vocab.json" -> "dir/merges.txt").
std::string sibling_path(const std::string& path, const std::string& name);

}  // namespace llm
