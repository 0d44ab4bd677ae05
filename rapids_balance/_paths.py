"""What a path names: one file, or a dataset of files (a folder, or a glob pattern).

Below io and the scale-out layer, which both ask it: io reads a dataset file
by file, and the scale-out layer sends a dataset to the workers to read
rather than reading it on the client.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["is_dataset_path"]

#: characters that make a path a glob pattern (as :mod:`glob` reads them)
GLOB_CHARS = "*?["


def is_dataset_path(obj: Any) -> bool:
    """A folder, or a glob pattern that names no existing file."""
    if not isinstance(obj, (str, os.PathLike)):
        return False
    path = os.fspath(obj)
    if os.path.isdir(path):
        return True
    return any(c in path for c in GLOB_CHARS) and not os.path.exists(path)
