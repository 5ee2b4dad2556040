"""Which characters belong to scripts written without spaces between words.

Chinese, Japanese, Thai, Lao, Khmer, Myanmar, Tibetan and a few others run
their words together; Korean separates phrases with spaces but attaches
particles and endings to the word before them (서울 + 에 = 서울에). In such
text a word is not a space-delimited unit, so a word finder looks for it as
a run of characters (see ``lm_workbench.engine.embeddings.occurrences``).

The decision is made per character by Unicode code point (the blocks of
those scripts, their extensions and compatibility forms), so it holds per
word and per occurrence, never per corpus: a line may mix English and
Japanese.
"""

from __future__ import annotations

from bisect import bisect_right

# (first, last, script) code-point blocks, sorted by first; last is inclusive.
_BLOCKS: tuple[tuple[int, int, str], ...] = (
    (0x0E00, 0x0E7F, "Thai"),
    (0x0E80, 0x0EFF, "Lao"),
    (0x0F00, 0x0FFF, "Tibetan"),
    (0x1000, 0x109F, "Myanmar"),
    (0x1100, 0x11FF, "Hangul"),  # conjoining jamo
    (0x1780, 0x17FF, "Khmer"),
    (0x1950, 0x197F, "Tai Le"),
    (0x1980, 0x19DF, "New Tai Lue"),
    (0x19E0, 0x19FF, "Khmer"),  # Khmer symbols
    (0x1A20, 0x1AAF, "Tai Tham"),
    (0x1B00, 0x1B7F, "Balinese"),
    (0x2E80, 0x2FDF, "Han"),  # radicals, Kangxi radicals
    (0x3005, 0x3007, "Han"),  # 々 〆 〇
    (0x3021, 0x3029, "Han"),  # Hangzhou numerals
    (0x3031, 0x3035, "Kana"),  # vertical kana repeat marks
    (0x3038, 0x303B, "Han"),
    (0x3040, 0x309F, "Hiragana"),
    (0x30A0, 0x30FF, "Katakana"),
    (0x3100, 0x312F, "Bopomofo"),
    (0x3130, 0x318F, "Hangul"),  # compatibility jamo
    (0x31A0, 0x31BF, "Bopomofo"),
    (0x31F0, 0x31FF, "Katakana"),
    (0x3400, 0x4DBF, "Han"),  # extension A
    (0x4E00, 0x9FFF, "Han"),
    (0xA000, 0xA4CF, "Yi"),
    (0xA960, 0xA97F, "Hangul"),
    (0xA980, 0xA9DF, "Javanese"),
    (0xA9E0, 0xA9FF, "Myanmar"),
    (0xAA60, 0xAA7F, "Myanmar"),
    (0xAA80, 0xAADF, "Tai Viet"),
    (0xAC00, 0xD7FF, "Hangul"),  # syllables and jamo extended B
    (0xF900, 0xFAFF, "Han"),  # compatibility ideographs
    (0xFF66, 0xFF9F, "Katakana"),  # halfwidth
    (0xFFA0, 0xFFDC, "Hangul"),  # halfwidth
    (0x16FE0, 0x16FFF, "Han"),  # ideographic symbols (iteration mark ...)
    (0x1AFF0, 0x1B16F, "Kana"),  # kana extensions and supplement
    (0x1B170, 0x1B2FF, "Nushu"),
    (0x20000, 0x3FFFF, "Han"),  # extensions B..J, compatibility supplement
)
_FIRSTS = [first for first, _, _ in _BLOCKS]

UNSPACED_SCRIPT_NAMES = "Han, Hiragana, Katakana, Hangul, Thai, Lao, Khmer, Myanmar, Tibetan, ..."


def unspaced_script(char: str) -> str | None:
    """The script of ``char`` (one character) if that script is written without spaces, else None."""
    code = ord(char)
    i = bisect_right(_FIRSTS, code) - 1
    if i >= 0 and code <= _BLOCKS[i][1]:
        return _BLOCKS[i][2]
    return None


def written_without_spaces(word: str) -> bool:
    """True when any character of ``word`` belongs to a script written without spaces."""
    return any(unspaced_script(c) is not None for c in word)
