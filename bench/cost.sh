#!/bin/bash
# The cost model's table (modeled microseconds of the typical GEMMs natively and on each path,
# the planner's choice) and its crossovers, for each of the simulator's presets: parts with
# their real SM counts, clocks and memory buses (tests/simcuda/core/device.c).
# Usage: cost.sh BUILD_DIR
set -eu
build=${1:-build}
export LD_LIBRARY_PATH=$(realpath "$build/tests/simcuda/v13"):$(realpath "$build/tests/simcuda/core")
for preset in "sm_75/Tesla T4" "sm_70/Tesla V100-SXM2-16GB" "sm_75/NVIDIA GeForce RTX 2080 Ti" \
	      "sm_75/NVIDIA GeForce GTX 1660" "sm_60/Tesla P100-PCIE-16GB" "sm_61/NVIDIA GeForce GTX 1080"; do
	SIMCUDA_ARCH=$preset "$build/bench/cost"
	echo
done
