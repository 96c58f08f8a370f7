"""The words that state a conclusion come from the data (issue 32), in the spirit of test_prose_numbers.

``test_prose_numbers`` holds every figure the prose states to a computed one. It cannot see the words
around the figure: "the hand-picked D is slightly ahead: the literature's ranking is not a law", typed
beside a computed 0.0023 whose interval says nothing of the kind, or "for most languages" beside a
count that is a minority. This test reads the sentences a chapter *composes* and fails on a
comparative word that was typed rather than chosen by the difference yardstick.

What is read
    Every code cell of every stored notebook. A composed sentence is the argument of a ``print(...)``
    that is an f-string or a concatenation, and, in a cell that calls ``Markdown(...)``, every maximal
    string expression (f-string, concatenation, conditional expression) anywhere in the cell: chapters
    build sentences in a list first and join them into ``Markdown`` later. Each is flattened into
    literal text and computed values (``{...}``, a call, a name); a conditional expression contributes
    both branches; sentences are cut at ``. ; ! ?`` and line breaks in the literal text.
What fails
    In a sentence that holds a computed value, literal text that
    (A) holds a word that states a conclusion -- ahead, behind, better, worse, best, lowest, fewest,
        cheaper, beats, wins, gains, helps, clearly, slightly, within noise, not a law, most <plurals>,
        too small, ... (:data:`CONCLUSION`), or
    (B) puts a sign word right after a computed value -- ``{x:.1%} fewer``, ``{d:.4f} bits per byte more``
        (:data:`SIGN_AFTER_VALUE`), which is wrong as soon as the value changes sign.
What passes
    The same words when the yardstick chose them: the text is a branch of a conditional expression, or
    of an ``if`` statement, whose test asks a ``Difference`` or an ``Interval`` (``.clear``,
    ``.direction``, ``.beyond()``, ``.inside()``, ``.low``, ``.high``) or ``how_many()`` -- or asks a name
    the cell computed from them (``gainers = [n for n, d in ds.items() if d.direction == "lower"]``).
    Words a ``Difference`` gives (``.verdict``, ``.word()``, ``.sentence()``) are values, not text. A word
    chosen by a bare comparison of two numbers (``'gains' if a < b else 'loses'``) fails, with its own
    message: "chosen by a point estimate's sign".
Exemptions
    An exact fact is no estimate: "the pair counted first wins" describes a rule, "a window holds 3
    articles" a division. Such sentences are listed in :data:`EXEMPT` by notebook, word and a fragment of
    the sentence, each with its reason; an entry no sentence needs any more fails, so the list stays small.

Out of reach: prose typed in markdown cells (it holds no computed value; a typed figure there is
test_prose_numbers' business), and whether a yardstick-chosen word is the *right* one.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

# (A) words that state a conclusion about two settings or a count ("shortest path", "a shortest cut" name an
# algorithm and what it finds, not a ranking)
CONCLUSION = re.compile(
    r"\b(ahead|behind|better|worse|best|worst|lowest|highest|shortest(?! (?:path|cuts?)\b)|fewest|beats?|wins?|"
    r"outperforms?|superior|inferior|cheaper|costlier|dearer|majority|minority|most (?!of\b)[a-z]+s|no better|"
    r"not a law|within noise|gains?|loses?|helps?|hurts?|clearly|slightly|significantly|small enough|too small|confirms?|improves?|"
    r"moves most|trails most|pays|lowers)\b"
    r"|\bthe same(?= at\b|\s*[:;,.)\u2014]|$)", re.I)  # "the same at 0.7", "is the same." (not "the same text")
# (B) a sign word right after a computed value (up to three words between)
SIGN_AFTER_VALUE = re.compile(r"^\s*(?:[%×)]\s*)?(?:[\w'-]+\s+){0,3}?(fewer|more|less|lower|higher|smaller|larger)\b",
                              re.I)
YARDSTICK = {"clear", "direction", "beyond", "inside", "word", "verdict", "sentence", "how_many", "low", "high"}

# (notebook stem, the word as found, a fragment of the sentence) -> why it is not a conclusion drawn from noise
EXEMPT: dict[tuple[str, str, str], str] = {
    ("06_vocabulary_size", "help", "other help topics"): "'help topics' names python_docs' text, and 'help it less' "
    "is a hedged reading of the measured curve, not a comparison of two settings",
    ("06_vocabulary_size", "loses", "the vocabulary loses"): "an exact count: the merges one deterministic training "
    "run drops when min_frequency rises",
    ("06_vocabulary_size", "more", "the vocabulary loses"): "the tokens fewer merges cost, each setting trained once "
    "and measured on the whole held-out text; outside issue 32's chapters, left to its owner",
    ("08_regex_pretokenization", "fewest", "On this held-out text"): "a description qualified as 'on this held-out "
    "text'; chapter 08 is outside issue 32's chapters, left to its owner",
    ("10_gpt4_cl100k", "fewer", "fewer / {…} more"): "named pretrained tokenizers counted on whole corpora: the sign "
    "of a count over that text, not of a sample; outside issue 32's chapters",
    ("10_gpt4_cl100k", "more", "fewer / {…} more"): "the other branch of the same count's sign",
    ("11_making_training_fast", "more", "characters or more"): "a threshold's definition (PARALLEL_MIN_CHARS "
    "characters or more), not a comparison",
    ("13_token_tax", "lowers", "lowers the ratio for"): "a count of per-language verdicts, each one "
    "d.direction == 'lower' of a Difference: the count printed beside it carries the result, down to 0",
    ("13_token_tax", "shortest", "Tekken's tokens are shortest"): "the extreme of one tokenizer's bytes per token "
    "over the whole declaration (all 30 articles): a description of that text, not two settings compared",
    ("20_what_a_merge_list_reveals", "the same", "is the same at every T read"): "exact: the order of the inferred "
    "shares, a sequence of names, equals the one at every other number of merges read (string equality, no estimate)",
    ("17_beyond_greedy_bpe", "the same", "all three save the same"): "exact: every tie rule keeps a shortest cut, so "
    "all three cut the text into the same number of tokens",
    ("90_appendix_tutorials_checked", "the same", "the same:"): "an exact equality of two id lists, printed as True or "
    "False beside it",
    ("90_appendix_tutorials_checked", "best", "stop when the best pair occurs only once"): "a stop rule's "
    "description: the pair with the highest count",
    ("90_appendix_tutorials_checked", "lowest", "*lowest* comes out as"): "'lowest' is the word the write-up "
    "encodes, quoted",
    ("90_appendix_tutorials_checked", "wins", "the pair counted first wins"): "the write-up's tie rule, exact",
    ("90_appendix_tutorials_checked", "more", "of them more tokens"): "an exact count over every distinct word of "
    "the stand-in: no sample",
    ("90_appendix_tutorials_checked", "lose", "lose their indentation"): "an exact count of lines whose whitespace "
    "the write-up's encoder drops",
    ("91_appendix_training_at_scale", "more", "times or more"): "a threshold's definition (QUEUE_FLOOR times or "
    "more), not a comparison",
}


@dataclass
class Piece:
    kind: str  # "text" or "value"
    text: str = ""
    chosen: str = ""  # "": typed; "yardstick": chosen by the yardstick; "sign": chosen by a bare comparison


@dataclass(frozen=True)
class Finding:
    notebook: str
    cell: int
    word: str
    how: str
    sentence: str

    def __str__(self) -> str:
        return f"{self.notebook} cell {self.cell}: {self.word!r} ({self.how})\n    in: {self.sentence}"


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _asks(node: ast.AST, derived: set[str]) -> bool:
    """Does ``node`` ask the yardstick, directly or through a name computed from it?"""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr in YARDSTICK:
            return True
        if isinstance(sub, ast.Name) and (sub.id in derived or sub.id == "how_many"):
            return True
    return False


def derived_names(tree: ast.AST, known: set[str] = frozenset()) -> set[str]:
    """Names a cell computes from the yardstick (to a fixed point: from those names too), beyond ``known``, the
    names earlier cells of the notebook computed so."""
    derived: set[str] = set(known)
    while True:
        before = len(derived)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if _asks(node.value, derived):
                    derived |= set().union(*(_names(t) for t in targets))
            elif isinstance(node, (ast.For, ast.comprehension)) and _asks(node.iter, derived):
                derived |= _names(node.target)
        if len(derived) == before:
            return derived


def _if_choices(tree: ast.AST, derived: set[str]) -> dict[int, str]:
    """For every node inside an ``if`` statement's branches, or inside a loop or comprehension that runs over
    what the yardstick chose (``for n, size in ties``): how its text was chosen."""
    chosen: dict[int, str] = {}

    def mark(nodes: list[ast.AST], how: str) -> None:
        for node in nodes:
            for sub in ast.walk(node):
                if chosen.get(id(sub)) != "yardstick":
                    chosen[id(sub)] = how

    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            how = "yardstick" if _asks(node.test, derived) else "sign"
            mark([*node.body, *node.orelse], how)
        elif isinstance(node, ast.For) and _asks(node.iter, derived):
            mark(node.body, "yardstick")
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)) and any(
                _asks(g.iter, derived) or any(_asks(test, derived) for test in g.ifs) for g in node.generators):
            mark([node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt], "yardstick")
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) in ("word", "sentence"):
            mark(node.args, "yardstick")  # d.word(f"...fewest...", ...): the Difference picks one of them
    return chosen


def flatten(node: ast.AST, derived: set[str], chosen: str = "") -> list[Piece]:
    """A composed string as literal text and computed values, in order."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [Piece("text", node.value, chosen)]
    if isinstance(node, ast.JoinedStr):
        out: list[Piece] = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                out += flatten(part, derived, chosen)
            elif isinstance(part, ast.FormattedValue) and isinstance(part.value, (ast.IfExp, ast.Constant)):
                out += flatten(part.value, derived, chosen)  # f"{'fewer' if a < b else 'more'}" holds words
            else:
                out.append(Piece("value"))
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return flatten(node.left, derived, chosen) + flatten(node.right, derived, chosen)
    if isinstance(node, ast.IfExp):
        how = "yardstick" if _asks(node.test, derived) or chosen == "yardstick" else "sign"
        return flatten(node.body, derived, how) + [Piece("text", " / ", how)] + flatten(node.orelse, derived, how)
    return [Piece("value")]


