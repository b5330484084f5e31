// llm: generates text with a decoder program built by Tailor (scons model=nanogpt, or a
// manifest's llm: checkpoint), tokenizing with the checkpoint's own tokenizer.
//
//   llm PROGRAM [--tokenizer FILE] [--prompt TEXT | --prompt-ids IDS] [options]
//   llm --tokenizer FILE (--encode TEXT | --decode IDS)              (tokenizer only)
//   llm PROGRAM --bench 1,16,64 [--repeat N]                         (forward latency)
//   llm PROGRAM --decode-bench 16,64 [--repeat N]                    (decode latency)
//
// Text streams to stdout token by token; statistics go to stderr.
// Exit codes: 0 ok, 1 error (files, program, prompt), 2 usage.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <vector>

#include "apps/llm/generator.h"
#include "apps/llm/memory_stats.h"
#include "apps/llm/sampler.h"
#include "apps/llm/tokenizer/file_reader.h"
#include "apps/llm/tokenizer/id_text.h"
#include "apps/llm/tokenizer/stream_decoder.h"
#include "apps/llm/tokenizer/tokenizer.h"
#include "apps/llm/tokenizer_lookup.h"
#include "runner/build_defaults.h"
#include "runtime/kernel/thread_pool.h"
#include "runtime/platform/platform.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

const char kUsage[] =
    "usage: llm PROGRAM [--tokenizer FILE] [--prompt TEXT | --prompt-ids IDS] [--max-tokens N]\n"
    "           [--greedy] [--temperature T] [--top-k K] [--top-p P] [--repetition-penalty R]\n"
    "           [--seed S] [--threads N] [--print-ids] [--memory]\n"
    "       llm --tokenizer FILE (--encode TEXT | --decode IDS)\n"
    "       llm PROGRAM --bench T[,T...] [--repeat N] [--threads N]\n"
    "       llm PROGRAM --decode-bench C[,C...] [--repeat N] [--threads N]\n"
    "  --tokenizer FILE      tokenizer.json, a tiktoken tokenizer.model, or GPT-2's vocab.json\n"
    "                        (merges.txt beside it); default: the first of these beside\n"
    "                        PROGRAM named <program>.<name> (as the build copies them),\n"
    "                        else <name>\n"
    "  --merges FILE         GPT-2's merges.txt (default: X.vocab.json's X.merges.txt, else\n"
    "                        merges.txt beside it)\n"
    "  --prompt TEXT         text to continue, encoded with the tokenizer's special tokens\n"
    "                        (bos, ...); without it (or --prompt-ids) stdin is read, one\n"
    "                        trailing newline dropped. Empty: start from the bos token. It\n"
    "                        must fit the program's context (get_max_seq_len). A program with\n"
    "                        a KV cache prefills it in one call, then decodes one token a\n"
    "                        call; when its context is full it keeps the last half and\n"
    "                        prefills that again (without a cache the window slides).\n"
    "  --prompt-ids IDS      start from these token ids (\"1 2 3\") instead of text; without\n"
    "                        a tokenizer (none beside PROGRAM) only ids come out\n"
    "  --max-tokens N        tokens to generate (default 100); stops early at an eos id\n"
    "                        (the program's get_eos_ids, else the tokenizer's eos)\n"
    "  --temperature T       softmax temperature (default 0.8; 0 = greedy)\n"
    "  --top-k K             sample among the K most likely tokens (default 40; 0 = all)\n"
    "  --top-p P             ... and among the fewest whose probability reaches P (default 1)\n"
    "  --repetition-penalty R  > 1 makes tokens already in the context less likely (default 1)\n"
    "  --seed S              sampling seed (default 1): the same seed gives the same text\n"
    "  --greedy              always take the most likely token\n"
    "  --print-ids           after the text, print 'generated ids: IDS' (an eos included)\n"
    "  --memory              after the stats, print the peak resident memory (Linux) next\n"
    "                        to the program's size and the memory planned for the method\n"
    "  --encode TEXT         print the token ids of TEXT (no special tokens added) on one\n"
    "                        line; '-' reads the text from stdin\n"
    "  --decode IDS          write the text of the token ids (no newline added); '-' reads\n"
    "                        them from stdin\n"
    "  --bench T[,T...]      time forward passes on T tokens: median and min over --repeat N\n"
    "                        runs (default 20) after 2 warm-up runs\n"
    "  --decode-bench C[,C...]  time one decode step at context C (with a KV cache: one\n"
    "                        token after C-1 cached; without: a forward pass on C tokens)\n"
    "  --threads N           threads the kernels may use; 0: every core (default: the\n"
    "                        build's `threads:`, else 1: no thread is created)\n"
    "Text streams to stdout as it is generated; statistics go to stderr.\n"
    "Exit codes: 0 ok, 1 error (files, program, prompt), 2 usage.\n";

