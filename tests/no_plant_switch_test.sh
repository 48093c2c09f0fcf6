#!/bin/bash
# The release binary has no plant switch (ir/plant.h): neither the environment variable's name nor any plant's name
# (bench/planted/plants.txt, first column) is in it, and setting the variable to a plant changes nothing.
set -u
bin=$1 plants=$2
fail=0
if grep -q -a ALLOCSIM_PLANT "$bin"; then
  echo "FAIL: $bin contains the string ALLOCSIM_PLANT"
  fail=1
fi
names=$(grep -v '^#' "$plants" | awk 'NF { print $1 }')
[ -n "$names" ] || { echo "FAIL: no plants listed in $plants"; exit 1; }
for name in $names; do
  if grep -q -a -F "$name" "$bin"; then
    echo "FAIL: $bin contains the plant name $name"
    fail=1
  fi
done
# A planted name in the environment leaves a run as it was.
prog=$(dirname "$0")/../corpus/kernels/matmul_tiled_tiny.nki.txt
first=$(grep -v '^#' "$plants" | awk 'NF { print $1; exit }')
a=$("$bin" alloc "$prog" -O2 2>&1) b=$(ALLOCSIM_PLANT=$first "$bin" alloc "$prog" -O2 2>&1)
if [ "$a" != "$b" ]; then
  echo "FAIL: ALLOCSIM_PLANT=$first changed the output of allocsim alloc"
  fail=1
fi
[ $fail = 0 ] && echo "ok: no plant switch in $bin"
exit $fail