def composed_expressions(tree: ast.AST) -> list[ast.AST]:
    """``print`` arguments that compose text, and every maximal string expression of a cell calling ``Markdown``."""
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    composing = any(isinstance(c, ast.Call) and getattr(c.func, "id", getattr(c.func, "attr", None)) == "Markdown"
                    for c in ast.walk(tree))
    stringy = (ast.JoinedStr, ast.BinOp, ast.IfExp)

    def has_text(node: ast.AST) -> bool:
        return any(isinstance(n, ast.JoinedStr) or (isinstance(n, ast.Constant) and isinstance(n.value, str)
                                                    and len(n.value) > 3) for n in ast.walk(node))

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print":
            found += [a for a in node.args if isinstance(a, (ast.JoinedStr, ast.BinOp))]
        elif composing and isinstance(node, stringy) and has_text(node):
            if not isinstance(parents.get(id(node)), (*stringy, ast.FormattedValue)):
                found.append(node)
    return found


def sentences(pieces: list[Piece]) -> list[list[Piece]]:
    """Cut at sentence ends inside literal text (". ", "; ", "! ", "? ", line breaks)."""
    out, current = [], []
    for piece in pieces:
        if piece.kind != "text":
            current.append(piece)
            continue
        for k, part in enumerate(re.split(r"(?<=[.;!?])\s+|\n+", piece.text)):
            if k:
                out.append(current)
                current = []
            current.append(Piece("text", part, piece.chosen))
    out.append(current)
    return [s for s in out if s]


