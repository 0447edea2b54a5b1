"""``python -m nplk_lab.model.atlas`` (the command is :func:`.atlas.main`)."""

from .atlas import main

raise SystemExit(main())
