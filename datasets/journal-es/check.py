#!/usr/bin/env python3
"""Validates the Spanish journal against the English one it translates, and prints its counts: the
checks of ../journal/translation_check.py, with Spanish function words.

Usage: python3 datasets/journal-es/check.py      (exit code 0 when every check passes, 1 otherwise)
Standard library only."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "journal"))
from translation_check import main  # noqa: E402

main(__file__, "Spanish", set("""y que de la el en los las un una unos unas me se no con por para lo su sus al del
    mi mis pero como cuando muy ya estaba había es era yo ella él""".split()))
