#!/usr/bin/env bash
# Hostile programs built from conditional blocks, `%` and `//` of loop registers and register-bounded loops, against
# every verb: programs large enough that an analysis whose work grows faster than the program would not finish,
# conditions that hold on no iteration, and conditions on registers computed from loop registers. Each must end
# with its documented exit code (and a located message when it refuses), never crash and never hang (every command
# runs under `timeout`). Usage: hostile_constructs_test.sh ALLOCSIM
allocsim=${1:?allocsim binary}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=tests/tools/hostile_lib.sh
source "$(dirname "$0")/hostile_lib.sh"
cd "$work" || exit 2

# --- 16000 conditional blocks in one loop. Which code runs is decided per block by walking the loop's iterations,
# and each walk needs to know whether the loop's body writes the condition's register: asked of the whole body for
# every block, that is quadratic in the body (minutes here); known once per loop, linear.
{
  printf 'arch tiny\nreg i\ndram O [1, 4] f32 output\nsbuf t [1, 4] f32\n\nmemset t, 1\nloop i = 0, 2, 1 {\n'
  for _ in $(seq 16000); do printf '  if i >= 1 {\n    memset t, 0\n  }\n'; done
  printf '}\ndma O, t\n'
} >many_ifs.nki.txt
for level in 0 2 8; do
  run "alloc -O$level many_ifs" 120 "$allocsim" alloc many_ifs.nki.txt -O$level -o many_ifs.$level.nki.txt
  expect "alloc -O$level many_ifs" 0 "^$"
done
run "verify many_ifs" 120 "$allocsim" verify many_ifs.2.nki.txt
expect "verify many_ifs" 0 "ok: equivalence, symbolic and placement checks pass"

# --- Small programs of the new constructs, through every verb: each allocation verifies and simulates.
# nested: three nested conditions, `%` and `//` on two loop registers; bound: a loop bounded by `i%3`; computed: a
# condition on a register computed from the loop register by addi; descending: an offset `i%4*-1+3`.
cat >nested.nki.txt <<'EOF'
arch tiny
reg i
reg j
dram O [1, 8] f32 output
sbuf t [1, 8] f32
sbuf u [1, 8] f32

memset u, 0
memset t, 2
loop i = 0, 8, 1 {
  loop j = 0, 8, 1 {
    if i >= j {
      if i%2 == 0 {
        if j//2 != 1 {
          copy t[0:1, j:1], u[0:1, i:1]
        }
      }
    }
  }
}
copy u, t
dma O, u
EOF
cat >bound.nki.txt <<'EOF'
arch tiny
reg i
reg j
dram O [1, 8] f32 output
sbuf t [1, 8] f32

memset t, 0
loop i = 0, 8, 1 {
  loop j = 0, i%3, 1 {
    memset t[0:1, j:1], 1
  }
}
dma O, t
EOF
cat >computed.nki.txt <<'EOF'
arch tiny
reg i
reg r
dram O [1, 8] f32 output
sbuf t [1, 8] f32

memset t, 1
loop i = 0, 4, 1 {
  addi r, i, 1
  if r%3 == 0 {
    memset t[0:1, i:1], 0
  }
}
dma O, t
EOF
cat >descending.nki.txt <<'EOF'
arch tiny
reg i
dram O [1, 8] f32 output
sbuf t [1, 8] f32

memset t, 1
loop i = 0, 4, 1 {
  memset t[0:1, i%4*-1+3:1], 0
}
dma O, t
EOF
for f in nested bound computed descending; do
  run "fmt $f" 20 "$allocsim" fmt $f.nki.txt -o /dev/null
  expect "fmt $f" 0 "^$"
  run "interp $f" 20 "$allocsim" interp $f.nki.txt
  expect "interp $f" 0 "^output O \[1, 8\] f32 hash=0x"
  for level in 0 1 2 3 6 7 8; do
    run "alloc -O$level $f" 30 "$allocsim" alloc $f.nki.txt -O$level -o $f.$level.nki.txt
    expect "alloc -O$level $f" 0 "^$"
    run "verify -O$level $f" 30 "$allocsim" verify $f.$level.nki.txt
    expect "verify -O$level $f" 0 "ok: equivalence, symbolic and placement checks pass"
  done
  run "alloc exact $f" 30 "$allocsim" alloc $f.nki.txt --allocator exact --time-limit 5 -o $f.x.nki.txt
  expect "alloc exact $f" 0 "^$"
  run "verify exact $f" 30 "$allocsim" verify $f.x.nki.txt
  expect "verify exact $f" 0 "ok: equivalence, symbolic and placement checks pass"
  run "run $f" 60 "$allocsim" run $f.nki.txt
  expect "run $f" 0 "simulated"
  run "run --timing-only $f" 60 "$allocsim" run $f.nki.txt --timing-only
  expect "run --timing-only $f" 0 "simulated"
done

# --- Refusals, located: a block that runs on no iteration (`i%2 != 0` in a loop of one iteration) leaves the tensor
# it would write unwritten, and the read after it is refused at the read; an offset that `%` and a negative scale take
# below 0 on the last iteration is refused with the register's value.
cat >never.nki.txt <<'EOF'
arch tiny
reg i
dram O [1, 8] f32 output
sbuf t [1, 8] f32
sbuf u [1, 8] f32

memset u, 1
loop i = 0, 1, 1 {
  if i%2 != 0 {
    copy t, u
  }
}
copy u, t
dma O, u
EOF
printf 'arch tiny\nreg i\ndram O [1, 8] f32 output\nsbuf t [1, 8] f32\n\nmemset t, 1\nloop i = 0, 4, 1 {\n  memset t[0:1, i%%4*-1+2:1], 0\n}\ndma O, t\n' >below.nki.txt
for verb in fmt interp "alloc -O2" "alloc -O8" "alloc --allocator exact --time-limit 5" run "run --timing-only"; do
  # shellcheck disable=SC2086
  run "$verb never" 30 "$allocsim" $verb never.nki.txt
  expect "$verb never" 2 "^never\.nki\.txt:13:9: reads never-written element \[0, 0\] of 't'"
  # shellcheck disable=SC2086
  run "$verb below" 30 "$allocsim" $verb below.nki.txt
  expect "$verb below" 2 "^below\.nki\.txt:8:10: t\[0:1, -1:1\] is out of bounds of tensor 't' \[1, 8\] \(i = 3\)"
done

finish "hostile constructs"
