"""Convolution weights repacked at export into XNNPACK's filter layouts.

torch's weight is [O, I/groups, KH, KW] ([O, I/groups, K] in 1-d, which becomes a 2-d
window of height 1); XNNPACK's convolution takes [O, KH, KW, I/groups], its depthwise
convolution [1, KH, KW, O], and its deconvolution (torch's transposed convolution,
weight [I, O/groups, KH, KW]) [O, KH, KW, I/groups] per group. Each repacked weight is a
constant of its own (LoweredMethod.derived_constant): the original is dropped unless a
kernel call still reads it.
"""

import numpy as np

from exporter.delegation import LoweredMethod


def packed_filter(m: LoweredMethod, i: int):
    """(value id, depthwise) of call `i`'s weight in XNNPACK's filter layout."""
    args = m.calls[i].args
    w = args[1]
    sizes = m.tensor(w).sizes
    groups = m.literal(args[8])
    weight = np.frombuffer(m.constants[w], dtype=np.float32).reshape(sizes)
    if len(sizes) == 3:                    # 1-d: [O, I/g, K] -> [O, I/g, 1, K]
        weight = weight[:, :, None, :]
    if m.literal(args[6]):
        # Transposed: [I, O/g, KH, KW] -> per group [O/g, KH, KW, I/g].
        i_all, og, kh, kw = weight.shape
        packed = weight.reshape(groups, i_all // groups, og, kh, kw) \
            .transpose(0, 2, 3, 4, 1).reshape(groups * og, kh, kw, i_all // groups)
        vid = m.derived_constant(("xnnpack", "deconv-OHWI", w), w, list(packed.shape),
                                 np.ascontiguousarray(packed).tobytes())
        return vid, False
    in_channels = m.tensor(args[0]).sizes[1]
    depthwise = groups > 1 and groups == in_channels and sizes[1] == 1
    if depthwise:
        packed, key = weight.transpose(1, 2, 3, 0), "1HWO"
    else:
        packed, key = weight.transpose(0, 2, 3, 1), "OHWI"
    vid = m.derived_constant(("xnnpack", key, w), w, list(packed.shape),
                             np.ascontiguousarray(packed).tobytes())
    return vid, depthwise
