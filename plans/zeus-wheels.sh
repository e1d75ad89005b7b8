#!/usr/bin/env bash
# The wheels that make Zeus (the ML.ENERGY project's ZeusMonitor) importable on the lent GPU image,
# which has torch, numpy, pandas, scikit-learn, nvidia-ml-py, rich, httpx and python-dateutil but
# not zeus, pydantic or tyro, and no network. Run here (PyPI reachable), then name the folder in the
# loan's carry and pass ZEUS_WHEELS=<folder> to plans/run-on-gpu.sh:
#
#   bash plans/zeus-wheels.sh .whl && echo /.whl/ >> .git/info/exclude
#
# The image's Python is 3.12 on x86-64 (the device tool's KINDS.md); pydantic-core is the only
# compiled one. typing_extensions: pydantic 2.14 needs >= 4.16, newer than the image's.
set -euo pipefail
dest=${1:-.whl}
mkdir -p "$dest"
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -d "$dest" zeus==0.16.0 pydantic==2.14.4 pydantic-core==2.50.5 annotated-types==0.8.0 \
  typing-inspection==0.4.5 tyro==1.0.17 docstring-parser==0.18.0 typeguard==4.6.1 shtab==1.13.0 \
  amdsmi==7.0.2 typing_extensions==4.16.0
ls "$dest"
