#!/usr/bin/env bash
# Hostile inputs against every verb, the minimalloc importer and the allocator fuzzing harness: each must end with
# its documented exit code and a located message (FILE:LINE:COL: or the verb's name), never crash (a signal, exit
# code >= 128), never print "internal error", and stay within small time bounds (every command runs under
# `timeout`, whose exit code 124 fails the test). Usage: hostile_inputs_test.sh ALLOCSIM SOURCE_DIR
allocsim=${1:?allocsim binary}
src=${2:?source directory}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=tests/tools/hostile_lib.sh
source "$(dirname "$0")/hostile_lib.sh"

cd "$work" || exit 2

# --- Hostile program files, for every verb that reads one.
: >empty.nki.txt
printf 'arch tiny\n' >decls_only.nki.txt
head -c 3000 /dev/urandom >binary.nki.txt
printf 'arch tiny\nsbuf t [1, 4] f32\n\nmemset t, 0\n\0\0\0\n' >nul.nki.txt
{ printf 'arch tiny\nsbuf t [1, 4] f32\n\nmemset '; head -c 1000000 /dev/zero | tr '\0' a; echo; } >longline.nki.txt
printf 'arch tiny\nsbuf t [1, 4294967295] f32\n\nmemset t, 0\n' >huge_tensor.nki.txt
printf 'arch tiny\nreg r\n\nloop r = 0, 9223372036854775807, 1 {\n  li r, 0\n}\n' >endless.nki.txt
mkdir adir.nki.txt
for verb in fmt interp alloc verify run trace show; do
  extra=()
  [ "$verb" = trace ] && extra=(--vcd "$work/t.vcd")
  for f in empty decls_only binary nul longline huge_tensor; do
    run "$verb $f" 20 "$allocsim" "$verb" "$f.nki.txt" "${extra[@]}"
    expect "$verb $f" 2 "^$f\.nki\.txt:[0-9]+:[0-9]+: "
  done
  run "$verb directory" 20 "$allocsim" "$verb" adir.nki.txt "${extra[@]}"
  expect "$verb directory" 2 "allocsim $verb: adir\.nki\.txt: is a directory"
  run "$verb missing" 20 "$allocsim" "$verb" missing.nki.txt "${extra[@]}"
  expect "$verb missing" 2 "allocsim $verb: missing\.nki\.txt: cannot open"
done
# A loop of 2^63 trips is well-formed, and too long to interpret: refused at its line, not run for ever.
run "interp endless" 30 "$allocsim" interp endless.nki.txt
[ "$rc" -eq 2 ] && echo "$out" | grep -Eq '^endless\.nki\.txt:[0-9]+:[0-9]+: ' || fail "interp endless: exit $rc: $out"

# --- NKI kernels in Python: an empty file, bytes that are no Python, and a module that never ends.
: >empty.py
head -c 2000 /dev/urandom >binary.py
printf 'while True:\n    pass\n' >endless.py
run "nki empty" 30 "$allocsim" nki empty.py
expect "nki empty" 2 "^empty\.py:1: no NKI kernels"
run "nki binary" 30 "$allocsim" nki binary.py
expect "nki binary" 2 "^binary\.py:[0-9]+: "
for verb in nki interp; do
  run "$verb endless.py" 30 "$allocsim" $verb endless.py --trace-time-limit 2
  expect "$verb endless.py" 2 "^allocsim $verb: endless\.py: the Python tracer did not finish within 2 s and was stopped"
done

# --- Out of memory is located: the file, the tensor, how much it asks for and how much there is.
printf 'arch gen2 dram-limit=17179869184\ndram big [128, 4000000] f32 input\ndram out [128, 16] f32 output\nsbuf s [128, 16] f32\n\ndma s, big[:, 0:16]\ndma out, s\n' >bigdram.nki.txt
run "interp under ulimit" 30 bash -c "ulimit -v 1000000; exec '$allocsim' interp bigdram.nki.txt"
expect "interp under ulimit" 2 "^bigdram\.nki\.txt:2:[0-9]+: out of memory: tensor 'big' \(2\.05 GB\) .*can get .* more \(the address-space limit"

