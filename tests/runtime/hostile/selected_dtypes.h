// The kernels under test instantiate every dtype.
#pragma once
#define TL_SELECT_ALL_DTYPES 1
