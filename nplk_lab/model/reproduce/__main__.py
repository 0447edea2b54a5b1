"""``python -m nplk_lab.model.reproduce`` (the command is :func:`.cli.main`)."""

from .cli import main

raise SystemExit(main())
