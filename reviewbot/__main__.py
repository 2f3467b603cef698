"""`python -m reviewbot` is the `reviewbot` command."""

import sys

from reviewbot.cli import main

sys.exit(main())
