import sys

from perfgraphs.cli import main

sys.exit(main())
