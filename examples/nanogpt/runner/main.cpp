// nanogpt: generates text with a GPT program built by Tailor (scons model=nanogpt).
//
//   nanogpt PROGRAM --vocab vocab.json --merges merges.txt [--prompt TEXT] [options]
//   nanogpt --vocab vocab.json --merges merges.txt --encode|--decode   (tokenizer only)
//   nanogpt PROGRAM --bench 1,16,64 [--repeat N]                        (forward latency)
//   nanogpt PROGRAM --decode-bench 16,64 [--repeat N]                   (decode latency)
//
// Text streams to stdout token by token; statistics go to stderr.
// Exit codes: 0 ok, 1 error (files, program, prompt), 2 usage.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <vector>

#include "examples/nanogpt/runner/generator.h"
#include "examples/nanogpt/runner/sampler.h"
#include "examples/nanogpt/runner/tokenizer.h"
#include "runtime/kernel/thread_pool.h"
#include "runtime/platform/platform.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

const char kUsage[] =
    "usage: nanogpt PROGRAM --vocab VOCAB.json --merges MERGES.txt [--prompt TEXT]\n"
    "               [--max-tokens N] [--temperature T] [--top-k K] [--top-p P]\n"
    "               [--repetition-penalty R] [--seed S] [--greedy] [--print-tokens]\n"
    "       nanogpt --vocab VOCAB.json --merges MERGES.txt (--encode | --decode)\n"
    "       nanogpt PROGRAM --bench T[,T...] [--repeat N]\n"
    "       nanogpt PROGRAM --decode-bench C[,C...] [--repeat N]\n"
    "  --prompt TEXT         text to continue; without it, stdin is read (one trailing\n"
    "                        newline dropped). It must fit the model's window (block_size\n"
    "                        tokens): a longer prompt is an error. Empty: start from\n"
    "                        <|endoftext|>. A program with a KV cache prefills it in one\n"
    "                        call, then decodes one token a call; when its context is full\n"
    "                        it keeps the last half and prefills that again.\n"
    "  --max-tokens N        tokens to generate (default 100); stops early at <|endoftext|>\n"
    "  --temperature T       softmax temperature (default 0.8; 0 = greedy)\n"
    "  --top-k K             sample among the K most likely tokens (default 40; 0 = all)\n"
    "  --top-p P             ... and among the fewest whose probability reaches P (default 1)\n"
    "  --repetition-penalty R  > 1 makes tokens already in the window less likely (default 1)\n"
    "  --seed S              sampling seed (default 1): the same seed gives the same text\n"
    "  --greedy              always take the most likely token\n"
    "  --print-tokens        print 'prompt: IDS' and 'generated: IDS' instead of text\n"
    "  --encode              print the token ids of --prompt or stdin\n"
    "  --decode              write the text of the token ids read from stdin\n"
    "  --bench T[,T...]      time forward passes on T tokens: median and min over --repeat N\n"
    "                        runs (default 20) after 2 warm-up runs\n"
    "  --decode-bench C[,C...]  time one decode step at context C (with a KV cache: one\n"
    "                        token after C-1 cached; without: a forward pass on C tokens)\n"
    "  --threads N           threads the kernels may use (default 1: no thread is created)\n";

struct Options {
  std::string program, vocab, merges, prompt;
  bool has_prompt = false;
  size_t max_tokens = 100;
  nanogpt::SamplerOptions sampler;
  bool print_tokens = false;
  bool encode = false;
  bool decode = false;
  std::vector<size_t> bench;  // window lengths to time
  std::vector<size_t> decode_bench;  // contexts to time a decode step at
  size_t repeat = 20;
  size_t threads = 1;
};

