"""torch.nn's own sequence layers, and a 1-D keyword-spotting CNN."""

import torch
from torch import nn

from examples.zoo.weights import randomize_batch_norms


def _sequence(seq: int, width: int, seed: int) -> torch.Tensor:
    return torch.randn(1, seq, width, generator=torch.Generator().manual_seed(seed))


def make_transformer(seq: int = 12, seed: int = 0):
    """nn.Transformer, encoder and decoder, with a causal target mask."""
    class Seq2Seq(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.Transformer(d_model=32, nhead=4, num_encoder_layers=2,
                                              num_decoder_layers=2, dim_feedforward=64,
                                              dropout=0.0, batch_first=True)

        def forward(self, src, tgt):
            mask = nn.Transformer.generate_square_subsequent_mask(tgt.shape[1])
            return self.transformer(src, tgt, tgt_mask=mask, tgt_is_causal=True)

    torch.manual_seed(seed)
    return Seq2Seq().eval(), (_sequence(seq, 32, seed), _sequence(seq - 4, 32, seed + 1))


def make_multihead_attention(seq: int = 10, seed: int = 0):
    class SelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = nn.MultiheadAttention(32, 4, batch_first=True)

        def forward(self, x):
            return self.attn(x, x, x, need_weights=False)[0]

    torch.manual_seed(seed)
    return SelfAttention().eval(), (_sequence(seq, 32, seed),)


def make_recurrent(kind: str = "LSTM", seq: int = 10, seed: int = 0):
    class Recurrent(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = getattr(nn, kind)(16, 32, num_layers=2, batch_first=True)
            self.head = nn.Linear(32, 5)

        def forward(self, x):
            return self.head(self.rnn(x)[0])

    torch.manual_seed(seed)
    return Recurrent().eval(), (_sequence(seq, 16, seed),)


def make_keyword_cnn(frames: int = 49, seed: int = 0):
    """A 1-D CNN over 40 MFCC bins: conv + batch norm + ReLU blocks, max pooling, global
    average pooling and a classifier, as keyword-spotting models are built."""
    def block(cin, cout, k, stride=1, dilation=1):
        return nn.Sequential(nn.Conv1d(cin, cout, k, stride, padding=dilation * (k // 2),
                                       dilation=dilation, bias=False),
                             nn.BatchNorm1d(cout), nn.ReLU())

    torch.manual_seed(seed)
    model = nn.Sequential(block(40, 32, 5, 2), block(32, 32, 3, dilation=2), nn.MaxPool1d(2),
                          block(32, 48, 3), nn.Conv1d(48, 48, 3, padding=1, groups=48),
                          nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(48, 12))
    randomize_batch_norms(model, seed)
    mfcc = torch.randn(1, 40, frames, generator=torch.Generator().manual_seed(seed))
    return model.eval(), (mfcc,)