struct Options {
  std::string program, tokenizer, merges, prompt, prompt_ids, encode, decode;
  bool has_prompt = false, has_prompt_ids = false, has_encode = false, has_decode = false;
  size_t max_tokens = 100;
  llm::SamplerOptions sampler;
  bool print_ids = false;
  bool memory = false;               // print the resident memory after generating
  std::vector<size_t> bench;         // window lengths to time
  std::vector<size_t> decode_bench;  // contexts to time a decode step at
  size_t repeat = 20;
  size_t threads = 1;
};

int usage_error(const std::string& message) {
  fprintf(stderr, "llm: %s\n%s", message.c_str(), kUsage);
  return kExitUsage;
}

int failure(const std::string& message) {
  fprintf(stderr, "llm: %s\n", message.c_str());
  return kExitFailure;
}

bool parse_double(const char* text, double low, double high, double* out) {
  char* end = nullptr;
  *out = strtod(text, &end);
  return end != text && *end == '\0' && *out >= low && *out <= high;
}

bool parse_count(const char* text, uint64_t* out) {
  char* end = nullptr;
  if (text[0] < '0' || text[0] > '9') return false;
  *out = strtoull(text, &end, 10);
  return *end == '\0';
}

// "1,16,64" into `counts`; false when it is not such a list.
bool parse_count_list(const char* value, std::vector<size_t>* counts) {
  for (const char* p = value; *p != '\0';) {
    char* end = nullptr;
    const unsigned long long t = *p >= '0' && *p <= '9' ? strtoull(p, &end, 10) : 0;
    if (t == 0 || (*end != ',' && *end != '\0')) return false;
    counts->push_back(t);
    p = *end == ',' ? end + 1 : end;
  }
  return !counts->empty();
}

