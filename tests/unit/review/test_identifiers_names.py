"""The index's identifiers as one stored string: the same names the regex finds, each once."""

from __future__ import annotations

import pytest

from reviewbot.review.context.identifiers import Names, identifiers
from reviewbot.review.context.index import IDENT

TEXTS = ["", "x", "def run(cmd): return os.system(cmd)", "0x1F 123 9abc abc _ __init__ é_name naïve ñ",
         "a\u00a0b\tc\nd\r\ne", "Model model MODEL get_User", "1abc abc 2abc"]


@pytest.mark.parametrize("text", TEXTS)
def test_the_stored_names_are_the_regexs_each_once(text: str) -> None:
    names = Names.of(text)
    assert identifiers(text) == set(IDENT.findall(text)) == set(names)
    assert len(list(names)) == len(set(names))
