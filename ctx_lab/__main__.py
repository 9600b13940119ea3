"""``python -m ctx_lab`` runs the CLI."""

import sys

from .cli import main

sys.exit(main())
