"""Frozen-bundle entry point: the same as the ``dpstudio`` console script (dpstudio.cli:main)."""

import multiprocessing
import sys

from dpstudio.cli import main

if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(main())
