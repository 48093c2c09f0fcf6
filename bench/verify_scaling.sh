#!/usr/bin/env bash
# Time and peak RSS (/usr/bin/time) of `allocsim interp`, `allocsim verify` and `allocsim verify --original` on the
# scaling family of bench/verify_scaling.cpp (copies of one allocated program and of the program it allocates,
# written with --write), one process per run, and the growth exponents of verify between consecutive sizes. Fails if
# verify finds anything (the family is correct by construction). Configures BUILD_DIR with -DALLOCSIM_BENCH=ON and
# builds what it runs.
#   bench/verify_scaling.sh [BUILD_DIR] [INSTRUCTIONS...]     (default: build, 10000 30000 100000 300000 1000000)
set -euo pipefail
build=${1:-build}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 30000 100000 300000 1000000)
cmake -S "$(dirname "$0")/.." -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DALLOCSIM_BENCH=ON >/dev/null
ninja -C "$build" verify_scaling allocsim >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() {  # run NAME CMD...: "seconds KiB" of one run
  /usr/bin/time -o "$tmp/time" -f "%e %M" "$@" > "$tmp/out" 2>&1 || { cat "$tmp/out" >&2; echo "FAILED: $*" >&2; exit 1; }
  cat "$tmp/time"
}

echo "| instructions | lines | interp s | interp peak MiB | verify s | verify peak MiB | verify / interp time | verify --original s | verify --original peak MiB | verify --original / interp time |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
prev=""
for n in "${sizes[@]}"; do
  "$build/bench/verify_scaling" --write "$n" "$tmp/p.nki.txt" "$tmp/original.nki.txt"
  read -r is ik < <(run "$build/allocsim" interp "$tmp/p.nki.txt")
  read -r vs vk < <(run "$build/allocsim" verify "$tmp/p.nki.txt" --poison-seed 1)
  read -r os ok < <(run "$build/allocsim" verify "$tmp/p.nki.txt" --original "$tmp/original.nki.txt" --poison-seed 1)
  lines=$(wc -l < "$tmp/p.nki.txt")
  awk -v n="$n" -v l="$lines" -v is="$is" -v ik="$ik" -v vs="$vs" -v vk="$vk" -v os="$os" -v ok="$ok" \
    'BEGIN { i = is > 0 ? is : 0.01; printf "| %d | %d | %.2f | %.0f | %.2f | %.0f | %.1fx | %.2f | %.0f | %.1fx |\n", n, l, is, ik / 1024, vs, vk / 1024, vs / i, os, ok / 1024, os / i }'
  [ -z "$prev" ] || echo "$prev $n $vs $vk" >> "$tmp/exp"
  prev="$n $vs $vk"
done
[ -f "$tmp/exp" ] && awk '{ printf "verify from %d to %d instructions: time grows as N^%.2f, peak RSS as N^%.2f\n", $1, $4, log($5 / $2) / log($4 / $1), log($6 / $3) / log($4 / $1) }' "$tmp/exp"
