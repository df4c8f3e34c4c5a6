"""Helpers for files written through a temporary and renamed into place."""

from __future__ import annotations

import json
import os
import tempfile


def new_file_mode() -> int:
    """The permission bits a plain new file gets here (0666 less the umask). mkstemp makes its temporaries
    0600, so a file renamed into place from one would otherwise be unreadable to the user's group."""
    mask = os.umask(0)  # the umask can only be read by setting it; it is put back at once
    os.umask(mask)
    return 0o666 & ~mask


def user_cache_file(name: str) -> str:
    """``name`` in Accelera's folder of the user's cache directory ($XDG_CACHE_HOME, else ~/.cache)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "accelera", name)


def write_json(path: str, value) -> None:
    """``value`` as JSON at ``path``, through a temporary in the same folder (made if missing) renamed into
    place, so that a reader never sees half a file."""
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".partial", dir=directory)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(value, f, indent=1)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
