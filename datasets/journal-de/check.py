#!/usr/bin/env python3
"""Validates the German journal against the English one it translates, and prints its counts: the
checks of ../journal/translation_check.py, with German function words.

Usage: python3 datasets/journal-de/check.py      (exit code 0 when every check passes, 1 otherwise)
Standard library only."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "journal"))
from translation_check import main  # noqa: E402

main(__file__, "German", set("""und ich die der das nicht ein eine einen einem einer sie er es mit auf mir mich
    war hatte ist sich zu im in den dem des von wie als dann noch nur immer wieder auch aber""".split()))
