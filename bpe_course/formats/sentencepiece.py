"""SentencePiece's ``.model`` file as plain data: the pieces in id order, their scores and kinds, and
the normaliser's settings (:class:`SentencePieceModel`).

The file is a protocol buffer; the ``sentencepiece`` wheel ships its own description of it
(``sentencepiece_model_pb2``, which needs ``protobuf``), so no byte of the format is decoded by hand
here. What encoding does with the data is :mod:`bpe_course.algorithms.sentencepiece_bpe`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..errors import TokenizerFileError

SPACE = "▁"  # U+2581 LOWER ONE EIGHTH BLOCK: SentencePiece's visible space

# sentencepiece_model.proto's ModelProto.SentencePiece.Type, by number.
KINDS = {1: "normal", 2: "unknown", 3: "control", 4: "user_defined", 5: "unused", 6: "byte"}


@dataclass
class SentencePieceModel:
    """What encoding needs from a ``.model`` file: the pieces in id order and the normaliser's settings."""
    pieces: list[str]
    scores: list[float]
    kinds: list[str]
    add_dummy_prefix: bool = True
    remove_extra_whitespaces: bool = False
    escape_whitespaces: bool = True
    byte_fallback: bool = False
    unk_id: int = 0
    bos_id: int = 1
    eos_id: int = 2
    source: str = field(default="(in memory)")


def read_model(path: str | os.PathLike) -> SentencePieceModel:
    """Read a SentencePiece ``.model`` file with the ``sentencepiece`` package's own description of it."""
    try:
        from sentencepiece import sentencepiece_model_pb2
    except ImportError as e:  # sentencepiece or protobuf missing
        raise ImportError(f"reading a .model file needs the sentencepiece and protobuf packages "
                          f"(pip install 'bpe-course[interop]'): {e}") from None
    from google.protobuf.message import DecodeError
    proto = sentencepiece_model_pb2.ModelProto()  # type: ignore[attr-defined]  # made at import by protobuf's builder
    try:
        with open(path, "rb") as f:
            proto.ParseFromString(f.read())
    except DecodeError as e:
        raise TokenizerFileError(f"{path}: not a SentencePiece .model file ({e})") from None
    if not proto.pieces:
        raise TokenizerFileError(f"{path}: a SentencePiece model with no pieces")
    trainer, norm = proto.trainer_spec, proto.normalizer_spec
    spec = sentencepiece_model_pb2.TrainerSpec  # type: ignore[attr-defined]  # made at import by protobuf's builder
    if trainer.model_type != spec.BPE:
        raise TokenizerFileError(f"{path}: model_type is {spec.ModelType.Name(trainer.model_type)}, "
                                 "not BPE; only SentencePiece's BPE is rebuilt here")
    if norm.name not in ("identity", "") or norm.precompiled_charsmap:
        raise TokenizerFileError(f"{path}: normalizer '{norm.name}' rewrites characters by a compiled table; "
                                 "only the 'identity' normaliser (Mistral's and LLaMA's) is rebuilt here")
    return SentencePieceModel(
        pieces=[p.piece for p in proto.pieces], scores=[p.score for p in proto.pieces],
        kinds=[KINDS[p.type] for p in proto.pieces],
        add_dummy_prefix=norm.add_dummy_prefix, remove_extra_whitespaces=norm.remove_extra_whitespaces,
        escape_whitespaces=norm.escape_whitespaces, byte_fallback=trainer.byte_fallback,
        unk_id=trainer.unk_id, bos_id=trainer.bos_id, eos_id=trainer.eos_id, source=str(path))
