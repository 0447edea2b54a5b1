"""Toy data sets of the five papers' figures, a registry for the app, and a checked CSV loader.

:mod:`.generators` makes the toy data (one ``make_X`` per figure of the papers);
:mod:`.registry` names them for the app with their slider ranges; :mod:`.csv_files` reads
a user's CSV with row-by-row messages and writes data sets back; :mod:`.samples` writes
the files under ``sample_data/`` (``python -m nplk_core.datasets [directory]``).
"""

from .csv_files import DataError, LoadedData, dataset_to_csv, load_csv, to_pm1
from .generators import (
    chirp_function,
    harmonic_function,
    make_chessboard,
    make_chirp,
    make_circles,
    make_clowns,
    make_harmonic,
    make_moons,
    make_sandwich,
    make_spiral,
    make_step,
    step_function,
)
from .registry import DATASETS, DEFAULT_DATASET, DatasetSpec, ParamSpec, list_datasets, make_dataset
from .samples import SAMPLE_DATA_DIR, write_sample_data

__all__ = [
    "DATASETS", "DEFAULT_DATASET", "SAMPLE_DATA_DIR", "DataError", "DatasetSpec", "LoadedData",
    "ParamSpec", "chirp_function", "dataset_to_csv", "harmonic_function", "list_datasets",
    "load_csv", "make_chessboard", "make_chirp", "make_circles", "make_clowns", "make_dataset",
    "make_harmonic", "make_moons", "make_sandwich", "make_spiral", "make_step", "step_function",
    "to_pm1", "write_sample_data",
]
