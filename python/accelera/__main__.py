"""The ``accelera`` command (also ``python -m accelera``): runs the C++ command line; ``accelera train``, which
trains with the Python neural-network library, runs here."""

import sys

from . import _core


def main() -> int:
    if sys.argv[1:2] == ["train"]:
        from .nn._train_cli import main as train
        return train(sys.argv[2:])
    sys.stdout.flush()
    return _core.cli_main(["accelera", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
