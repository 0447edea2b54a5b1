"""``python -m nplk_core.datasets [directory]``: (re)write the sample CSV files."""

import sys

from .samples import write_sample_data

for path in write_sample_data(sys.argv[1] if len(sys.argv) > 1 else None):
    print(path)