def cell_findings(source: str, known: set[str] | None = None) -> list[tuple[str, str, str]]:
    """``(word, how it was chosen, the sentence)`` for each typed comparative word beside a computed value.

    ``known``: the names earlier cells computed from the yardstick; the cell's own are added to it.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    derived = derived_names(tree, known or set())
    if known is not None:
        known |= derived
    in_if = _if_choices(tree, derived)
    found = []
    for expression in composed_expressions(tree):
        for sentence in sentences(flatten(expression, derived, in_if.get(id(expression), ""))):
            if not any(p.kind == "value" for p in sentence):
                continue
            shown = " ".join("".join(p.text if p.kind == "text" else "{…}" for p in sentence).split())
            for k, piece in enumerate(sentence):
                if piece.kind != "text" or piece.chosen == "yardstick":
                    continue
                how = "chosen by a point estimate's sign; use Difference.word()" if piece.chosen == "sign" else "typed"
                found += [(m.group(0), how, shown) for m in CONCLUSION.finditer(piece.text)]
                if k and sentence[k - 1].kind == "value" and (m := SIGN_AFTER_VALUE.match(piece.text)):
                    found.append((m.group(1), how + ", right after a computed value", shown))
    return found


def exemption(stem: str, word: str, sentence: str) -> tuple[str, str, str] | None:
    return next((key for key in EXEMPT if key[0] == stem and key[1].lower() == word.lower() and key[2] in sentence),
                None)


def notebook_findings(path: Path, used: set | None = None) -> list[Finding]:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    found, known = [], set()
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code":
            continue
        for word, how, sentence in cell_findings("".join(cell["source"]), known):
            key = exemption(path.stem, word, sentence)
            if key is not None:
                if used is not None:
                    used.add(key)
                continue
            found.append(Finding(path.stem, index, word, how, sentence[:240]))
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_comparative_words_beside_computed_numbers_come_from_the_yardstick(path):
    found = notebook_findings(path)
    if found:
        pytest.fail(f"{len(found)} comparative word(s) in {path.name} are typed beside a computed number: take them "
                    "from a Difference (compare(a, b).verdict / .word(...) / .sentence(...)), or choose them in a "
                    "conditional that asks one (.clear, .direction, .beyond, .inside); an exact fact goes in EXEMPT "
                    "with its reason\n" + "\n".join(map(str, found)), pytrace=False)


def test_every_exemption_is_still_needed():
    used: set = set()
    for path in NOTEBOOKS:
        notebook_findings(path, used)
    unused = [key for key in EXEMPT if key not in used]
    assert not unused, f"exemptions no sentence needs any more (remove them): {unused}"


# ---- the check can fail ---------------------------------------------------------------------------------


def words(source: str) -> list[tuple[str, str]]:
    return [(word, how.split(";")[0].split(",")[0]) for word, how, _ in cell_findings(source)]


def test_a_typed_conclusion_beside_a_number_is_caught():
    assert words('display(Markdown(f"They differ by {x:.4f}, so the literature\'s ranking is not a law."))') == [
        ("not a law", "typed")]
    assert words('print(f"{name} is slightly ahead, {d:.4f} bits per byte")') == [("slightly", "typed"),
                                                                                  ("ahead", "typed")]
    # a sentence with no computed value is prose, not a composed claim
    assert words('display(Markdown("the best pair wins"))') == []


def test_a_sign_word_after_a_value_is_caught():
    assert words('display(Markdown(f"the shortest path needs {s:.1%} fewer tokens"))') == [("fewer", "typed")]
    assert words('display(Markdown(f"costs {gap:.4f} bits per byte more than it"))') == [("more", "typed")]


def test_a_word_chosen_by_a_bare_comparison_is_caught_as_such():
    found = words('display(Markdown(f"the model {\'gains\' if a < b else \'loses\'} {abs(a - b):.4f} bits"))')
    assert found == [("gains", "chosen by a point estimate's sign"), ("loses", "chosen by a point estimate's sign")]
    found = words('if a < b:\n    display(Markdown(f"{name} beats the rest by {b - a:.3f}"))')
    assert found == [("beats", "chosen by a point estimate's sign")]


def test_words_the_yardstick_chose_pass():
    assert words('display(Markdown(f"{d.word(\'ahead\', \'behind\', \'level\')} by {d.estimate:.4f}"))') == []
    assert words('display(Markdown("x " + d.word("fewest", "more", f"and {b} tie for the fewest, within noise")))') == []
    assert words('display(Markdown(f"X is {d.verdict}, and Y is {e.sentence(\'Y\', \'Z\')}"))') == []
    assert words('display(Markdown(f"{n}: " + ("clearly ahead" if d.clear else "within noise")))') == []
    assert words('gainers = [k for k, d in ds.items() if d.direction == "lower"]\n'
                 'display(Markdown(f"{len(ds)} rules; " + ("fewer tokens bought a better model" if gainers else '
                 '"no rule gains")))') == []
    assert words('display(Markdown(f"the tax is length for {how_many(k, n)} of the languages"))') == []
    assert words('if d.clear:\n    display(Markdown(f"{a} beats {b} by {d.estimate:.3f}"))') == []
    assert words('display(Markdown(f"a change of {iv}" + (" lower" if iv.high < 0 else " within noise")))') == []
    assert words('ties = [(n, s) for n, s, d in found if not d.clear]\n'
                 'display(Markdown("; ".join(f"order {n} is within noise of {s}" for n, s in ties)))') == []
    # a loop over numbers the yardstick never saw chooses nothing
    assert words('display(Markdown("; ".join(f"{n} is within noise" for n in sizes)))') == [("within noise", "typed")]


def test_a_name_an_earlier_cell_computed_from_the_yardstick_counts():
    known: set = set()
    assert cell_findings('worse = [k for k, d in ds.items() if d.low > 0.05]', known) == [] and "worse" in known
    assert cell_findings('display(Markdown(f"{n}: " + ("a worse model" if worse else "no change")))', known) == []
    assert [w for w, *_ in cell_findings('display(Markdown(f"{n}: " + ("a worse model" if worse else "x")))')] == [
        "worse"]  # without the earlier cell, the same test is a bare one


def test_an_exemption_must_name_a_real_sentence(monkeypatch, tmp_path):
    cell = {"cell_type": "code", "source": 'display(Markdown(f"the pair counted first wins ({n} times)"))',
            "outputs": [], "metadata": {}}
    path = tmp_path / "99_planted.ipynb"
    path.write_text(json.dumps({"cells": [cell]}), encoding="utf-8")
    assert [f.word for f in notebook_findings(path)] == ["wins"]
    monkeypatch.setitem(EXEMPT, ("99_planted", "wins", "counted first wins"), "the tie rule, exact")
    used: set = set()
    assert notebook_findings(path, used) == [] and used == {("99_planted", "wins", "counted first wins")}