// One option that takes a value; -1 when it is fine, else the exit code.
int parse_value(const std::string& arg, const char* value, Options* o) {
  double number = 0;
  uint64_t count = 0;
  std::string* text = arg == "--tokenizer"    ? &o->tokenizer
                      : arg == "--merges"     ? &o->merges
                      : arg == "--prompt"     ? &o->prompt
                      : arg == "--prompt-ids" ? &o->prompt_ids
                      : arg == "--encode"     ? &o->encode
                      : arg == "--decode"     ? &o->decode
                                              : nullptr;
  if (text != nullptr) {
    *text = value;
    o->has_prompt |= arg == "--prompt";
    o->has_prompt_ids |= arg == "--prompt-ids";
    o->has_encode |= arg == "--encode";
    o->has_decode |= arg == "--decode";
  } else if (arg == "--bench" || arg == "--decode-bench") {
    if (!parse_count_list(value, arg == "--bench" ? &o->bench : &o->decode_bench)) {
      return usage_error(arg + ": '" + value + "' is not a list of token counts like 1,16,64");
    }
  } else if (arg == "--max-tokens" || arg == "--top-k" || arg == "--seed" ||
             arg == "--repeat" || arg == "--threads") {
    if (!parse_count(value, &count)) {
      return usage_error(arg + ": '" + value + "' is not a non-negative integer");
    }
    if (arg == "--threads" && count > static_cast<uint64_t>(tailor::ThreadPool::kMaxThreads)) {
      return usage_error("--threads: '" + std::string(value) + "' is not from 0 (every core) to " +
                         std::to_string(tailor::ThreadPool::kMaxThreads));
    }
    if (arg == "--threads") {
      o->threads =
          static_cast<size_t>(tailor::ThreadPool::resolve_threads(static_cast<int>(count)));
    }
    if (arg == "--repeat") o->repeat = count;
    if (arg == "--max-tokens") o->max_tokens = count;
    if (arg == "--top-k") o->sampler.top_k = count;
    if (arg == "--seed") o->sampler.seed = count;
  } else if (arg == "--temperature" || arg == "--top-p" || arg == "--repetition-penalty") {
    const double high = arg == "--top-p" ? 1.0 : 100.0;
    const double low = arg == "--repetition-penalty" ? 1e-3 : 0.0;
    if (!parse_double(value, low, high, &number)) {
      return usage_error(arg + ": '" + value + "' is not a number in [" + std::to_string(low) +
                         ", " + std::to_string(high) + "]");
    }
    float* target = arg == "--temperature" ? &o->sampler.temperature
                    : arg == "--top-p"     ? &o->sampler.top_p
                                           : &o->sampler.repetition_penalty;
    *target = static_cast<float>(number);
  } else {
    return usage_error("unknown option " + arg);
  }
  return -1;
}

// Returns -1 when the arguments are fine, else the exit code to stop with.
int parse_args(int argc, char** argv, Options* o) {
  o->sampler.temperature = 0.8f;
  o->sampler.top_k = 40;
  o->sampler.seed = 1;
  o->threads = static_cast<size_t>(
      tailor::ThreadPool::resolve_threads(tailor::build_default_threads()));
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      fputs(kUsage, stdout);
      return kExitOk;
    }
    bool* flag = arg == "--greedy"      ? &o->sampler.greedy
                 : arg == "--print-ids" ? &o->print_ids
                 : arg == "--memory"    ? &o->memory
                                        : nullptr;
    if (flag != nullptr) {
      *flag = true;
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-' && arg[1] == '-') {
      if (i + 1 >= argc) return usage_error(arg + " needs a value");
      const int stop = parse_value(arg, argv[++i], o);
      if (stop >= 0) return stop;
      continue;
    }
    if (!o->program.empty()) return usage_error("unexpected argument '" + arg + "'");
    o->program = arg;
  }
  if (!o->bench.empty() || !o->decode_bench.empty()) {
    if (o->program.empty()) return usage_error("--bench needs a PROGRAM");
    if (o->repeat == 0) return usage_error("--repeat must be at least 1");
    return -1;
  }
  if (o->has_encode && o->has_decode) return usage_error("--encode and --decode exclude each other");
  if (o->has_prompt && o->has_prompt_ids) {
    return usage_error("--prompt and --prompt-ids exclude each other");
  }
  if (o->has_encode || o->has_decode) {
    if (o->tokenizer.empty() && o->program.empty()) {
      return usage_error("--encode and --decode need --tokenizer FILE (or a PROGRAM beside one)");
    }
    return -1;
  }
  if (o->program.empty()) return usage_error("no PROGRAM given");
  return -1;
}

void write_bytes(const std::string& bytes) {
  fwrite(bytes.data(), 1, bytes.size(), stdout);
  fflush(stdout);
}

