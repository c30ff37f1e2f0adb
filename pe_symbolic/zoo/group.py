"""Work shared, not repeated: configs grouped by what their RoPE cards are computed from.

Fine-tunes of one base differ in their name, vocabulary, special tokens, dropout and the
like, never in what the RoPE readers, the engines' recipes or the audit read. A card's RoPE
part is computed from :func:`rope_inputs` -- the config without the keys of
:data:`NOT_ROPE` (at every depth: ``text_config`` too) -- and the dtype the model runs in
(:func:`model_dtype`); configs with equal inputs share one computation, and their cards
name the same :func:`signature` (``group``).

The list is deliberately a list of keys known *not* to matter (a key missing from it costs
only a repeated computation; a key on it that mattered would give a fine-tune its base's
card). ``tests/test_zoo.py`` checks that no reader, engine recipe or audit module names a key
of the list (nor an HF ``attribute_map`` aliases one to a key that matters), and that a card
computed from a config with every such key set equals the card of its inputs.

>>> cfg = {"model_type": "llama", "rope_theta": 5e5, "vocab_size": 128256, "torch_dtype": "bfloat16",
...        "_name_or_path": "me/my-fine-tune"}
>>> rope_inputs(cfg)
{'model_type': 'llama', 'rope_theta': 500000.0}
>>> model_dtype(cfg), model_dtype({"dtype": "float32"}), model_dtype({})
(('bfloat16', 'torch_dtype'), ('float32', 'dtype'), ('bfloat16', 'not said: bfloat16 assumed'))
>>> signature(cfg, "bfloat16") == signature({**cfg, "vocab_size": 151936, "_name_or_path": "x"}, "bfloat16")
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from .corpus import canonical_json

__all__ = ["DTYPE_KEYS", "NOT_ROPE", "model_dtype", "rope_inputs", "signature"]

#: Keys no RoPE reader, engine recipe or audit reads: names, vocabulary and tokens, the
#: feed-forward and the norms, dropout, initialisation, quantization, labels, loading hints.
NOT_ROPE: frozenset[str] = frozenset({
    # who and what made the file
    "_name_or_path", "architectures", "auto_map", "transformers_version", "_commit_hash", "model_name",
    # vocabulary and special tokens
    "vocab_size", "bos_token_id", "eos_token_id", "pad_token_id", "sep_token_id", "decoder_start_token_id",
    "tokenizer_class", "chat_template", "bad_words_ids",
    # feed-forward, norms, activations, experts
    "intermediate_size", "moe_intermediate_size", "hidden_act", "rms_norm_eps", "layer_norm_eps",
    "layer_norm_epsilon", "mlp_bias", "num_local_experts", "num_experts", "num_experts_per_tok",
    "router_aux_loss_coef", "output_router_logits", "router_jitter_noise",
    # training and loading
    "attention_dropout", "hidden_dropout", "dropout", "embd_pdrop", "resid_pdrop", "initializer_range",
    "pretraining_tp", "use_cache", "tie_word_embeddings", "quantization_config", "return_dict",
    "output_attentions", "output_hidden_states", "torchscript", "use_bfloat16", "pruned_heads",
    # heads for other tasks
    "id2label", "label2id", "finetuning_task", "problem_type", "task_specific_params", "num_labels",
})

#: Where a config says its dtype (transformers 5 writes ``dtype``; 4.x ``torch_dtype``); read by
#: :func:`model_dtype` and left out of :func:`rope_inputs` (the dtype is passed on by itself).
DTYPE_KEYS = ("dtype", "torch_dtype")
#: The dtypes a card's bound is computed in; any other (``"auto"``, a quantized type) reads as the default.
CARD_DTYPES = ("bfloat16", "float16", "float32", "float64")
DEFAULT_DTYPE = "bfloat16"
_DROPPED = NOT_ROPE | set(DTYPE_KEYS)


def rope_inputs(config: Mapping[str, Any]) -> Any:
    """``config`` without the keys of :data:`~pe_symbolic.zoo.group.NOT_ROPE` and ``DTYPE_KEYS`` (``dtype``,
    ``torch_dtype``), at every depth (a
    new object; the config is not changed)."""
    if isinstance(config, Mapping):
        return {k: rope_inputs(v) for k, v in config.items() if k not in _DROPPED}
    if isinstance(config, list):
        return [rope_inputs(v) for v in config]
    return config


def model_dtype(config: Mapping[str, Any]) -> tuple[str, str]:
    """(the dtype the model runs in, where that was read): the config's ``dtype`` / ``torch_dtype``
    (the text part's for a composite), ``"bfloat16"`` when it says none, or one not in
    ``bfloat16, float16, float32, float64`` (said so)."""
    for where in (config, config.get("text_config")):
        if not isinstance(where, Mapping):
            continue
        for key in DTYPE_KEYS:
            value = where.get(key)
            if value is None:
                continue
            label = key if where is config else f"text_config.{key}"
            text = str(value).removeprefix("torch.")
            if text in CARD_DTYPES:
                return text, label
            return DEFAULT_DTYPE, f"{label} = {str(value)!r} is not one of {', '.join(CARD_DTYPES)}: " \
                                  f"{DEFAULT_DTYPE} assumed"
    return DEFAULT_DTYPE, f"not said: {DEFAULT_DTYPE} assumed"


def signature(config: Mapping[str, Any], dtype: str) -> str:
    """The group of a config: the first 12 hex digits of the SHA-256 of its :func:`rope_inputs` and
    the dtype it runs in."""
    text = canonical_json({"inputs": rope_inputs(config), "dtype": dtype})
    return hashlib.sha256(text.encode()).hexdigest()[:12]
