"""timm's ViT and DeiT, pretrained=False, small configs on 32x32 images."""

import torch

from examples.zoo.torchvision_models import import_torchvision


def make_timm(name: str = "vit_tiny_patch16_224", size: int = 32, seed: int = 0):
    import_torchvision()  # timm imports torchvision
    import timm
    torch.manual_seed(seed)
    model = timm.create_model(name, pretrained=False, img_size=size, patch_size=8, depth=2,
                              num_classes=10)
    image = torch.randn(1, 3, size, size, generator=torch.Generator().manual_seed(seed))
    return model.eval(), (image,)