// Loads --tokenizer (with --merges) or the tokenizer beside PROGRAM; `path` = which ("":
// there is none beside PROGRAM).
bool load_tokenizer(const Options& o, llm::Tokenizer* tokenizer, std::string* path,
                    std::string* error) {
  *path = o.tokenizer.empty() ? llm::find_tokenizer_beside(o.program, error) : o.tokenizer;
  if (path->empty()) return false;
  const llm::Status s = o.merges.empty() ? tokenizer->load(*path)
                                         : tokenizer->load_vocab_merges(*path, o.merges);
  if (!s.is_ok()) *error = s.message();
  return s.is_ok();
}

// The text of an option, or of stdin for "-" (`name` goes into the error).
bool option_text(const std::string& value, std::string* out, std::string* error) {
  if (value != "-") {
    *out = value;
    return true;
  }
  const llm::Status s = llm::read_stream(stdin, "standard input", out);
  if (!s.is_ok()) *error = s.message();
  return s.is_ok();
}

int run_tokenizer_only(const Options& o, const llm::Tokenizer& tokenizer) {
  std::string input, error, bad;
  if (!option_text(o.has_encode ? o.encode : o.decode, &input, &error)) return failure(error);
  if (o.has_encode) {
    write_bytes(llm::format_ids(tokenizer.encode(input)) + "\n");
    return kExitOk;
  }
  std::vector<int32_t> ids;
  if (!llm::parse_ids(input, &ids, &bad)) {
    return failure("--decode: '" + bad + "' is not a token id");
  }
  for (int32_t id : ids) {
    if (!tokenizer.has_id(id)) {
      return failure("--decode: token id " + std::to_string(id) + " is not in the vocabulary");
    }
  }
  write_bytes(tokenizer.decode(ids));
  return kExitOk;
}

// Loads the program for `threads` and gives its kernels a pool of them.
bool load_model(const Options& o, llm::Model* model, tailor::ThreadPool* pool,
                std::string* error) {
  if (!model->load(o.program, error, static_cast<uint32_t>(o.threads))) return false;
  if (model->set_parallel(pool->parallel()) != tailor::Error::Ok) {
    *error = o.program + ": cannot use " + std::to_string(o.threads) + " threads";
    return false;
  }
  return true;
}

int run_bench(const Options& o) {
  llm::Model model;
  tailor::ThreadPool pool(static_cast<int>(o.threads));
  std::string error;
  if (!load_model(o, &model, &pool, &error)) return failure(error);
  for (size_t pass = 0; pass < 2; ++pass) {
    for (size_t count : pass == 0 ? o.bench : o.decode_bench) {
      if (count > model.block_size()) {
        return failure(std::string(pass == 0 ? "--bench " : "--decode-bench ") +
                       std::to_string(count) + ": " + o.program + " takes at most " +
                       std::to_string(model.block_size()) + " tokens");
      }
      std::vector<double> ms;
      const bool ok = pass == 0 ? llm::time_forward(model, count, o.repeat, &ms, &error)
                                : llm::time_decode(model, count, o.repeat, &ms, &error);
      if (!ok) return failure(error);
      std::sort(ms.begin(), ms.end());
      printf("%s=%zu: median %.3f ms, min %.3f ms (%zu runs)\n",
             pass == 0 ? "forward T" : "decode context", count, ms[ms.size() / 2], ms[0],
             ms.size());
    }
  }
  return kExitOk;
}

// The prompt's ids (--prompt-ids, or the text encoded with special tokens) and the text
// to show for it. False with `error` set. `tokenizer` is null only with --prompt-ids.
bool prompt_ids(const Options& o, const llm::Tokenizer* tokenizer, std::vector<int32_t>* ids,
                std::string* shown, std::string* error) {
  if (o.has_prompt_ids) {
    std::string bad;
    if (!llm::parse_ids(o.prompt_ids, ids, &bad)) {
      *error = "--prompt-ids: '" + bad + "' is not a token id";
      return false;
    }
    *shown = tokenizer != nullptr ? tokenizer->decode(*ids) : std::string();
    return true;
  }
  std::string text = o.prompt;
  if (!o.has_prompt) {
    if (!option_text("-", &text, error)) return false;
    // `echo TEXT | llm` ends the prompt with a newline the user did not mean.
    if (!text.empty() && text.back() == '\n') text.pop_back();
  }
  *ids = tokenizer->encode(text, true);
  *shown = text;
  return true;
}

