"""The Dask cluster the operator configured for this server, and the connection to it.

Configuration, not a choice of the page: the address comes from the server's
environment (``$NPLK_DASK_SCHEDULER``) or its ``.streamlit/secrets.toml``
(``dask_scheduler``), never from the URL or a widget, so a shared link cannot make this
server connect to an address of the link's choosing. The pages offer the cluster with a
checkbox and say on screen when it does not answer (:mod:`nplk_lab.ui.running`)."""

from __future__ import annotations

import os
from typing import Any

import streamlit as st

#: environment variable naming the Dask scheduler the pages may offer
DASK_ENV = "NPLK_DASK_SCHEDULER"
#: seconds to wait for a scheduler before the page runs the work here instead
CONNECT_TIMEOUT_S = 3.0


def scheduler_address() -> str | None:
    """The Dask scheduler the operator configured: ``$NPLK_DASK_SCHEDULER``, else
    ``dask_scheduler`` in ``.streamlit/secrets.toml``; None when neither is set."""
    address = os.environ.get(DASK_ENV, "").strip()
    if not address:
        try:
            address = str(st.secrets.get("dask_scheduler", "") or "").strip()
        except (FileNotFoundError, KeyError, ValueError, OSError,
                st.errors.StreamlitSecretNotFoundError):
            address = ""
    return address or None


def connect(address: str) -> Any:
    """A client of the scheduler at ``address``. ImportError without dask.distributed,
    OSError when no scheduler answers within :data:`CONNECT_TIMEOUT_S`."""
    from nplk_core.parallel import dask_client
    return dask_client(address, timeout=CONNECT_TIMEOUT_S)
