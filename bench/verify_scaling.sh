#!/usr/bin/env bash
# Time and peak RSS (/usr/bin/time) of `allocsim interp` and `allocsim verify` on the scaling family of
# bench/verify_scaling.cpp (copies of one allocated program, written with --write), one process per run, and the
# growth exponents between consecutive sizes. Fails if verify finds anything (the family is correct by construction).
#   bench/verify_scaling.sh [BUILD_DIR] [INSTRUCTIONS...]     (default: build, 10000 30000 100000 300000 1000000)
set -euo pipefail
build=${1:-build}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 30000 100000 300000 1000000)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() {  # run NAME CMD...: "seconds KiB" of one run
  /usr/bin/time -o "$tmp/time" -f "%e %M" "$@" > "$tmp/out" 2>&1 || { cat "$tmp/out" >&2; echo "FAILED: $*" >&2; exit 1; }
  cat "$tmp/time"
}

echo "| instructions | lines | interp s | interp peak MiB | verify s | verify peak MiB | verify / interp time |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
prev=""
for n in "${sizes[@]}"; do
  "$build/bench/verify_scaling" --write "$n" "$tmp/p.nki.txt"
  read -r is ik < <(run "$build/allocsim" interp "$tmp/p.nki.txt")
  read -r vs vk < <(run "$build/allocsim" verify "$tmp/p.nki.txt" --poison-seed 1)
  lines=$(wc -l < "$tmp/p.nki.txt")
  awk -v n="$n" -v l="$lines" -v is="$is" -v ik="$ik" -v vs="$vs" -v vk="$vk" \
    'BEGIN { printf "| %d | %d | %.2f | %.0f | %.2f | %.0f | %.1fx |\n", n, l, is, ik / 1024, vs, vk / 1024, vs / (is > 0 ? is : 0.01) }'
  [ -z "$prev" ] || echo "$prev $n $vs $vk" >> "$tmp/exp"
  prev="$n $vs $vk"
done
[ -f "$tmp/exp" ] && awk '{ printf "verify from %d to %d instructions: time grows as N^%.2f, peak RSS as N^%.2f\n", $1, $4, log($5 / $2) / log($4 / $1), log($6 / $3) / log($4 / $1) }' "$tmp/exp"
