"""``python -m paperlens.cli``: the ``paperlens`` command."""

import sys

from paperlens.cli import main

sys.exit(main())
