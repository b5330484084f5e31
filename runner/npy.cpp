#include "runner/npy.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "runtime/core/half.h"

namespace tailor::runner {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the runner assumes a little-endian host");

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// Far above any real header; bounds what a corrupt length field can make us read.
constexpr size_t kMaxHeaderSize = 1 << 20;

struct DtypeCode {
  const char* descr;
  ScalarType dtype;
};

constexpr DtypeCode kDtypes[] = {
    {"|u1", ScalarType::Byte},  {"<u1", ScalarType::Byte},   {"|i1", ScalarType::Char},
    {"<i1", ScalarType::Char},  {"<i2", ScalarType::Short},  {"<i4", ScalarType::Int},
    {"<i8", ScalarType::Long},  {"<f2", ScalarType::Half},   {"<f4", ScalarType::Float},
    {"<f8", ScalarType::Double}, {"|b1", ScalarType::Bool},  {"<b1", ScalarType::Bool},
};

const char* descr_of(ScalarType t) {
  for (const DtypeCode& d : kDtypes) {
    if (d.dtype == t) return d.descr;
  }
  return nullptr;
}

// The text after `'key':` in the header dict, or npos.
size_t find_value(const std::string& header, const char* key) {
  const std::string quoted = std::string("'") + key + "'";
  size_t pos = header.find(quoted);
  if (pos == std::string::npos) return pos;
  pos = header.find(':', pos + quoted.size());
  if (pos == std::string::npos) return pos;
  ++pos;
  while (pos < header.size() && header[pos] == ' ') ++pos;
  return pos;
}

bool parse_header(const std::string& header, NpyArray* out, std::string* error) {
  // descr
  size_t pos = find_value(header, "descr");
  if (pos == std::string::npos || pos >= header.size() || header[pos] != '\'') {
    *error = "header has no 'descr'";
    return false;
  }
  const size_t end = header.find('\'', pos + 1);
  if (end == std::string::npos) {
    *error = "header 'descr' is not a string";
    return false;
  }
  const std::string descr = header.substr(pos + 1, end - pos - 1);
  bool found = false;
  for (const DtypeCode& d : kDtypes) {
    if (descr == d.descr) {
      out->dtype = d.dtype;
      found = true;
    }
  }
  if (!found) {
    *error = "dtype '" + descr + "' is not supported" +
             (descr.size() > 0 && descr[0] == '>' ? " (big-endian; save it little-endian)"
                                                  : " (use bool, int8/16/32/64, uint8, "
                                                    "float16/32/64)");
    return false;
  }

  // fortran_order
  pos = find_value(header, "fortran_order");
  if (pos == std::string::npos || header.compare(pos, 5, "False") != 0) {
    *error = "array is not in C order (fortran_order must be False)";
    return false;
  }

  // shape: "(2, 3)", "(4,)" or "()"
  pos = find_value(header, "shape");
  if (pos == std::string::npos || pos >= header.size() || header[pos] != '(') {
    *error = "header has no 'shape' tuple";
    return false;
  }
  ++pos;
  out->shape.clear();
  while (true) {
    while (pos < header.size() && (header[pos] == ' ' || header[pos] == ',')) ++pos;
    if (pos >= header.size()) {
      *error = "header 'shape' is not closed";
      return false;
    }
    if (header[pos] == ')') break;
    int64_t value = 0;
    size_t digits = 0;
    while (pos < header.size() && header[pos] >= '0' && header[pos] <= '9') {
      if (value > (INT32_MAX - 9) / 10) {
        *error = "a dimension in 'shape' is too large";
        return false;
      }
      value = value * 10 + (header[pos] - '0');
      ++pos;
      ++digits;
    }
    if (digits == 0 || out->shape.size() >= 16) {
      *error = "header 'shape' is malformed";
      return false;
    }
    out->shape.push_back(value);
  }
  return true;
}

}  // namespace

size_t NpyArray::numel() const {
  size_t n = 1;
  for (int64_t s : shape) n *= static_cast<size_t>(s);
  return n;
}

