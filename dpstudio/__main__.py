import sys

from dpstudio.cli import main

sys.exit(main())