# Where no verb can tell beforehand, the report still names the input (or the arguments), how much was asked for, how
# much the process held and how much it could have got.
run "gen under ulimit" 30 bash -c "ulimit -v 150000; exec '$allocsim' gen --seed 1 --size 100000 --arch tiny"
expect "gen under ulimit" 2 "^allocsim gen --seed 1 --size 100000 --arch tiny: out of memory \(asked for [0-9.]+ ([kMG]?B|bytes); holding [0-9.]+ [kMG]?B at the peak; this process can get [0-9.]+ [kMG]?B more: the address-space limit"
awk 'BEGIN { print "id,lower,upper,size"; for (i = 0; i < 1000000; i++) print "b" i "," i "," i + 7 "," 64 }' >rows.16777216.csv
run "import under ulimit" 30 bash -c "ulimit -v 150000; exec '$allocsim' import minimalloc rows.16777216.csv -o rows.nki.txt"
expect "import under ulimit" 2 "^allocsim import: rows\.16777216\.csv: out of memory \(asked for [0-9.]+ ([kMG]?B|bytes); .*this process can get [0-9.]+ [kMG]?B more"
# solve's --time-limit covers reading the file: a limit shorter than the read ends the run at the file (at the line
# reached when the parse was under way), exit 3, long before the search could start.
run "solve, time limit while reading" 10 "$allocsim" solve minimalloc rows.16777216.csv --time-limit 0.2 -o /dev/null
expect "solve, time limit while reading" 3 "^rows\.16777216\.csv(:[0-9]+:1)?: exact: the time limit of 0\.2 s ran out while the file was read"

# --- Impossible at once: one instruction names more register lanes than the machine has (4 on tiny).
printf 'arch tiny\nreg a 64\nreg b 64\nreg c 64\n\nli a, 1\nli b, 2\nadd c, a, b\n' >lanes.nki.txt
for level in 0 2 8; do
  run "alloc -O$level lanes" 10 "$allocsim" alloc lanes.nki.txt -O$level
  expect "alloc -O$level lanes" 3 "^lanes\.nki\.txt:8:1: .*add names registers of 6 lanes \(a, b, c\), and the machine has 4 SP registers"
done

