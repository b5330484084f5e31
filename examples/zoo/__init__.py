"""Common architectures, randomly initialised, for the family tests and benchmarks.

One factory per model, each returning (module in eval mode, example inputs) as a model
manifest's `factory:` does: torchvision classifiers, transformers' GPT-2 / Llama / BERT /
DistilBERT / ViT / Whisper encoder, timm ViT and DeiT, torch.nn's Transformer,
MultiheadAttention, LSTM and GRU, and a 1-D keyword-spotting CNN. The sizes are small
(few layers, narrow, 64x64 images) so a test builds and checks them in seconds; the
architectures are the libraries' own. Batch norms get non-trivial running statistics, as
a trained model has, so their folding is exercised and outputs do not vanish.
"""