std::string format_shape(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

bool read_npy(const std::string& path, NpyArray* out, std::string* error) {
  FILE* f = fopen(path.c_str(), "rb");
  if (f == nullptr) {
    *error = std::string("cannot open: ") + strerror(errno);
    return false;
  }
  std::vector<uint8_t> bytes;
  // On the heap: the runner's --stack may give this thread only a few KB.
  std::vector<uint8_t> chunk(65536);
  size_t got;
  while ((got = fread(chunk.data(), 1, chunk.size(), f)) > 0) {
    bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + static_cast<ptrdiff_t>(got));
  }
  const bool read_error = ferror(f) != 0;
  fclose(f);
  if (read_error) {
    *error = "read error";
    return false;
  }

  // Preamble: magic, version, header length.
  if (bytes.size() < kMagicSize + 4 || memcmp(bytes.data(), kMagic, kMagicSize) != 0) {
    *error = "not a .npy file (bad magic)";
    return false;
  }
  const uint8_t major = bytes[6];
  size_t header_len = 0;
  size_t header_start = 0;
  if (major == 1) {
    header_len = bytes[8] | (bytes[9] << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) {
      *error = "truncated header";
      return false;
    }
    header_len = bytes[8] | (bytes[9] << 8) | (bytes[10] << 16) | (size_t(bytes[11]) << 24);
    header_start = 12;
  } else {
    *error = "unsupported .npy version " + std::to_string(major);
    return false;
  }
  if (header_len > kMaxHeaderSize || header_start + header_len > bytes.size()) {
    *error = "truncated header";
    return false;
  }
  const std::string header(reinterpret_cast<const char*>(bytes.data() + header_start), header_len);
  if (!parse_header(header, out, error)) return false;

  // Data: exactly numel elements, no overflow.
  const size_t elem = element_size(out->dtype);
  size_t nbytes = elem;
  for (int64_t s : out->shape) {
    if (s != 0 && nbytes > SIZE_MAX / static_cast<size_t>(s)) {
      *error = "array is too large";
      return false;
    }
    nbytes *= static_cast<size_t>(s);
  }
  const size_t data_start = header_start + header_len;
  if (bytes.size() - data_start < nbytes) {
    *error = "truncated data: shape " + format_shape(out->shape) + " needs " +
             std::to_string(nbytes) + " bytes, file has " + std::to_string(bytes.size() - data_start);
    return false;
  }
  out->data.assign(bytes.begin() + data_start, bytes.begin() + data_start + nbytes);
  if (out->dtype == ScalarType::Bool) {
    for (uint8_t& b : out->data) b = b != 0;  // keep bools 0/1
  }
  return true;
}

bool write_npy(const std::string& path, const NpyArray& array, std::string* error) {
  // numpy has no bfloat16: widen to float32.
  const bool widen = array.dtype == ScalarType::BFloat16;
  const char* descr = widen ? "<f4" : descr_of(array.dtype);
  if (descr == nullptr) {
    *error = std::string("cannot write dtype ") + scalar_type_name(array.dtype);
    return false;
  }
  std::string shape = "(";
  for (size_t i = 0; i < array.shape.size(); ++i) {
    shape += std::to_string(array.shape[i]) + (array.shape.size() == 1 ? "," : (i + 1 < array.shape.size() ? ", " : ""));
  }
  shape += ")";
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " +
                       shape + ", }";
  // Pad so the data starts 64-byte aligned, header ends with '\n'.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';

  std::vector<uint8_t> out(kMagic, kMagic + kMagicSize);
  out.push_back(1);
  out.push_back(0);
  out.push_back(static_cast<uint8_t>(header.size() & 0xff));
  out.push_back(static_cast<uint8_t>(header.size() >> 8));
  out.insert(out.end(), header.begin(), header.end());
  if (widen) {
    const size_t n = array.data.size() / 2;
    for (size_t i = 0; i < n; ++i) {
      uint16_t bits;
      memcpy(&bits, array.data.data() + 2 * i, 2);
      const float value = BFloat16::from_bits(bits);
      const uint8_t* p = reinterpret_cast<const uint8_t*>(&value);
      out.insert(out.end(), p, p + 4);
    }
  } else {
    out.insert(out.end(), array.data.begin(), array.data.end());
  }

  FILE* f = fopen(path.c_str(), "wb");
  if (f == nullptr) {
    *error = std::string("cannot create: ") + strerror(errno);
    return false;
  }
  const bool ok = fwrite(out.data(), 1, out.size(), f) == out.size();
  if (fclose(f) != 0 || !ok) {
    *error = "write error";
    return false;
  }
  return true;
}

}  // namespace tailor::runner