int usage_error(const std::string& message) {
  fprintf(stderr, "nanogpt: %s\n%s", message.c_str(), kUsage);
  return kExitUsage;
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

// Returns -1 when the arguments are fine, else the exit code to stop with.
int parse_args(int argc, char** argv, Options* o) {
  o->sampler.temperature = 0.8f;
  o->sampler.top_k = 40;
  o->sampler.seed = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      fputs(kUsage, stdout);
      return kExitOk;
    }
    if (arg == "--greedy" || arg == "--print-tokens" || arg == "--encode" || arg == "--decode") {
      bool* flag = arg == "--greedy"         ? &o->sampler.greedy
                   : arg == "--print-tokens" ? &o->print_tokens
                   : arg == "--encode"       ? &o->encode
                                             : &o->decode;
      *flag = true;
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-' && arg[1] == '-') {
      if (i + 1 >= argc) return usage_error(arg + " needs a value");
      const char* value = argv[++i];
      double number = 0;
      uint64_t count = 0;
      if (arg == "--vocab") {
        o->vocab = value;
      } else if (arg == "--merges") {
        o->merges = value;
      } else if (arg == "--prompt") {
        o->prompt = value;
        o->has_prompt = true;
      } else if (arg == "--bench" || arg == "--decode-bench") {
        std::vector<size_t>* counts = arg == "--bench" ? &o->bench : &o->decode_bench;
        for (const char* p = value; *p != '\0';) {
          char* end = nullptr;
          const unsigned long long t = *p >= '0' && *p <= '9' ? strtoull(p, &end, 10) : 0;
          if (t == 0 || (*end != ',' && *end != '\0')) {
            return usage_error(arg + ": '" + std::string(value) +
                               "' is not a list of token counts like 1,16,64");
          }
          counts->push_back(t);
          p = *end == ',' ? end + 1 : end;
        }
      } else if (arg == "--max-tokens" || arg == "--top-k" || arg == "--seed" ||
                 arg == "--repeat" || arg == "--threads") {
        if (!parse_count(value, &count)) {
          return usage_error(arg + ": '" + value + "' is not a non-negative integer");
        }
        if (arg == "--threads") {
          if (count < 1 || count > static_cast<uint64_t>(tailor::ThreadPool::kMaxThreads)) {
            return usage_error("--threads: '" + std::string(value) + "' is not from 1 to " +
                               std::to_string(tailor::ThreadPool::kMaxThreads));
          }
          o->threads = count;
        }
        if (arg == "--repeat") o->repeat = count;
        if (arg == "--max-tokens") o->max_tokens = count;
        if (arg == "--top-k") o->sampler.top_k = count;
        if (arg == "--seed") o->sampler.seed = count;
      } else if (arg == "--temperature" || arg == "--top-p" || arg == "--repetition-penalty") {
        const double high = arg == "--top-p" ? 1.0 : 100.0;
        const double low = arg == "--repetition-penalty" ? 1e-3 : 0.0;
        if (!parse_double(value, low, high, &number)) {
          return usage_error(arg + ": '" + value + "' is not a number in [" +
                             std::to_string(low) + ", " + std::to_string(high) + "]");
        }
        float* target = arg == "--temperature" ? &o->sampler.temperature
                        : arg == "--top-p"     ? &o->sampler.top_p
                                               : &o->sampler.repetition_penalty;
        *target = static_cast<float>(number);
      } else {
        return usage_error("unknown option " + arg);
      }
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
  if (o->vocab.empty() || o->merges.empty()) return usage_error("give --vocab and --merges");
  if (o->encode && o->decode) return usage_error("--encode and --decode exclude each other");
  if (o->program.empty() && !o->encode && !o->decode) return usage_error("no PROGRAM given");
  return -1;
}

std::string read_stdin() {
  std::string text;
  char buffer[1 << 14];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof(buffer), stdin)) > 0) text.append(buffer, n);
  return text;
}

void write_bytes(const std::string& bytes) {
  fwrite(bytes.data(), 1, bytes.size(), stdout);
  fflush(stdout);
}

void print_ids(const char* label, const std::vector<int64_t>& ids) {
  printf("%s:", label);
  for (int64_t id : ids) printf(" %lld", static_cast<long long>(id));
  printf("\n");
}

int run_decode(const nanogpt::Tokenizer& tokenizer) {
  const std::string text = read_stdin();
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r') {
      ++i;
      continue;
    }
    char* end = nullptr;
    const long long id = strtoll(text.c_str() + i, &end, 10);
    if (end == text.c_str() + i) {
      fprintf(stderr, "nanogpt: --decode: stdin holds '%c' where a token id was expected\n",
              text[i]);
      return kExitFailure;
    }
    if (!tokenizer.has_id(id)) {
      fprintf(stderr, "nanogpt: --decode: token id %lld is not in the vocabulary\n", id);
      return kExitFailure;
    }
    out += tokenizer.token_bytes(id);
    i = static_cast<size_t>(end - text.c_str());
  }
  write_bytes(out);
  return kExitOk;
}

int run_bench(const Options& o) {
  nanogpt::Model model;
  std::string error;
  if (!model.load(o.program, &error, static_cast<uint32_t>(o.threads))) {
    fprintf(stderr, "nanogpt: %s\n", error.c_str());
    return kExitFailure;
  }
  tailor::ThreadPool pool(static_cast<int>(o.threads));
  if (model.set_parallel(pool.parallel()) != tailor::Error::Ok) return kExitFailure;
  for (size_t pass = 0; pass < 2; ++pass) {
    for (size_t count : pass == 0 ? o.bench : o.decode_bench) {
      if (count > model.block_size()) {
        fprintf(stderr, "nanogpt: %s %zu: %s takes at most %zu tokens\n",
                pass == 0 ? "--bench" : "--decode-bench", count, o.program.c_str(),
                model.block_size());
        return kExitFailure;
      }
      std::vector<double> ms;
      const bool ok = pass == 0 ? nanogpt::time_forward(model, count, o.repeat, &ms, &error)
                                : nanogpt::time_decode(model, count, o.repeat, &ms, &error);
      if (!ok) {
        fprintf(stderr, "nanogpt: %s\n", error.c_str());
        return kExitFailure;
      }
      std::sort(ms.begin(), ms.end());
      printf("%s=%zu: median %.3f ms, min %.3f ms (%zu runs)\n",
             pass == 0 ? "forward T" : "decode context", count, ms[ms.size() / 2], ms[0],
             ms.size());
    }
  }
  return kExitOk;
}

