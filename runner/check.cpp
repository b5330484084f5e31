#include "runner/check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/core/half.h"
#include "runtime/core/tensor_copy.h"

namespace tailor::runner {
namespace {

// Element `i` of a C-order array as a double (exact for every integer up to 2^53).
double element_as_double(const NpyArray& a, size_t i) {
  const uint8_t* p = a.data.data() + i * element_size(a.dtype);
  switch (a.dtype) {
    case ScalarType::Byte: return *p;
    case ScalarType::Char: return static_cast<int8_t>(*p);
    case ScalarType::Bool: return *p != 0;
#define TL_RUNNER_LOAD(NAME, CTYPE) \
  case ScalarType::NAME: {          \
    CTYPE v;                        \
    memcpy(&v, p, sizeof(v));       \
    return static_cast<double>(v);  \
  }
    TL_RUNNER_LOAD(Short, int16_t)
    TL_RUNNER_LOAD(Int, int32_t)
    TL_RUNNER_LOAD(Float, float)
    TL_RUNNER_LOAD(Double, double)
    TL_RUNNER_LOAD(Half, Half)
    TL_RUNNER_LOAD(BFloat16, BFloat16)
#undef TL_RUNNER_LOAD
    case ScalarType::Long: {
      int64_t v;
      memcpy(&v, p, sizeof(v));
      return static_cast<double>(v);
    }
  }
  return 0;
}

int64_t element_as_int(const NpyArray& a, size_t i) {
  if (a.dtype == ScalarType::Long) {
    int64_t v;
    memcpy(&v, a.data.data() + i * 8, sizeof(v));
    return v;
  }
  return static_cast<int64_t>(element_as_double(a, i));
}

std::string format_double(double v) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%.2g", v);
  return buf;
}

std::string format_g(double v) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

}  // namespace

bool output_to_array(const EValue& value, NpyArray* out, std::string* error) {
  out->shape.clear();
  if (value.is_tensor()) {
    const Tensor& t = value.to_tensor();
    out->dtype = t.dtype();
    for (int32_t s : t.sizes()) out->shape.push_back(s);
    out->data.assign(t.nbytes(), 0);
    copy_to_c_order(t, out->data.data());
    return true;
  }
  if (value.is_int()) {
    const int64_t v = value.to_int();
    out->dtype = ScalarType::Long;
    out->data.assign(reinterpret_cast<const uint8_t*>(&v), reinterpret_cast<const uint8_t*>(&v) + 8);
    return true;
  }
  if (value.is_double()) {
    const double v = value.to_double();
    out->dtype = ScalarType::Double;
    out->data.assign(reinterpret_cast<const uint8_t*>(&v), reinterpret_cast<const uint8_t*>(&v) + 8);
    return true;
  }
  if (value.is_bool()) {
    out->dtype = ScalarType::Bool;
    out->data.assign(1, value.to_bool() ? 1 : 0);
    return true;
  }
  *error = std::string("output is a ") + evalue_tag_name(value.tag()) + " value";
  return false;
}

bool compare_arrays(const NpyArray& actual, const NpyArray& expected, const Tolerance& tol,
                    std::string* line, bool* weak) {
  *weak = false;
  *line = "shape " + format_shape(actual.shape) + " " + scalar_type_name(actual.dtype);
  if (actual.shape != expected.shape) {
    *line += ", expected shape " + format_shape(expected.shape);
    return false;
  }
  const bool float_actual = is_floating_type(actual.dtype);
  const bool float_expected = is_floating_type(expected.dtype);
  if (float_actual != float_expected) {
    *line += std::string(", expected dtype ") + scalar_type_name(expected.dtype);
    return false;
  }
  const size_t n = actual.numel();
  if (!float_actual) {
    size_t mismatches = 0;
    int64_t max_error = 0;
    for (size_t i = 0; i < n; ++i) {
      const int64_t a = element_as_int(actual, i);
      const int64_t e = element_as_int(expected, i);
      if (a != e) {
        ++mismatches;
        // Differences of int64 values can overflow; saturate for the report.
        const double diff = fabs(static_cast<double>(a) - static_cast<double>(e));
        if (diff > static_cast<double>(max_error)) max_error = diff > 9e18 ? INT64_MAX : int64_t(diff);
      }
    }
    *line += ", max abs error " + std::to_string(max_error) + " (exact)";
    if (mismatches > 0) *line += ", " + std::to_string(mismatches) + " of " + std::to_string(n) + " differ";
    return mismatches == 0;
  }
  double max_error = 0;
  size_t mismatches = 0;
  bool zeros_would_pass = n > 0;  // every expected value within tolerance of 0
  for (size_t i = 0; i < n; ++i) {
    const double a = element_as_double(actual, i);
    const double e = element_as_double(expected, i);
    if (!(fabs(e) <= tol.atol + tol.rtol * fabs(e))) zeros_would_pass = false;
    if (isnan(a) || isnan(e)) {
      if (!(isnan(a) && isnan(e))) ++mismatches;
      continue;
    }
    if (a == e) continue;  // includes equal infinities
    const double diff = fabs(a - e);
    if (!(diff <= tol.atol + tol.rtol * fabs(e))) ++mismatches;
    if (diff > max_error || isinf(diff)) max_error = diff;
  }
  *line += ", max abs error " + format_double(max_error) + " (atol " + format_g(tol.atol) +
           ", rtol " + format_g(tol.rtol) + ")";
  if (mismatches > 0) *line += ", " + std::to_string(mismatches) + " of " + std::to_string(n) + " outside tolerance";
  if (zeros_would_pass) *weak = true;
  return mismatches == 0;
}

std::string preview_values(const NpyArray& array, size_t max_values) {
  std::string s = "[";
  const size_t n = array.numel();
  for (size_t i = 0; i < n && i < max_values; ++i) {
    if (i > 0) s += ", ";
    s += is_floating_type(array.dtype) ? format_g(element_as_double(array, i))
                                       : std::to_string(element_as_int(array, i));
  }
  if (n > max_values) s += ", ...";
  return s + "]";
}

}  // namespace tailor::runner
