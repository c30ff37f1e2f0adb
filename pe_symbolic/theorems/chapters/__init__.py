"""Claims from the seed articles, one module per article, registered as theorems.

Importing this package registers every chapter's theorems with
:mod:`pe_symbolic.theorems` (the registry imports it on first use, so ``pe-derive list``
shows them). The derivation scripts in ``derivations/`` walk through each article in order
and print the proofs.

=====================  ====================================================================
module                 article
=====================  ====================================================================
:mod:`.kernes`         Kernes, "Master Positional Encoding: Part I" (seed 000)
:mod:`.video`          "Positional embeddings in transformers EXPLAINED" (seed 001)
:mod:`.denk`           Denk's derivation, Kazemnejad's criteria, tensor2tensor (seed 002)
:mod:`.notes`          positional-embedding notes: Shaw, RoPE, learned tables (seed 003)
:mod:`.sphere`         the "thinking out loud" sphere post, and ALiBi (seed 004)
:mod:`.literature`     what the literature claims: Men, Liu, Barbero, ComRoPE vs LieRE
:mod:`.relative`       which research encodings are relative (is_relative), FoPE's padding
:mod:`.variants`       RoPE variants engines ship: FoPE, openPangu, Bailing, sub-module pairings,
                       ChatGLM's 2-D positions, multi-factor linear, llama.cpp's ext_factor
=====================  ====================================================================

Claims that only numbers can check (such as "no two positions below N share an encoding")
are not theorems: they are :class:`~pe_symbolic.theorems.chapters.certificates.Certificate` s, each
labelled with the range it covers and never rendered as a proof.

"""

from __future__ import annotations

# Import order is registration order (what `pe-derive list` shows): the order of the seeds.
from . import certificates  # noqa: I001
from . import kernes
from . import video
from . import denk
from . import notes
from . import sphere
from . import literature
from . import relative
from . import variants

__all__ = ["CHAPTER_IDS", "LITERATURE_IDS", "RELATIVE_IDS", "certificates", "denk", "kernes", "literature", "notes",
           "relative", "sphere", "variants", "video", "VARIANT_IDS"]

#: The theorem ids each chapter registers, in the order the article meets them.
CHAPTER_IDS: dict[str, tuple[str, ...]] = {
    "kernes": kernes.IDS,
    "video": video.IDS,
    "denk_kazemnejad": denk.IDS,
    "notes": notes.IDS,
    "sphere": sphere.IDS,
}

#: The "What the literature claims" chapter (``derivations/literature.py``): kept apart from
#: :data:`CHAPTER_IDS` because two of its claims are honest negatives (registered
#: ``expect="refuted"``), which the seed chapters never have.
LITERATURE_IDS: tuple[str, ...] = literature.IDS

#: "Which encodings are relative" (:mod:`.relative`, issue 34): four honest negatives.
RELATIVE_IDS: tuple[str, ...] = relative.IDS

#: The variants engines ship (:mod:`.variants`, issue 34).
VARIANT_IDS: tuple[str, ...] = variants.IDS
