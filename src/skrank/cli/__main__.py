"""``python -m skrank.cli``: the ``skrank`` command."""

import sys

from ._eval import main

sys.exit(main())
