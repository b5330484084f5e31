"""transformers' GPT-2, Llama, BERT, DistilBERT, ViT and Whisper encoder, tiny configs,
with their default (SDPA) attention. Each returns the model's main tensor output only."""

import torch
from torch import nn

from examples.zoo.torchvision_models import skip_torchvision_op_registrations

VOCAB = 256
skip_torchvision_op_registrations()   # transformers imports torchvision when installed


class _Logits(nn.Module):
    """model(input) -> the output's first tensor (logits or last hidden state)."""

    def __init__(self, model: nn.Module, key: str):
        super().__init__()
        self.model, self.key = model, key

    def forward(self, x):
        return getattr(self.model(x), self.key)


def _tokens(seq: int, seed: int) -> torch.Tensor:
    return torch.randint(0, VOCAB, (1, seq), generator=torch.Generator().manual_seed(seed))


def make_gpt2(seq: int = 16, seed: int = 0):
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(seed)
    config = GPT2Config(vocab_size=VOCAB, n_positions=64, n_embd=64, n_layer=2, n_head=4)
    return _Logits(GPT2LMHeadModel(config), "logits").eval(), (_tokens(seq, seed),)


def make_llama(seq: int = 16, seed: int = 0):
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=VOCAB, hidden_size=64, intermediate_size=128,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=64)
    return _Logits(LlamaForCausalLM(config), "logits").eval(), (_tokens(seq, seed),)


def make_bert(seq: int = 16, seed: int = 0):
    from transformers import BertConfig, BertModel
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2,
                        num_attention_heads=4, intermediate_size=128,
                        max_position_embeddings=64)
    return _Logits(BertModel(config, add_pooling_layer=False),
                   "last_hidden_state").eval(), (_tokens(seq, seed),)


def make_distilbert(seq: int = 16, seed: int = 0):
    from transformers import DistilBertConfig, DistilBertModel
    torch.manual_seed(seed)
    config = DistilBertConfig(vocab_size=VOCAB, dim=64, n_layers=2, n_heads=4, hidden_dim=128,
                              max_position_embeddings=64)
    return _Logits(DistilBertModel(config), "last_hidden_state").eval(), (_tokens(seq, seed),)


def make_vit(size: int = 32, seed: int = 0):
    from transformers import ViTConfig, ViTModel
    torch.manual_seed(seed)
    config = ViTConfig(image_size=size, patch_size=8, hidden_size=64, num_hidden_layers=2,
                       num_attention_heads=4, intermediate_size=128)
    image = torch.randn(1, 3, size, size, generator=torch.Generator().manual_seed(seed))
    return _Logits(ViTModel(config, add_pooling_layer=False),
                   "last_hidden_state").eval(), (image,)


def make_whisper_encoder(frames: int = 64, seed: int = 0):
    from transformers import WhisperConfig
    from transformers.models.whisper.modeling_whisper import WhisperEncoder
    torch.manual_seed(seed)
    config = WhisperConfig(num_mel_bins=16, d_model=64, encoder_layers=2,
                           encoder_attention_heads=4, encoder_ffn_dim=128,
                           max_source_positions=frames // 2)
    mel = torch.randn(1, 16, frames, generator=torch.Generator().manual_seed(seed))
    return _Logits(WhisperEncoder(config), "last_hidden_state").eval(), (mel,)
