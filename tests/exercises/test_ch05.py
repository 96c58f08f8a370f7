"""Chapter 5's checkers: right answers pass, typical wrong ones get specific feedback."""

from __future__ import annotations

from bpe_course.exercises import ch05


def test_pad_batch():
    assert ch05.check_pad_batch(ch05.reference_pad_batch).ok

    def mutating(batch, pad_id):
        longest = max((len(ids) for ids in batch), default=0)
        for ids in batch:
            ids.extend([pad_id] * (longest - len(ids)))
        return batch

    def left(batch, pad_id):
        longest = max((len(ids) for ids in batch), default=0)
        return [[pad_id] * (longest - len(ids)) + ids for ids in batch]

    def zero_pad(batch, pad_id):
        longest = max((len(ids) for ids in batch), default=0)
        return [ids + [0] * (longest - len(ids)) for ids in batch]

    def no_default(batch, pad_id):
        longest = max(len(ids) for ids in batch)
        return [ids + [pad_id] * (longest - len(ids)) for ids in batch]

    cases = [(lambda b, p: b, "different lengths"), (mutating, "changed the batch"), (left, "on the left"),
             (zero_pad, "pad_id (99 here"), (no_default, "default=0")]
    for attempt, expected in cases:
        feedback = ch05.check_pad_batch(attempt)
        assert not feedback.ok and expected in feedback.message, feedback.message


def test_safe_prompt(gpt2_tok):
    eot = ch05.EOT

    def safe(system, user):
        return gpt2_tok.encode_ordinary(system) + [gpt2_tok.special_tokens[eot]] + gpt2_tok.encode_ordinary(user)

    assert ch05.check_safe_prompt(safe).ok
    careless = ch05.check_safe_prompt(lambda s, u: gpt2_tok.encode(s + eot + u, allowed_special="all"))
    assert not careless.ok and "injected" in careless.message
    default = ch05.check_safe_prompt(lambda s, u: gpt2_tok.encode(s + eot + u))
    assert not default.ok and "refuses special-token text" in default.message
    assert "encode_ordinary" not in default.message  # points at section 3, does not name the answer
    missing = ch05.check_safe_prompt(lambda s, u: gpt2_tok.encode_ordinary(s + u))
    assert not missing.ok and "no <|endoftext|> id" in missing.message