// Where generation starts: the prompt, or the bos token for an empty one; checked
// against the program. False with `error` set.
bool check_prompt(const Options& o, const llm::Model& model, const llm::Tokenizer* tokenizer,
                  const std::string& tokenizer_path, std::vector<int32_t>* ids,
                  std::string* error) {
  // What the ids came from, for the messages.
  const std::string source = tokenizer_path.empty() ? "--prompt-ids" : tokenizer_path;
  if (ids->empty()) {
    const int64_t bos = model.bos_id() >= 0 ? model.bos_id()
                        : tokenizer != nullptr ? tokenizer->bos_id()
                                               : -1;
    if (bos < 0) {
      *error = "the prompt is empty and neither " + o.program + " (get_bos_id) nor " +
               source + " names a bos token to start from; give --prompt TEXT";
      return false;
    }
    ids->push_back(static_cast<int32_t>(bos));
  }
  if (ids->size() > model.block_size()) {
    *error = "the prompt is " + std::to_string(ids->size()) + " tokens; " + o.program +
             " takes at most " + std::to_string(model.block_size()) +
             " (its max_seq_len): shorten the prompt";
    return false;
  }
  for (int32_t id : *ids) {
    if (static_cast<size_t>(id) >= model.vocab_size()) {
      *error = "the prompt has token id " + std::to_string(id) + " but " + o.program +
               " has only " + std::to_string(model.vocab_size()) + " logits: " +
               source + " does not belong to this model";
      return false;
    }
  }
  return true;
}

void print_stats(const llm::Model& model, const llm::GenerateStats& stats, double load_ms,
                 int64_t stopped_at) {
  const double decoded = stats.generated > 1 ? static_cast<double>(stats.generated - 1) : 0.0;
  const std::string stop =
      stats.ended ? " (stopped at eos id " + std::to_string(stopped_at) + ")" : "";
  fprintf(stderr, "llm: prompt %zu tokens, generated %zu tokens in %.3f s: %.1f tokens/s%s\n",
          stats.prompt, stats.generated, stats.seconds,
          stats.seconds > 0 ? stats.generated / stats.seconds : 0.0, stop.c_str());
  const std::string slides =
      stats.slides > 0
          ? "; context full " + std::to_string(stats.slides) + " time(s): kept its last half"
          : "";
  fprintf(stderr, "llm: %s: load %.1f ms, prefill %zu tokens at %.1f tokens/s, first token "
                  "after %.2f ms, decode %.0f tokens at %.1f tokens/s%s\n",
          model.has_cache() ? "KV cache" : "no cache", load_ms, stats.prompt,
          stats.prefill_seconds > 0 ? stats.prompt / stats.prefill_seconds : 0.0,
          stats.first_token_seconds * 1e3, decoded,
          stats.decode_seconds > 0 ? decoded / stats.decode_seconds : 0.0, slides.c_str());
}

// The process's peak resident memory beside what it is made of: the program file (mapped,
// so its weights count once, as file pages) and the memory planned for the method (the
// KV cache and the activations at their upper bounds, and the weights packed at load,
// whose file pages the loader gave back).
void print_memory(const std::string& program, const llm::Model& model) {
  const llm::MemoryStats m = llm::read_memory_stats();
  if (!m.known) {
    fprintf(stderr, "llm: memory: not known here (no /proc/self/status)\n");
    return;
  }
  struct stat file;
  const double program_mb = stat(program.c_str(), &file) == 0 ? file.st_size / 1e6 : 0.0;
  fprintf(stderr, "llm: memory: peak resident %.1f MB; now %.1f MB (%.1f MB mapped from files, "
                  "%.1f MB allocated); program %.1f MB, planned for the method %.1f MB (%.1f MB "
                  "of it weights packed at load)\n",
          m.peak_kb * 1024 / 1e6, m.resident_kb * 1024 / 1e6, m.file_kb * 1024 / 1e6,
          m.anon_kb * 1024 / 1e6, program_mb, model.planned_bytes() / 1e6,
          model.packed_bytes() / 1e6);
}

