"""SentencePiece's ``.model`` file as plain data: the pieces in id order, their scores and kinds, and
the normaliser's settings (:class:`SentencePieceModel`).

The file is a protocol buffer; the ``sentencepiece`` wheel ships its own description of it
(``sentencepiece_model_pb2``, which needs ``protobuf``), so no byte of the format is decoded by hand
here. What encoding does with the data is :mod:`bpe_course.algorithms.sentencepiece_bpe`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ..errors import TokenizerFileError
from ..files import read_bytes_limited

SPACE = "▁"  # U+2581 LOWER ONE EIGHTH BLOCK: SentencePiece's visible space
MAX_MODEL_BYTES = 1 << 28  # 256 MiB: a larger .model is refused unread (LLaMA's is 0.5 MB, Gemma's 4 MB)

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
    treat_whitespace_as_suffix: bool = False  # the dummy ▁ goes at the end of the text, not in front
    unk_surface: str = " \u2047 "  # what decoding writes for <unk> (sentencepiece's default: " ⁇ ")


def read_model(path: str | os.PathLike) -> SentencePieceModel:
    """Read a SentencePiece ``.model`` file with the ``sentencepiece`` package's own description of it.

    A file is refused, naming the file, where ``sentencepiece`` refuses it (an empty or repeated
    piece, no ``<unk>`` or two, a byte piece without ``byte_fallback``) and where it would be read
    differently from ``sentencepiece``: a normaliser or denormaliser table, and a file that is cut
    short (no trainer or normaliser settings: read with their defaults, its whitespace would change).
    ``treat_whitespace_as_suffix`` and ``unk_surface`` are read and followed. The ids of ``<unk>``,
    ``<s>`` and ``</s>`` are found as ``sentencepiece`` finds them: the piece of type unknown, and the
    control pieces named ``trainer_spec.bos_piece`` / ``eos_piece`` (-1 when there is none).
    """
    try:
        from sentencepiece import sentencepiece_model_pb2
    except ImportError as e:  # sentencepiece or protobuf missing
        raise ImportError(f"reading a .model file needs the sentencepiece and protobuf packages "
                          f"(pip install 'bpe-course[interop]'): {e}") from None
    from google.protobuf.message import DecodeError
    proto = sentencepiece_model_pb2.ModelProto()  # type: ignore[attr-defined]  # made at import by protobuf's builder
    data = read_bytes_limited(path, TokenizerFileError, MAX_MODEL_BYTES, "SentencePiece model")  # not /dev/zero
    try:
        proto.ParseFromString(data)
    except DecodeError as e:
        raise TokenizerFileError(f"{path}: not a SentencePiece .model file ({e})") from None
    if not proto.pieces:
        raise TokenizerFileError(f"{path}: a SentencePiece model with no pieces")
    for part in ("trainer_spec", "normalizer_spec"):
        if not proto.HasField(part):
            raise TokenizerFileError(f"{path}: no {part} after its {len(proto.pieces):,} pieces: the file is cut short "
                                     "(sentencepiece's trainer always writes it; read with its defaults, the text's "
                                     "whitespace would be handled otherwise than the model was trained with)")
    trainer, norm = proto.trainer_spec, proto.normalizer_spec
    spec = sentencepiece_model_pb2.TrainerSpec  # type: ignore[attr-defined]  # made at import by protobuf's builder
    if trainer.model_type != spec.BPE:
        raise TokenizerFileError(f"{path}: model_type is {spec.ModelType.Name(trainer.model_type)}, "
                                 "not BPE; only SentencePiece's BPE is rebuilt here")
    if norm.name not in ("identity", "") or norm.precompiled_charsmap:
        raise TokenizerFileError(f"{path}: normalizer '{norm.name}' rewrites characters by a compiled table; "
                                 "only the 'identity' normaliser (Mistral's and LLaMA's) is rebuilt here")
    if proto.HasField("denormalizer_spec") and proto.denormalizer_spec.precompiled_charsmap:
        raise TokenizerFileError(f"{path}: denormalizer_spec '{proto.denormalizer_spec.name}' rewrites decoded text "
                                 "by a compiled table; this rebuild decodes without one")
    for name in ("bos_piece", "eos_piece", "unk_surface"):
        if not isinstance(getattr(trainer, name), str):
            raise TokenizerFileError(f"{path}: trainer_spec.{name} is not UTF-8 text ({getattr(trainer, name)!r})")
    kinds = [KINDS[p.type] for p in proto.pieces]
    pieces = [p.piece for p in proto.pieces]
    unk_id = _check_pieces(path, pieces, kinds, trainer.byte_fallback)
    reserved = {p: i for i, (p, k) in reversed(list(enumerate(zip(pieces, kinds))))
                if k not in ("normal", "user_defined", "unused")}

    def control_id(name: str) -> int:
        """sentencepiece's bos_id() / eos_id(): the control piece of that name, else -1."""
        i = reserved.get(name)
        return i if i is not None and kinds[i] == "control" else -1

    return SentencePieceModel(
        pieces=pieces, scores=[p.score for p in proto.pieces], kinds=kinds,
        add_dummy_prefix=norm.add_dummy_prefix, remove_extra_whitespaces=norm.remove_extra_whitespaces,
        escape_whitespaces=norm.escape_whitespaces, byte_fallback=trainer.byte_fallback,
        unk_id=unk_id, bos_id=control_id(trainer.bos_piece), eos_id=control_id(trainer.eos_piece), source=str(path),
        treat_whitespace_as_suffix=trainer.treat_whitespace_as_suffix, unk_surface=trainer.unk_surface)


def _check_pieces(path: str | os.PathLike, pieces: list[str], kinds: list[str], byte_fallback: bool) -> int:
    """What sentencepiece checks when it loads pieces (model_interface.cc); returns the id of ``<unk>``.

    Normal, user-defined and unused pieces are looked up in one table, the others (control,
    unknown, byte) in another: a string may be in each once.
    """
    seen: dict[tuple[bool, str], int] = {}
    unk_id = None
    for i, (piece, kind) in enumerate(zip(pieces, kinds)):
        if not isinstance(piece, str):  # subtle: protobuf hands over a string field that is not UTF-8 as bytes
            raise TokenizerFileError(f"{path}: piece {i} is not UTF-8 text ({piece[:40]!r})")
        if not piece:
            raise TokenizerFileError(f"{path}: piece {i} is empty (sentencepiece refuses the file)")
        key = (kind in ("normal", "user_defined", "unused"), piece)
        if key in seen:
            raise TokenizerFileError(f"{path}: piece {i} {piece!r} is already piece {seen[key]} (sentencepiece refuses "
                                     "the file)")
        seen[key] = i
        if kind == "unknown":
            if unk_id is not None:
                raise TokenizerFileError(f"{path}: piece {i} {piece!r} is a second unknown piece after piece {unk_id} "
                                         "(sentencepiece refuses the file)")
            unk_id = i
        if kind == "byte":
            if not byte_fallback:
                raise TokenizerFileError(f"{path}: piece {i} {piece!r} is a byte piece but byte_fallback is off "
                                         "(sentencepiece refuses the file)")
            if not re.fullmatch("<0x[0-9A-F]{2}>", piece):
                raise TokenizerFileError(f"{path}: piece {i} {piece!r} is a byte piece not written <0xNN> "
                                         "(sentencepiece refuses the file)")
    if unk_id is None:
        raise TokenizerFileError(f"{path}: no unknown piece (<unk>) among its {len(pieces):,} pieces "
                                 "(sentencepiece refuses the file)")
    return unk_id
