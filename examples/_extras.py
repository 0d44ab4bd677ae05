"""Optional extras of the example scripts: a one-line install hint instead of a traceback.

Each example calls :func:`require` before the code that needs an optional
package, naming the ``rapids-balance`` extra that provides it.
"""

from __future__ import annotations

import importlib
import os
import sys


def require(extra: str, *modules: str) -> None:
    """Exit with one line naming the extra to install unless every module imports.

    Parameters
    ----------
    extra : str
        The ``rapids-balance`` extra that installs the modules (``"exact"``, ``"dask"``, ...).
    *modules : str
        Importable module names the script needs (``"highspy"``, ``"distributed"``, ...).
    """
    missing = []
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    if missing:
        script = os.path.basename(sys.argv[0]) or "this example"
        sys.exit(f"{script} needs {', '.join(missing)} (the '{extra}' extra): "
                 f"pip install 'rapids-balance[{extra}]'")