// Generates from the prompt; without a tokenizer (null: --prompt-ids and none beside
// PROGRAM) only the ids come out, with --print-ids.
int run_generate(const Options& o, const llm::Tokenizer* tokenizer,
                 const std::string& tokenizer_path) {
  llm::Model model;
  tailor::ThreadPool pool(static_cast<int>(o.threads));
  std::string error, shown;
  const uint64_t load_start = tl_pal_current_ticks();
  if (!load_model(o, &model, &pool, &error)) return failure(error);
  const double load_ms = tl_pal_ticks_to_ns(tl_pal_current_ticks() - load_start) / 1e6;
  std::vector<int32_t> prompt;
  if (!prompt_ids(o, tokenizer, &prompt, &shown, &error) ||
      !check_prompt(o, model, tokenizer, tokenizer_path, &prompt, &error)) {
    return failure(error);
  }
  std::vector<int64_t> ends = model.eos_ids();
  if (ends.empty() && tokenizer != nullptr && tokenizer->eos_id() >= 0) {
    ends.push_back(tokenizer->eos_id());
  }
  auto is_end = [&](int64_t id) { return std::find(ends.begin(), ends.end(), id) != ends.end(); };

  llm::Sampler sampler(o.sampler);
  const llm::Tokenizer none;
  llm::StreamDecoder stream(tokenizer != nullptr ? *tokenizer : none);
  stream.start(prompt);
  std::vector<int32_t> generated;
  write_bytes(shown);
  auto on_token = [&](int64_t id, std::string* message) {
    generated.push_back(static_cast<int32_t>(id));
    // An eos is not text (and may be outside a tiktoken file's ranks).
    if (is_end(id) || tokenizer == nullptr) return true;
    if (!tokenizer->has_id(id)) {
      *message = "the model produced token id " + std::to_string(id) + ", which " +
                 tokenizer_path + " does not have: the tokenizer does not belong to this model";
      return false;
    }
    write_bytes(stream.push(static_cast<int32_t>(id)));
    return true;
  };
  llm::GenerateStats stats;
  const bool ok = llm::generate(model, sampler, std::vector<int64_t>(prompt.begin(), prompt.end()),
                                o.max_tokens, ends, on_token, &stats, &error);
  write_bytes(stream.flush() + "\n");
  if (o.print_ids) write_bytes("generated ids: " + llm::format_ids(generated) + "\n");
  if (!ok) return failure(error);
  print_stats(model, stats, load_ms, stats.ended ? generated.back() : -1);
  if (o.memory) print_memory(o.program, model);
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  const int stop = parse_args(argc, argv, &o);
  if (stop >= 0) return stop;
  if (!o.bench.empty() || !o.decode_bench.empty()) return run_bench(o);
  llm::Tokenizer tokenizer;
  std::string tokenizer_path, error;
  if (!load_tokenizer(o, &tokenizer, &tokenizer_path, &error)) {
    // Ids in, ids out needs no tokenizer: a checkpoint may ship none.
    if (!tokenizer_path.empty() || !o.has_prompt_ids || o.has_encode || o.has_decode) {
      return failure(error);
    }
    fprintf(stderr, "llm: no tokenizer beside %s (--tokenizer FILE gives one): generating "
                    "ids only (--print-ids shows them)\n", o.program.c_str());
    return run_generate(o, nullptr, std::string());
  }
  if (o.has_encode || o.has_decode) return run_tokenizer_only(o, tokenizer);
  return run_generate(o, &tokenizer, tokenizer_path);
}