int run_generate(const Options& o, const nanogpt::Tokenizer& tokenizer, std::string prompt) {
  nanogpt::Model model;
  std::string error;
  const uint64_t load_start = tl_pal_current_ticks();
  if (!model.load(o.program, &error, static_cast<uint32_t>(o.threads))) {
    fprintf(stderr, "nanogpt: %s\n", error.c_str());
    return kExitFailure;
  }
  const double load_ms = tl_pal_ticks_to_ns(tl_pal_current_ticks() - load_start) / 1e6;
  tailor::ThreadPool pool(static_cast<int>(o.threads));
  if (model.set_parallel(pool.parallel()) != tailor::Error::Ok) return kExitFailure;
  std::vector<int64_t> tokens = tokenizer.encode(prompt);
  if (tokens.empty()) {
    if (tokenizer.end_of_text() < 0) {
      fprintf(stderr, "nanogpt: the prompt is empty and %s has no <|endoftext|> to start "
                      "from; give --prompt TEXT\n", o.vocab.c_str());
      return kExitFailure;
    }
    tokens.push_back(tokenizer.end_of_text());
  }
  if (tokens.size() > model.block_size()) {
    fprintf(stderr, "nanogpt: the prompt is %zu tokens; %s takes at most %zu (its block_size): "
                    "shorten the prompt\n", tokens.size(), o.program.c_str(), model.block_size());
    return kExitFailure;
  }
  for (int64_t id : tokens) {
    if (static_cast<size_t>(id) >= model.vocab_size()) {
      fprintf(stderr, "nanogpt: the prompt has token id %lld but %s has only %zu logits: %s "
                      "does not belong to this model\n", static_cast<long long>(id),
              o.program.c_str(), model.vocab_size(), o.vocab.c_str());
      return kExitFailure;
    }
  }

  nanogpt::Sampler sampler(o.sampler);
  nanogpt::Utf8Stream stream;
  std::vector<int64_t> generated;
  if (o.print_tokens) {
    print_ids("prompt", tokens);
    printf("generated:");
  } else {
    write_bytes(prompt);
  }
  auto on_token = [&](int64_t id) {
    generated.push_back(id);
    if (o.print_tokens) {
      printf(" %lld", static_cast<long long>(id));
      fflush(stdout);
    } else if (id != tokenizer.end_of_text()) {
      write_bytes(stream.push(tokenizer.token_bytes(id)));
    }
  };
  nanogpt::GenerateStats stats;
  const bool ok = nanogpt::generate(model, tokenizer, sampler, tokens, o.max_tokens, on_token,
                                    &stats, &error);
  write_bytes(o.print_tokens ? std::string() : stream.flush());
  write_bytes("\n");
  if (!ok) {
    fprintf(stderr, "nanogpt: %s\n", error.c_str());
    return kExitFailure;
  }
  const double decoded = stats.generated > 1 ? static_cast<double>(stats.generated - 1) : 0.0;
  fprintf(stderr, "nanogpt: prompt %zu tokens, generated %zu tokens in %.3f s: %.1f tokens/s%s\n",
          tokens.size(), stats.generated, stats.seconds,
          stats.seconds > 0 ? stats.generated / stats.seconds : 0.0,
          stats.ended ? " (stopped at <|endoftext|>)" : "");
  fprintf(stderr, "nanogpt: %s: load %.1f ms, prefill %zu tokens at %.1f tokens/s, first token "
                  "after %.2f ms, decode %.0f tokens at %.1f tokens/s%s\n",
          model.has_cache() ? "KV cache" : "no cache", load_ms, stats.prompt,
          stats.prefill_seconds > 0 ? stats.prompt / stats.prefill_seconds : 0.0,
          stats.first_token_seconds * 1e3, decoded,
          stats.decode_seconds > 0 ? decoded / stats.decode_seconds : 0.0,
          stats.slides > 0 ? ("; context full " + std::to_string(stats.slides) +
                              " time(s): kept its last half").c_str()
                           : "");
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  const int stop = parse_args(argc, argv, &o);
  if (stop >= 0) return stop;
  if (!o.bench.empty() || !o.decode_bench.empty()) return run_bench(o);
  nanogpt::Tokenizer tokenizer;
  std::string error;
  if (!tokenizer.load(o.vocab, o.merges, &error)) {
    fprintf(stderr, "nanogpt: %s\n", error.c_str());
    return kExitFailure;
  }
  if (o.decode) return run_decode(tokenizer);
  std::string prompt = o.prompt;
  if (!o.has_prompt) {
    prompt = read_stdin();
    // `echo TEXT | nanogpt` ends the prompt with a newline the user did not mean.
    if (!o.encode && !prompt.empty() && prompt.back() == '\n') prompt.pop_back();
  }
  if (o.encode) {
    print_ids("ids", tokenizer.encode(prompt));
    return kExitOk;
  }
  return run_generate(o, tokenizer, prompt);
}
