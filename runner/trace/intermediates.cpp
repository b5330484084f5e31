// IntermediateDump: the tensors an instruction wrote -> .npy files.
#include "runner/trace/intermediates.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "runner/check.h"
#include "runner/npy.h"

namespace tailor::runner {
namespace {

// Whether the kernel writes argument `slot` (signature '!'); every slot when unknown.
bool slot_written(const char* signature, size_t slot) {
  if (signature == nullptr) return true;
  size_t index = 0;
  bool written = false;
  for (const char* p = signature; *p != '\0'; ++p) {
    if (*p == '!') {
      written = true;
    } else if (*p != '?') {
      if (index++ == slot) return written;
      written = false;
    }
  }
  return false;
}

bool save(IntermediateDump& dump, const EValue& value, const std::string& name) {
  NpyArray array;
  std::string error;
  const std::string path = dump.dir + "/" + name + ".npy";
  if (!output_to_array(value, &array, &error) || !write_npy(path, array, &error)) {
    dump.error = path + ": " + error;
    return false;
  }
  ++dump.files;
  return true;
}

}  // namespace

void IntermediateDump::observe(void* context, const InstructionView& instruction) {
  IntermediateDump& dump = *static_cast<IntermediateDump*>(context);
  for (size_t slot = 0; slot < instruction.num_args && dump.error.empty(); ++slot) {
    if (!slot_written(instruction.signature, slot)) continue;
    const EValue& value = *instruction.args[slot];
    const std::string name = std::to_string(instruction.index) + "_" + std::to_string(slot);
    if (value.is_tensor()) {
      save(dump, value, name);
    } else if (value.tag() == EValue::Tag::TensorList) {
      const TensorList items = value.to_tensor_list();
      for (size_t i = 0; i < items.size() && dump.error.empty(); ++i) {
        save(dump, EValue::from_tensor(items[i]), name + "_" + std::to_string(i));
      }
    }
  }
}

bool make_dump_dir(const std::string& dir, std::string* error) {
  struct stat info;
  if (stat(dir.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) return true;
    *error = "exists and is not a directory";
    return false;
  }
  if (mkdir(dir.c_str(), 0777) != 0) {
    *error = std::string("cannot create it: ") + strerror(errno);
    return false;
  }
  return true;
}

}  // namespace tailor::runner
