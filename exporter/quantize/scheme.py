"""The `quantize:` setting of a model manifest (or export()'s `quantize=`) -> QuantizeSpec.

    quantize: 8da4w                              # a scheme name
    quantize: {scheme: 8da4w, group_size: 64}    # or a mapping
    quantize: {scheme: int8-weight, embeddings: false}
    quantize: {scheme: 8da4w, convolutions: all} # 3x3 convolutions too, not only 1x1

Schemes (what Linear layers become; embeddings get int8 per-row weights in each, unless
`embeddings: false`; which convolutions are quantized: `convolutions`, see CONVOLUTIONS):

- int8-weight: int8 weights, one scale per output channel; activations stay float;
- 8da8w: the same weights, and each input row (token) quantized to int8 at run time
  (symmetric, its own scale: exporter/quantize/activations.py), so the product runs in
  int8 x int8 -> int32; each convolution of one group is one tailor_quant::conv2d, each
  image quantized with one scale;
- 8da4w: 4-bit weights with one scale per group of `group_size` inputs (default 32),
  activations as in 8da8w.

Pure: validates plain data and raises ValueError with the entry and the fix; the
callers add the file name (exporter/manifest.py) or the argument name (export()).
"""

from dataclasses import dataclass

SCHEMES = ("int8-weight", "8da8w", "8da4w")
DEFAULT_GROUP_SIZE = 32
# The 4-bit kernels unpack 32 weights at a time (kernels/quantized/util/int4.h).
GROUP_MULTIPLE = 32
_KEYS = ("scheme", "group_size", "embeddings", "convolutions")
# Which Conv2d are quantized: only the 1x1 ones, or all of one group (3x3 too). The default
# is all for 8da8w, whose quantized convolution gathers int8 patches itself (ResNet-18 at
# 0.46x its fp32 time, BENCHMARKS.md "Vision side by side"), and 1x1 for the others, which
# make a 3x3 one the linear over patches of strided slices (2x the fp32 time).
CONVOLUTIONS = ("1x1", "all")


def default_convolutions(scheme: str) -> str:
    return "all" if scheme == "8da8w" else "1x1"


@dataclass(frozen=True)
class QuantizeSpec:
    scheme: str                       # one of SCHEMES
    group_size: int = DEFAULT_GROUP_SIZE  # inputs per weight scale (8da4w only)
    embeddings: bool = True           # nn.Embedding tables to int8 per row
    convolutions: str = ""            # one of CONVOLUTIONS; "": the scheme's default

    def __post_init__(self):
        if not self.convolutions:
            object.__setattr__(self, "convolutions", default_convolutions(self.scheme))

    @property
    def weight_bits(self) -> int:
        return 4 if self.scheme == "8da4w" else 8

    @property
    def dynamic_input(self) -> bool:
        """Whether activations are quantized per token at run time."""
        return self.scheme != "int8-weight"

    def describe(self) -> str:
        extra = f", group size {self.group_size}" if self.scheme == "8da4w" else ""
        return f"{self.scheme}{extra}"


def parse_quantize(value) -> QuantizeSpec | None:
    """A scheme name, a mapping {scheme, group_size, embeddings, convolutions}, None or a
    QuantizeSpec."""
    if value is None or isinstance(value, QuantizeSpec):
        return value
    if isinstance(value, str):
        value = {"scheme": value}
    if not isinstance(value, dict):
        raise ValueError(f"must be a scheme name ({', '.join(SCHEMES)}) or a mapping like "
                         "{scheme: 8da4w, group_size: 32}, not " + repr(value))
    unknown = [k for k in value if k not in _KEYS]
    if unknown:
        raise ValueError(f"unknown key '{unknown[0]}'; allowed keys: {', '.join(_KEYS)}")
    scheme = value.get("scheme")
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; use one of {', '.join(SCHEMES)}")
    group_size = value.get("group_size", DEFAULT_GROUP_SIZE)
    if "group_size" in value and scheme != "8da4w":
        raise ValueError(f"group_size applies to 8da4w only; {scheme} has one scale per "
                         "output channel: remove group_size")
    if (not isinstance(group_size, int) or isinstance(group_size, bool) or group_size <= 0
            or group_size % GROUP_MULTIPLE):
        raise ValueError(f"group_size {group_size!r} must be a positive multiple of "
                         f"{GROUP_MULTIPLE} (32, 64, 128, ...)")
    embeddings = value.get("embeddings", True)
    if not isinstance(embeddings, bool):
        raise ValueError(f"embeddings must be true or false, not {embeddings!r}")
    convolutions = value.get("convolutions", default_convolutions(scheme))
    if convolutions not in CONVOLUTIONS:
        raise ValueError(f"convolutions must be one of {', '.join(CONVOLUTIONS)}, not "
                         f"{convolutions!r}")
    return QuantizeSpec(scheme, group_size, embeddings, convolutions)
