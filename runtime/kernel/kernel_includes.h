// Everything a kernel source includes. Kernels live in namespace tailor::native and
// use the tailor types unqualified.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "runtime/core/array_ref.h"
#include "runtime/core/element_cast.h"
#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/half.h"
#include "runtime/core/optional.h"
#include "runtime/core/scalar.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/string_util.h"
#include "runtime/core/tensor.h"
#include "runtime/core/traits.h"
#include "runtime/kernel/dtype_switch.h"
#include "runtime/kernel/kernel_context.h"
#include "runtime/kernel/kernel_utils.h"
#include "runtime/kernel/math.h"
#include "runtime/platform/assert.h"
#include "runtime/platform/log.h"
