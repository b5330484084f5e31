// The process's resident memory, for the llm app's --memory line: what a program costs
// once its constants are mapped (file-backed pages) beside what the process allocated
// (anonymous pages: the KV cache, the activations, the tokenizer).
#pragma once

#include <stdint.h>

namespace llm {

struct MemoryStats {
  bool known = false;       // false where /proc/self/status is not there (not Linux)
  uint64_t peak_kb = 0;     // VmHWM: the most ever resident
  uint64_t resident_kb = 0; // VmRSS: now
  uint64_t file_kb = 0;     // RssFile: mapped file pages now resident (the program's)
  uint64_t anon_kb = 0;     // RssAnon: allocated pages now resident
};

/// This process's figures now (Linux); `known` is false elsewhere.
MemoryStats read_memory_stats();

}  // namespace llm
