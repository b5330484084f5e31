#include "apps/llm/tokenizer/json_fields.h"

namespace llm {
namespace {

Status wrong_kind(const std::string& where, const char* key, const char* expected,
                  const Json& found) {
  return Status::error(where + ": \"" + key + "\" must be " + expected + ", not " +
                       Json::describe(found.kind()));
}

}  // namespace

Status string_field(const Json& object, const char* key, const std::string& where,
                    std::string* out, bool required, const char* fallback) {
  const Json* v = object.find(key);
  if (v == nullptr || v->is_null()) {
    if (required) return Status::error(where + ": missing \"" + key + "\"");
    *out = fallback;
    return Status::ok();
  }
  if (!v->is_string()) return wrong_kind(where, key, "a string", *v);
  *out = v->as_string();
  return Status::ok();
}

Status component_type(const Json& object, const std::string& where, std::string* type,
                      std::string* here) {
  Status s = string_field(object, "type", where, type);
  if (s.is_ok()) *here = where + " (" + *type + ")";
  return s;
}

Status bool_field(const Json& object, const char* key, const std::string& where, bool* out,
                  bool fallback) {
  const Json* v = object.find(key);
  if (v == nullptr || v->is_null()) {
    *out = fallback;
    return Status::ok();
  }
  if (!v->is_bool()) return wrong_kind(where, key, "true or false", *v);
  *out = v->as_bool();
  return Status::ok();
}

Status int_field(const Json& object, const char* key, const std::string& where, int64_t* out,
                 int64_t fallback) {
  const Json* v = object.find(key);
  if (v == nullptr || v->is_null()) {
    *out = fallback;
    return Status::ok();
  }
  if (!v->is_integer()) return wrong_kind(where, key, "an integer", *v);
  *out = v->as_int();
  return Status::ok();
}

Status pattern_field(const Json& object, const char* key, const std::string& where,
                     std::string* pattern, bool* is_regex) {
  const Json* v = object.find(key);
  if (v == nullptr || !v->is_object()) {
    return Status::error(where + ": \"" + key + "\" must be {\"String\": ...} or {\"Regex\": ...}");
  }
  const Json* s = v->find("String");
  const Json* r = v->find("Regex");
  if ((s == nullptr) == (r == nullptr) || !(s != nullptr ? s : r)->is_string()) {
    return Status::error(where + ": \"" + key + "\" must be {\"String\": ...} or {\"Regex\": ...}");
  }
  *is_regex = r != nullptr;
  *pattern = (s != nullptr ? s : r)->as_string();
  return Status::ok();
}

}  // namespace llm
