"""Misspellings in a user's text: a word that is no English word and one edit from exactly one word
a reader knows is read as that word (the household and story readers each bring their vocabulary)."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

#: Shortest word corrected: one edit of a shorter word ("hob", "cup", "cat") is too often another word.
MIN_TYPO_LENGTH = 4


def one_edit(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` with one letter left out, added, changed, or two neighbours swapped."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                  and a[diff[1]] == b[diff[0]])  # fmt: skip
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def two_edits(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` with at most two edits of :func:`one_edit`'s kinds ("cubbord" →
    "cupboard": a letter changed and one added)."""
    if abs(len(a) - len(b)) > 2:
        return False
    previous, row = None, list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        before, row = row, [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            row[j] = min(before[j] + 1, row[j - 1] + 1, before[j - 1] + (a[i - 1] != b[j - 1]))
            if previous and i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], previous[j - 2] + 1)
        previous = before
    return row[-1] <= 2


#: Shortest word (typed and meant) corrected across two edits: "cubbord", "dishwaser", "micrwve".
MIN_TWO_EDIT_LENGTH = 7


def typo_fixes(
    text: str,
    vocabulary: Collection[str],
    is_word: Callable[[str], bool],
    same: Callable[[str], str] = str,
    two: bool = False,
) -> list[tuple[int, str, str]]:
    """(offset, typed, meant) of each lower-case word of at least :data:`MIN_TYPO_LENGTH` letters
    that is not in ``vocabulary``, not a word (``is_word``: lemminflect's dictionary and the reader's
    own words), and one edit away from exactly one ``vocabulary`` word — or from several that
    ``same`` maps to one (two forms of a verb: "leavs" is "leave" or "leaves", either means
    leaving). ``two``: words of :data:`MIN_TWO_EDIT_LENGTH` letters or more also two edits away,
    when none is one edit away. A capitalised word (a name) is never changed."""
    fixes = []
    for m in re.finditer(r"(?<![\w'-])[a-z]+(?![\w'-])", text):
        word = m.group()
        if len(word) < MIN_TYPO_LENGTH or word in vocabulary or is_word(word):
            continue
        meant = sorted(v for v in vocabulary if len(v) >= MIN_TYPO_LENGTH and one_edit(word, v))
        if not meant and two and len(word) >= MIN_TWO_EDIT_LENGTH:
            meant = sorted(v for v in vocabulary if len(v) >= MIN_TWO_EDIT_LENGTH and two_edits(word, v))
        if meant and len({same(v) for v in meant}) == 1:
            fixes.append((m.start(), word, meant[0]))
    return fixes


#: Contractions typed without their apostrophe ("didnt", "theres", "hes"): no English words, so
#: each is one contraction whoever writes it.
BARE_CONTRACTIONS = frozenset(
    "didnt doesnt dont wasnt isnt cant wont hasnt havent arent werent couldnt shouldnt wouldnt thats theres "
    "whats hes shes theyre im ive youre".split()
)
_APOSTROPHE = {w: w[:-1] + "'" + w[-1] if w.endswith("nt") else w for w in BARE_CONTRACTIONS} | {
    "thats": "that's", "theres": "there's", "whats": "what's", "hes": "he's", "shes": "she's", "theyre": "they're",
    "im": "I'm", "ive": "I've", "youre": "you're",
}  # fmt: skip
_BARE = re.compile(r"\b(" + "|".join(sorted(BARE_CONTRACTIONS)) + r")\b")


def with_apostrophes(text: str) -> str:
    """``text`` with its lower-case :data:`BARE_CONTRACTIONS` written with their apostrophes."""
    return _BARE.sub(lambda m: _APOSTROPHE[m[1]], text)
