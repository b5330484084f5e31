"""Small torch.nn models around operators the other families do not reach: ConvNeXt-V2's
GRN (x.norm over the spatial dims: linalg_vector_norm), a spatial transformer
(F.affine_grid + F.grid_sample: grid_sampler_2d) and a Conv3d video classifier (3-D
convolution, pooling and upsampling). Tiny and seeded: each builds in seconds."""

import torch
from torch import nn
from torch.nn import functional as F

from examples.zoo.weights import randomize_batch_norms


def _image(shape: tuple, seed: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


class GlobalResponseNorm(nn.Module):
    """ConvNeXt-V2's GRN on channels-last x [N, H, W, C]: each channel's L2 norm over the
    image, divided by the mean of those norms, rescales x (plus gamma, beta, residual)."""

    def __init__(self, dim: int, seed: int):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        # Random, not the zeros it starts from in training, so the norm shows in the output.
        self.gamma = nn.Parameter(torch.randn(1, 1, 1, dim, generator=g) * 0.5)
        self.beta = nn.Parameter(torch.randn(1, 1, 1, dim, generator=g) * 0.1)

    def forward(self, x):
        gx = x.norm(p=2, dim=(1, 2), keepdim=True)
        nx = gx / (gx.mean(dim=-1, keepdim=True) + 1e-6)
        return self.gamma * (x * nx) + self.beta + x


class ConvNeXtV2Block(nn.Module):
    """Depthwise 7x7, LayerNorm, pointwise MLP with GELU and GRN, residual."""

    def __init__(self, dim: int, seed: int):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pwconv1 = nn.Linear(dim, 4 * dim)
        self.grn = GlobalResponseNorm(4 * dim, seed)
        self.pwconv2 = nn.Linear(4 * dim, dim)

    def forward(self, x):
        y = self.dwconv(x).permute(0, 2, 3, 1)
        y = self.pwconv2(self.grn(F.gelu(self.pwconv1(self.norm(y)))))
        return x + y.permute(0, 3, 1, 2)


def make_convnext_v2(size: int = 32, seed: int = 0):
    """A two-stage ConvNeXt-V2: patchify stem, blocks, downsampling, pooled head."""
    torch.manual_seed(seed)
    model = nn.Sequential(
        nn.Conv2d(3, 16, 4, stride=4), ConvNeXtV2Block(16, seed),
        nn.Conv2d(16, 32, 2, stride=2), ConvNeXtV2Block(32, seed + 1),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.LayerNorm(32), nn.Linear(32, 10))
    return model.eval(), (_image((1, 3, size, size), seed),)


class SpatialTransformer(nn.Module):
    """A localization net predicts an affine transform per image; the image is resampled
    on its grid (bilinear, zero padding), then classified. A second, nearest-neighbour
    sample with reflection padding joins it, as some transformers resample their masks."""

    def __init__(self):
        super().__init__()
        self.localization = nn.Sequential(
            nn.Conv2d(1, 8, 7), nn.MaxPool2d(2), nn.ReLU(),
            nn.Conv2d(8, 10, 5), nn.MaxPool2d(2), nn.ReLU(), nn.Flatten(),
            nn.Linear(10 * 3 * 3, 32), nn.ReLU(), nn.Linear(32, 6))
        # Near the identity, as a trained one starts, so the grid stays mostly in the image.
        with torch.no_grad():
            self.localization[-1].weight.mul_(0.1)
            self.localization[-1].bias.copy_(torch.tensor([1.0, 0.1, 0.05, -0.1, 0.9, 0.0]))
        self.classifier = nn.Sequential(
            nn.Conv2d(1, 10, 5), nn.MaxPool2d(2), nn.ReLU(), nn.Conv2d(10, 20, 5),
            nn.MaxPool2d(2), nn.ReLU(), nn.Flatten(), nn.Linear(20 * 4 * 4, 10))

    def forward(self, x):
        theta = self.localization(x).view(-1, 2, 3)
        grid = F.affine_grid(theta, list(x.shape), align_corners=False)
        warped = F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros",
                               align_corners=False)
        mask = F.grid_sample(x, grid, mode="nearest", padding_mode="reflection",
                             align_corners=True)
        return self.classifier(warped + 0.5 * mask)


def make_spatial_transformer(size: int = 28, seed: int = 0):
    torch.manual_seed(seed)
    return SpatialTransformer().eval(), (_image((1, 1, size, size), seed),)


class VideoConv3d(nn.Module):
    """Conv3d + batch norm + ReLU blocks over (frames, height, width), 3-D max and
    average pooling, a grouped strided Conv3d, and a trilinear / nearest upsampled skip."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv3d(3, 8, 3, padding=1, bias=False),
                                  nn.BatchNorm3d(8), nn.ReLU())
        self.pool = nn.MaxPool3d(2)
        self.block = nn.Sequential(
            nn.Conv3d(8, 16, (3, 3, 3), stride=(1, 2, 2), padding=(1, 2, 2), dilation=(1, 2, 2),
                      groups=2), nn.ReLU())
        self.avg = nn.AvgPool3d((1, 2, 2))
        self.head = nn.Linear(16 + 8, 5)

    def forward(self, x):
        x = self.pool(self.stem(x))                                   # [N, 8, 4, 8, 8]
        y = self.avg(self.block(x))                                   # [N, 16, 4, 2, 2]
        up = F.interpolate(y, size=(4, 4, 4), mode="trilinear", align_corners=False)
        near = F.interpolate(x, scale_factor=0.5, mode="nearest")      # [N, 8, 2, 4, 4]
        features = torch.cat([up.mean(dim=(2, 3, 4)), near.mean(dim=(2, 3, 4))], dim=1)
        return self.head(features)


def make_video_conv3d(frames: int = 8, size: int = 16, seed: int = 0):
    torch.manual_seed(seed)
    model = randomize_batch_norms(VideoConv3d(), seed)
    return model.eval(), (_image((1, 3, frames, size, size), seed),)
