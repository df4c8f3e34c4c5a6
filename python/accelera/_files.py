"""Helpers for files written through a temporary and renamed into place."""

from __future__ import annotations

import os


def new_file_mode() -> int:
    """The permission bits a plain new file gets here (0666 less the umask). mkstemp makes its temporaries
    0600, so a file renamed into place from one would otherwise be unreadable to the user's group."""
    mask = os.umask(0)  # the umask can only be read by setting it; it is put back at once
    os.umask(mask)
    return 0o666 & ~mask
