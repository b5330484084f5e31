#include "runtime/platform/format.h"

#include <stdint.h>

namespace tailor {
namespace {

// Appends to a bounded buffer, counting every character even when it does not fit.
class Sink {
 public:
  Sink(char* out, size_t size) : out_(out), size_(size) {}

  void put(char c) {
    if (used_ + 1 < size_) out_[used_] = c;
    ++used_;
  }
  void repeat(char c, size_t n) {
    for (size_t i = 0; i < n; ++i) put(c);
  }
  size_t finish() {
    if (size_ > 0) out_[used_ < size_ ? used_ : size_ - 1] = '\0';
    return used_;
  }

 private:
  char* out_;
  size_t size_;
  size_t used_ = 0;
};

struct Spec {
  bool left = false;
  bool zero = false;
  size_t width = 0;
  int precision = -1;
};

// `text` of `len` characters, padded to spec.width. `sign` (or '\0') goes before the
// zero padding, as in "-0042".
void emit(Sink& sink, const Spec& spec, char sign, const char* text, size_t len) {
  const size_t total = len + (sign != '\0' ? 1 : 0);
  const size_t pad = spec.width > total ? spec.width - total : 0;
  if (!spec.left && !spec.zero) sink.repeat(' ', pad);
  if (sign != '\0') sink.put(sign);
  if (!spec.left && spec.zero) sink.repeat('0', pad);
  for (size_t i = 0; i < len; ++i) sink.put(text[i]);
  if (spec.left) sink.repeat(' ', pad);
}

// Digits of `value` in `base`, written backwards ending at `end`; returns where they
// start (at most 20 characters).
char* digits(uint64_t value, unsigned base, bool upper, char* end) {
  const char* set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  char* p = end;
  do {
    *--p = set[value % base];
    value /= base;
  } while (value != 0);
  return p;
}

void emit_unsigned(Sink& sink, const Spec& spec, char sign, uint64_t value, unsigned base,
                   bool upper) {
  char buf[24];
  char* end = buf + sizeof(buf);
  const char* start = digits(value, base, upper, end);
  emit(sink, spec, sign, start, static_cast<size_t>(end - start));
}

// Fixed-point with spec.precision digits (6 by default); magnitudes past 1e18 as
// d.ddde+N. Good for messages, not a correctly rounded printf.
void emit_double(Sink& sink, const Spec& spec, double value) {
  char sign = '\0';
  if (value != value) return emit(sink, spec, sign, "nan", 3);
  if (value < 0 || (value == 0 && 1 / value < 0)) {
    sign = '-';
    value = -value;
  }
  if (value - value != 0) return emit(sink, spec, sign, "inf", 3);
  int exponent = 0;
  if (value >= 1e18) {
    while (value >= 10) {
      value /= 10;
      ++exponent;
    }
  }
  const int precision = spec.precision < 0 ? 6 : (spec.precision > 17 ? 17 : spec.precision);
  double scale = 1;
  for (int i = 0; i < precision; ++i) scale *= 10;
  uint64_t whole = static_cast<uint64_t>(value);
  const double scaled = (value - static_cast<double>(whole)) * scale;
  uint64_t fraction = static_cast<uint64_t>(scaled);
  // Round to nearest, ties to the even last digit (as printf does for exact ties).
  const double rest = scaled - static_cast<double>(fraction);
  const bool odd = ((precision > 0 ? fraction : whole) & 1) != 0;
  if (rest > 0.5 || (rest == 0.5 && odd)) ++fraction;
  if (static_cast<double>(fraction) >= scale) {  // rounding carried into the whole part
    fraction = 0;
    ++whole;
  }
  char buf[64];
  char* end = buf + sizeof(buf);
  char* start = end;
  if (exponent > 0) {
    start = digits(static_cast<uint64_t>(exponent), 10, false, start);
    *--start = '+';
    *--start = 'e';
  }
  for (int i = 0; i < precision; ++i) {
    *--start = static_cast<char>('0' + fraction % 10);
    fraction /= 10;
  }
  if (precision > 0) *--start = '.';
  start = digits(whole, 10, false, start);
  emit(sink, spec, sign, start, static_cast<size_t>(end - start));
}

enum class Length { Int, Char, Short, Long, LongLong, Size, Max, Ptrdiff };

int64_t signed_arg(Length length, va_list& args) {
  switch (length) {
    case Length::Char: return static_cast<signed char>(va_arg(args, int));
    case Length::Short: return static_cast<short>(va_arg(args, int));
    case Length::Long: return va_arg(args, long);
    case Length::LongLong: return va_arg(args, long long);
    case Length::Size: return static_cast<int64_t>(va_arg(args, size_t));
    case Length::Max: return va_arg(args, intmax_t);
    case Length::Ptrdiff: return va_arg(args, ptrdiff_t);
    case Length::Int: break;
  }
  return va_arg(args, int);
}

uint64_t unsigned_arg(Length length, va_list& args) {
  switch (length) {
    case Length::Char: return static_cast<unsigned char>(va_arg(args, unsigned));
    case Length::Short: return static_cast<unsigned short>(va_arg(args, unsigned));
    case Length::Long: return va_arg(args, unsigned long);
    case Length::LongLong: return va_arg(args, unsigned long long);
    case Length::Size: return va_arg(args, size_t);
    case Length::Max: return va_arg(args, uintmax_t);
    case Length::Ptrdiff: return static_cast<uint64_t>(va_arg(args, ptrdiff_t));
    case Length::Int: break;
  }
  return va_arg(args, unsigned);
}

Length parse_length(const char*& p) {
  switch (*p) {
    case 'h':
      ++p;
      if (*p == 'h') return ++p, Length::Char;
      return Length::Short;
    case 'l':
      ++p;
      if (*p == 'l') return ++p, Length::LongLong;
      return Length::Long;
    case 'z': return ++p, Length::Size;
    case 'j': return ++p, Length::Max;
    case 't': return ++p, Length::Ptrdiff;
    default: return Length::Int;
  }
}

}  // namespace

size_t format_string_v(char* out, size_t size, const char* fmt, va_list args_in) {
  Sink sink(out, size);
  va_list args;
  va_copy(args, args_in);
  for (const char* p = fmt; *p != '\0'; ++p) {
    if (*p != '%') {
      sink.put(*p);
      continue;
    }
    const char* conversion_start = p;
    ++p;
    Spec spec;
    for (;; ++p) {
      if (*p == '-') {
        spec.left = true;
      } else if (*p == '0') {
        spec.zero = true;
      } else {
        break;
      }
    }
    if (*p == '*') {
      const int width = va_arg(args, int);
      spec.left = spec.left || width < 0;
      spec.width = static_cast<size_t>(width < 0 ? -width : width);
      ++p;
    }
    while (*p >= '0' && *p <= '9') spec.width = spec.width * 10 + static_cast<size_t>(*p++ - '0');
    if (*p == '.') {
      ++p;
      spec.precision = 0;
      if (*p == '*') {
        spec.precision = va_arg(args, int);
        ++p;
      }
      while (*p >= '0' && *p <= '9') spec.precision = spec.precision * 10 + (*p++ - '0');
    }
    const Length length = parse_length(p);
    switch (*p) {
      case 'd':
      case 'i': {
        const int64_t v = signed_arg(length, args);
        const uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
        emit_unsigned(sink, spec, v < 0 ? '-' : '\0', magnitude, 10, false);
        break;
      }
      case 'u':
        emit_unsigned(sink, spec, '\0', unsigned_arg(length, args), 10, false);
        break;
      case 'x':
      case 'X':
        emit_unsigned(sink, spec, '\0', unsigned_arg(length, args), 16, *p == 'X');
        break;
      case 'p': {
        const uint64_t v = reinterpret_cast<uintptr_t>(va_arg(args, void*));
        sink.put('0');
        sink.put('x');
        emit_unsigned(sink, spec, '\0', v, 16, false);
        break;
      }
      case 'c': {
        const char c = static_cast<char>(va_arg(args, int));
        spec.zero = false;
        emit(sink, spec, '\0', &c, 1);
        break;
      }
      case 's': {
        const char* s = va_arg(args, const char*);
        if (s == nullptr) s = "(null)";
        size_t len = 0;
        while (s[len] != '\0' && (spec.precision < 0 || len < static_cast<size_t>(spec.precision))) {
          ++len;
        }
        spec.zero = false;
        emit(sink, spec, '\0', s, len);
        break;
      }
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
        emit_double(sink, spec, va_arg(args, double));
        break;
      case '%':
        sink.put('%');
        break;
      default:  // unknown: copy the conversion as written
        for (const char* q = conversion_start; q <= p && *q != '\0'; ++q) sink.put(*q);
        if (*p == '\0') --p;
        break;
    }
  }
  va_end(args);
  return sink.finish();
}

size_t format_string(char* out, size_t size, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  const size_t n = format_string_v(out, size, fmt, args);
  va_end(args);
  return n;
}

}  // namespace tailor
