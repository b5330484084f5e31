#include "runtime/core/evalue.h"

namespace tailor {

const char* evalue_tag_name(EValue::Tag tag) {
  switch (tag) {
    case EValue::Tag::None: return "None";
    case EValue::Tag::Int: return "Int";
    case EValue::Tag::Double: return "Double";
    case EValue::Tag::Bool: return "Bool";
    case EValue::Tag::String: return "String";
    case EValue::Tag::Tensor: return "Tensor";
    case EValue::Tag::IntList: return "IntList";
    case EValue::Tag::DoubleList: return "DoubleList";
    case EValue::Tag::BoolList: return "BoolList";
    case EValue::Tag::TensorList: return "TensorList";
    case EValue::Tag::OptionalTensorList: return "OptionalTensorList";
  }
  return "Unknown";
}

}  // namespace tailor
