"""Dtype names, their ATen ScalarType codes and element sizes: the one table of them in
Python. schema/program.fbs, runtime/core/scalar_type.h and c_api/tailor.h spell the same
codes; tests/codegen/test_dtype_table.py fails when one of them changes alone."""

# The order users read them in messages: bool, integers by width, then floats.
DTYPE_NAMES = ("Bool", "Byte", "Char", "Short", "Int", "Long", "Half", "BFloat16", "Float",
               "Double")

SCALAR_TYPE_CODES = {"Byte": 0, "Char": 1, "Short": 2, "Int": 3, "Long": 4, "Half": 5,
                     "Float": 6, "Double": 7, "Bool": 11, "BFloat16": 15}

# Bytes per element.
ITEM_SIZES = {"Byte": 1, "Char": 1, "Short": 2, "Int": 4, "Long": 8, "Half": 2, "Float": 4,
              "Double": 8, "Bool": 1, "BFloat16": 2}

# A Scalar argument's value kind in a program -> the dtype a kernel switches on.
SCALAR_VALUE_DTYPES = {"Int": "Long", "Double": "Double", "Bool": "Bool"}


def is_dtype(name: object) -> bool:
    return isinstance(name, str) and name in SCALAR_TYPE_CODES


def dtype_mask(dtypes) -> int:
    """Bitmask with bit SCALAR_TYPE_CODES[d] set for each dtype."""
    mask = 0
    for d in dtypes:
        mask |= 1 << SCALAR_TYPE_CODES[d]
    return mask


ALL_DTYPES = DTYPE_NAMES
ALL_DTYPES_MASK = dtype_mask(DTYPE_NAMES)
