#!/usr/bin/env bash
# Builds bench/experiments/separable_variants.cu with four copies of the
# separable pass, each compiled under its own name: the form of commit b45eb7f
# (stop 42's, which ran on the GPU) and the current file with 8 or 16 outputs
# a thread along strided axes and 4 or 8 along x (the names printed say
# which). Needs the CUDA toolkit and a configured build-gpu/ (its generated
# headers).
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source=src/itkCudaSeparableConvolution.cu
git show b45eb7f:$source > "$work/old.cu"
sed 's/ColumnOutputs = [0-9]*;/ColumnOutputs = 8;/; s/RowOutputs = [0-9]*;/RowOutputs = 4;/' $source > "$work/a.cu"
sed 's/ColumnOutputs = [0-9]*;/ColumnOutputs = 16;/; s/RowOutputs = [0-9]*;/RowOutputs = 8;/' $source > "$work/b.cu"
sed 's/ColumnOutputs = [0-9]*;/ColumnOutputs = 8;/; s/RowOutputs = [0-9]*;/RowOutputs = 8;/' $source > "$work/c.cu"
flags=(-arch=sm_90 -O3 -std=c++17 -Iinclude -Ibuild-gpu/include -Ibuild-gpu -DCudaCommon_EXPORT=)
for variant in old:ConvOld a:ConvA b:ConvB c:ConvC; do
  nvcc "${flags[@]}" -DCudaConvolveAxisAsync=${variant#*:} -c "$work/${variant%%:*}.cu" -o "$work/${variant%%:*}.o"
done
nvcc "${flags[@]}" -c bench/experiments/separable_variants.cu -o "$work/driver.o"
nvcc -arch=sm_90 -o /tmp/separable_variants "$work"/driver.o "$work"/old.o "$work"/a.o "$work"/b.o "$work"/c.o
echo /tmp/separable_variants