# --- gen --size N on every preset: the DRAM follows the size, and past the largest dram-limit (or the one given)
# loads and stores share DRAM tensors; the program it prints is well-formed.
for arch in tiny:1500 gen1:1500 gen2:1000 gen2:5000; do
  n=${arch#*:} arch=${arch%:*}
  run "gen --size $n --arch $arch" 60 "$allocsim" gen --seed 3 --size $n --arch $arch -o gen_$arch.nki.txt
  expect "gen --size $n --arch $arch" 0 "^$"
  run "fmt gen_$arch ($n)" 60 "$allocsim" fmt gen_$arch.nki.txt -o /dev/null
  expect "fmt gen_$arch ($n)" 0 "^$"
done
# A machine whose SBUF partition holds 16 bytes: what gen prints still fits it (seed 1 drew a [1, 6] i32 register
# word tensor, 24 bytes).
run "gen --sbuf-bytes 16" 20 "$allocsim" gen --seed 1 --size 10 --sbuf-bytes 16 -o small_sbuf.nki.txt
expect "gen --sbuf-bytes 16" 0 "^$"
run "fmt small_sbuf" 20 "$allocsim" fmt small_sbuf.nki.txt -o /dev/null
expect "fmt small_sbuf" 0 "^$"
run "gen with a --dram-limit it must share" 60 "$allocsim" gen --seed 3 --size 3000 --dram-limit 4194304 -o shared.nki.txt
expect "gen with a --dram-limit it must share" 0 "^$"
head -1 shared.nki.txt | grep -qx 'arch tiny dram-limit=4194304' || fail "gen --dram-limit: $(head -1 shared.nki.txt)"
run "fmt shared" 60 "$allocsim" fmt shared.nki.txt -o /dev/null
expect "fmt shared" 0 "^$"
run "gen with a small --dram-limit" 20 "$allocsim" gen --seed 3 --size 1500 --dram-limit 65536
expect "gen with a small --dram-limit" 2 "^allocsim gen: --size 1500 is more than .* even with loads and stores sharing tensors; raise it with --dram-limit N .*or leave it out"

# --- The minimalloc importer and solver, alike on the same files.
printf 'id,lower,upper,size\n' >header.64.csv
printf 'id,lower,upper,size\na,0,10,7\nb,5,12,8\nc,10,20,3\n' >odd.16.csv
printf 'id,lower,upper,size\na,0,10,8\na,5,12,8\n' >dup.64.csv
printf 'id,lower,upper,size\na,0,10,8\nb,5,x,8\n' >field.64.csv
printf 'id,lower,upper,size\na,5,5,8\n' >emptylife.64.csv
printf 'id,lower,upper,size\na,0,99999999999999999999,8\n' >overflow.64.csv
head -c 2000 /dev/urandom >binary.64.csv
# file : the message both verbs give, at its location
csv_cases=(
  "header:^header\.64\.csv:1:1: no buffers: the file has its header and no rows"
  "dup:^dup\.64\.csv:3:1: duplicate buffer id 'a'"
  "field:^field\.64\.csv:3:5: upper 'x' is not an integer"
  "emptylife:^emptylife\.64\.csv:2:[0-9]+: buffer 'a' lives over \[5, 5\)"
  "overflow:^overflow\.64\.csv:2:[0-9]+: upper '99999999999999999999' is not an integer"
  "binary:^binary\.64\.csv:[0-9]+:[0-9]+: "
)
for verb in import solve; do
  for c in "${csv_cases[@]}"; do
    run "$verb ${c%%:*}" 10 "$allocsim" $verb minimalloc "${c%%:*}.64.csv"
    expect "$verb ${c%%:*}" 2 "${c#*:}"
  done
done
# Odd sizes: solve places them within 16 bytes (a and b overlap in time: 7 + 8 = 15), import doubles the problem
# (32 bytes, alignment 2), and the imported program allocates and exports back to a valid solution within 16.
run "solve odd" 10 "$allocsim" solve minimalloc odd.16.csv -o odd.solution.csv
expect "solve odd" 0 "minimalloc rules: valid"
run "import odd" 10 "$allocsim" import minimalloc odd.16.csv -o odd.nki.txt
expect "import odd" 0 "^$"
grep -q '^arch gen2 sbuf-partitions=1 sbuf-bytes=32 sbuf-align=2 ' odd.nki.txt || fail "import odd: $(head -1 odd.nki.txt)"
run "alloc imported odd" 20 "$allocsim" alloc odd.nki.txt -O2 -o odd.allocated.nki.txt
expect "alloc imported odd" 0 ""
run "export odd" 10 "$allocsim" export minimalloc odd.allocated.nki.txt odd.16.csv -o odd.exported.csv
expect "export odd" 0 "minimalloc rules: valid .*capacity 16\)"
# Without a capacity in the CSV's name, export takes the program's SBUF, halved back for the doubled problem.
cp odd.16.csv oddnocap.csv
run "export odd, capacity from the program" 10 "$allocsim" export minimalloc odd.allocated.nki.txt oddnocap.csv -o /dev/null
expect "export odd, capacity from the program" 0 "minimalloc rules: valid .*capacity 16\)"
# export's own hostile inputs: a program that is no program, a CSV that is no problem, each named.
run "export binary program" 10 "$allocsim" export minimalloc binary.nki.txt odd.16.csv
expect "export binary program" 2 "^binary\.nki\.txt:[0-9]+:[0-9]+: "
run "export header-only CSV" 10 "$allocsim" export minimalloc odd.allocated.nki.txt header.64.csv
expect "export header-only CSV" 2 "^header\.64\.csv:1:1: no buffers"
# A problem whose search tables would pass the memory allowed is refused before they are built, at a row where the
# most buffers are live at once (all 3000 start at 0: the last of them, on line 3001).
awk 'BEGIN { print "id,lower,upper,size"; for (i = 0; i < 3000; i++) print i ",0,100,8" }' >wide.100000.csv
run "solve over --max-memory" 10 "$allocsim" solve minimalloc wide.100000.csv --max-memory 1000000
expect "solve over --max-memory" 2 "^wide\.100000\.csv:3001:1: out of memory: the exact search's tables for 3000 buffers need about .* more than --max-memory 1\.00 MB; 3000 buffers are live at once at time 0, this row's among them"

# --- The fuzz harness against misbehaving allocators.
cat >crash.sh <<'EOF'
#!/bin/sh
kill -SEGV $$
EOF
cat >hang.sh <<'EOF'
#!/bin/sh
exec sleep 600
EOF
cat >garbage.sh <<'EOF'
#!/bin/sh
cat >/dev/null; echo 'this is %% not a program'
EOF
cat >huge.sh <<'EOF'
#!/bin/sh
cat >/dev/null; exec head -c 300000000 /dev/zero
EOF
cat >nothing.sh <<'EOF'
#!/bin/sh
cat >/dev/null
EOF
# Crashes only on inputs of more than 12 lines: shrinking must stop at a well-formed program that still has them.
cat >big_crash.sh <<'EOF'
#!/bin/sh
if [ "$(grep -c . "$1")" -gt 12 ]; then kill -SEGV $$; fi
exit 3
EOF
# Places every SBUF tensor at byte 0 of its partitions: the overlap is the root finding.
cat >overlap.sh <<EOF
#!/bin/sh
'$allocsim' alloc "\$1" -O0 -o - 2>/dev/null | sed -E '/^sbuf /s/@p([0-9]+)\\+[0-9]+/@p\\1+0/' >"\$2"
EOF
chmod +x ./*.sh
fuzz() {  # fuzz NAME SECONDS ARGS... -- CMD
  local name=$1 limit=$2
  shift 2
  run "fuzz $name" "$limit" "$allocsim" fuzz-allocator --runs 1 --no-kernels --no-sim --timeout 1 --shrink-time 20 \
    --pressure 50 --size 8 --out "fz_$name" "$@"
}
for kind in crash:crash hang:timeout garbage:unparsable nothing:no-output; do
  name=${kind%%:*} finding=${kind#*:}
  fuzz "$name" 60 -- "$work/$name.sh"
  expect "fuzz $name" 1 "^  $finding on generated seed "
  echo "$out" | grep -q "fails on every input" || fail "fuzz $name: not told it fails on every input: $out"
  [ -f "fz_$name/001.nki.txt" ] || fail "fuzz $name: no reproducer"
  run "fmt $name reproducer" 10 "$allocsim" fmt "fz_$name/001.nki.txt" -o /dev/null
  expect "fmt $name reproducer" 0 "^$"
  echo "$out" | grep -q "rerun: $work/$name.sh < $work/fz_$name/001.nki.txt > $work/fz_$name/001.output.nki.txt" ||
    grep -q "rerun: $work/$name.sh < $work/fz_$name/001.nki.txt" "fz_$name/001.txt" || fail "fuzz $name: no rerun command with the real paths"
done
fuzz huge 60 --max-output 4 -- "$work/huge.sh"
expect "fuzz huge" 1 "^  huge-output on generated seed .*more output than [0-9]+ bytes \(4 times the input's"
fuzz big_crash 60 -- "$work/big_crash.sh" "{in}"
expect "fuzz big_crash" 1 "^  crash on generated seed "
[ "$(grep -c . fz_big_crash/001.nki.txt)" -gt 12 ] || fail "fuzz big_crash: the reproducer no longer crashes it"
run "fmt big_crash reproducer" 10 "$allocsim" fmt fz_big_crash/001.nki.txt -o /dev/null
expect "fmt big_crash reproducer" 0 "^$"
fuzz overlap 90 -- "$work/overlap.sh" "{in}" "{out}"
expect "fuzz overlap" 1 "^  placement:overlap on generated seed "
echo "$out" | grep -Eq "^      sbuf [A-Za-z0-9_]+ \[[0-9]+, [0-9]+\] [a-z0-9]+ @p[0-9]+\+0" ||
  fail "fuzz overlap: the allocator's placements of the tensors involved are not shown: $out"
[ -f fz_overlap/001.output.nki.txt ] || fail "fuzz overlap: the allocator's output is not kept beside the reproducer"
check=$(echo "$out" | sed -n 's/^    check: allocsim //p' | head -1)
[ -n "$check" ] || fail "fuzz overlap: no check command"
run "the check command" 30 "$allocsim" $check
expect "the check command" 1 "overlap"

finish "hostile inputs"
