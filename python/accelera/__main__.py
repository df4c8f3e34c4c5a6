"""The ``accelera`` command (also ``python -m accelera``): runs the C++ command line."""

import sys

from . import _core


def main() -> int:
    sys.stdout.flush()
    return _core.cli_main(["accelera", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
