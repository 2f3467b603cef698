"""`python -m reviewbot` is the `reviewbot` command."""

import sys

from reviewbot.cli.main import main

sys.exit(main())
