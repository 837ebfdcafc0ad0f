#!/usr/bin/python3
"""Write a tiny llama-architecture GGUF with random weights, for testing serve-bench against a
real llama-server (src/measure/serve/llama_server_test.cc). No package ships a model; this one
takes llama.cpp's own test vocabulary (models/ggml-vocab-llama-spm.gguf, SentencePiece, 32,000
tokens) and two small layers, a few MB, so the server loads it in a blink and generates hundreds
of tokens per second on one core. The answers are noise; the timings and token counts are real.

usage: make_tiny_gguf.py LLAMA_CPP_DIR OUT.gguf
Needs numpy (Debian's python3-numpy: run with /usr/bin/python3) and the tree's gguf-py.
"""
import os
import sys

import numpy as np


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    tree, out = sys.argv[1], sys.argv[2]
    sys.path.insert(0, os.path.join(tree, "gguf-py"))
    import gguf  # noqa: E402  (the tree's own copy matches its llama-server)

    vocab = gguf.GGUFReader(os.path.join(tree, "models", "ggml-vocab-llama-spm.gguf"))

    def field(name):
        f = vocab.fields.get(name)
        if f is None:
            return None
        if f.types and f.types[0] == gguf.GGUFValueType.ARRAY:
            sub = f.types[1] if len(f.types) > 1 else None
            if sub == gguf.GGUFValueType.STRING:
                return [bytes(f.parts[i]).decode("utf-8", "replace") for i in f.data]
            return [f.parts[i][0].item() for i in f.data]
        if f.types[0] == gguf.GGUFValueType.STRING:
            return bytes(f.parts[f.data[0]]).decode("utf-8", "replace")
        return f.parts[f.data[0]][0].item()

    tokens = field("tokenizer.ggml.tokens")
    scores = field("tokenizer.ggml.scores")
    types = field("tokenizer.ggml.token_type")
    n_vocab, n_embd, n_ff, n_head, n_layer, n_ctx = len(tokens), 32, 64, 4, 2, 4096

    w = gguf.GGUFWriter(out, "llama")
    w.add_name("dossier-tiny-random")
    w.add_context_length(n_ctx)
    w.add_embedding_length(n_embd)
    w.add_block_count(n_layer)
    w.add_feed_forward_length(n_ff)
    w.add_head_count(n_head)
    w.add_head_count_kv(n_head)
    w.add_rope_dimension_count(n_embd // n_head)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    for key, add in (("tokenizer.ggml.bos_token_id", w.add_bos_token_id),
                     ("tokenizer.ggml.eos_token_id", w.add_eos_token_id),
                     ("tokenizer.ggml.unknown_token_id", w.add_unk_token_id)):
        v = field(key)
        if v is not None:
            add(v)
    # A plain template, so /v1/chat/completions has one to apply.
    w.add_chat_template(
        "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}\n{% endfor %}"
        "{% if add_generation_prompt %}<|assistant|>\n{% endif %}")

    rng = np.random.default_rng(1234)

    def t(name, *shape):
        w.add_tensor(name, (rng.standard_normal(shape) * 0.05).astype(np.float32))

    def ones(name, n):
        w.add_tensor(name, np.ones(n, dtype=np.float32))

    t("token_embd.weight", n_vocab, n_embd)
    ones("output_norm.weight", n_embd)
    t("output.weight", n_vocab, n_embd)
    for i in range(n_layer):
        ones(f"blk.{i}.attn_norm.weight", n_embd)
        t(f"blk.{i}.attn_q.weight", n_embd, n_embd)
        t(f"blk.{i}.attn_k.weight", n_embd, n_embd)
        t(f"blk.{i}.attn_v.weight", n_embd, n_embd)
        t(f"blk.{i}.attn_output.weight", n_embd, n_embd)
        ones(f"blk.{i}.ffn_norm.weight", n_embd)
        t(f"blk.{i}.ffn_gate.weight", n_ff, n_embd)
        t(f"blk.{i}.ffn_up.weight", n_ff, n_embd)
        t(f"blk.{i}.ffn_down.weight", n_embd, n_ff)

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    main()
