"""``python -m ropelab`` is the ``ropelab`` command."""

from ropelab.cli import main

raise SystemExit(main())
