"""torchvision's classification models, with weights=None, on small images.

torchvision's wheel from PyPI carries compiled operators built against another torch
build; they fail to register beside this project's CPU torch, and torchvision's import
then stops on the meta registrations of those operators (detection ops such as nms,
which no classifier calls). `skip_torchvision_op_registrations()` skips only those registrations; timm and
transformers import torchvision too, so their factories call it first.
"""

import sys
import types

import torch

from examples.zoo.weights import randomize_batch_norms

# Every classifier family the tests cover, smallest variant of each.
MODELS = ("resnet18", "mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0",
          "regnet_x_400mf", "shufflenet_v2_x0_5", "squeezenet1_1", "densenet121",
          "convnext_tiny")


def skip_torchvision_op_registrations() -> None:
    """Makes a later `import torchvision` (by this module, timm or transformers) skip the
    meta registrations of its compiled operators."""
    if "torchvision" not in sys.modules:
        name = "torchvision._meta_registrations"
        sys.modules.setdefault(name, types.ModuleType(name))


def import_torchvision():
    """torchvision, imported without its compiled detection operators' registrations."""
    skip_torchvision_op_registrations()
    import torchvision
    return torchvision


def make_classifier(name: str = "resnet18", size: int = 64, num_classes: int = 10,
                    seed: int = 0):
    """torchvision.models.<name>(weights=None) on one size x size RGB image."""
    models = import_torchvision().models
    torch.manual_seed(seed)
    model = getattr(models, name)(weights=None, num_classes=num_classes)
    randomize_batch_norms(model, seed)
    return model.eval(), (torch.randn(1, 3, size, size),)


def make_vit(size: int = 224, patch: int = 16, layers: int = 12, heads: int = 3,
             dim: int = 192, num_classes: int = 1000, seed: int = 0):
    """torchvision's VisionTransformer (weights=None) on one size x size RGB image; the
    defaults are the ViT-Ti/16 layout (5.7M parameters), which torchvision ships no
    builder for (its smallest, vit_b_16, is 15x larger)."""
    vision_transformer = import_torchvision().models.vision_transformer
    torch.manual_seed(seed)
    model = vision_transformer.VisionTransformer(
        image_size=size, patch_size=patch, num_layers=layers, num_heads=heads,
        hidden_dim=dim, mlp_dim=4 * dim, num_classes=num_classes)
    return model.eval(), (torch.randn(1, 3, size, size),)
