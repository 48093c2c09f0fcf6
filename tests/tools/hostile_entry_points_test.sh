#!/usr/bin/env bash
# Hostile inputs at every entry point beyond hostile_inputs_test.sh: program text an editor or a generator can
# produce (a byte-order mark, classic Mac line ends, bytes outside ASCII, sizes that overflow 32 and 64 bits, trip
# counts of 10^18, division by zero in an index), command lines (a second input, bad numbers, unknown names,
# outputs that cannot be written, a FIFO nobody writes), NKI kernels that exit, raise or stop the tracer, minimalloc
# rows no memory holds, and the allocator-fuzzing harness's own options. Each must end with its documented exit code
# and a message that names the file (FILE:LINE:COL:) or the verb, never crash, hang or report success on a failure.
# Usage: hostile_entry_points_test.sh ALLOCSIM
allocsim=${1:?allocsim binary}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=tests/tools/hostile_lib.sh
source "$(dirname "$0")/hostile_lib.sh"
cd "$work" || exit 2

# --- Program text. Each file: its name, its bytes, the verb's exit code and the message expected at its location.
# (2^32-1)^2 * 4 bytes = 73786976260478468100; (2^32-1) * (2^32-1) elements = 18446744065119617025.
text_cases=(
  "bom|\xef\xbb\xbfarch tiny\nsbuf t [1, 4] f32\n\nmemset t, 0\n|2|^bom\.nki\.txt:1:1: the file starts with a UTF-8 byte-order mark"
  "mac|arch tiny\rsbuf t [1, 4] f32\r\rmemset t, 0\r|2|^mac\.nki\.txt:1:10: a carriage return without a line feed"
  "crlf|arch tiny\r\nsbuf t [1, 4] f32\r\n\r\nmemset t, 0\r\n|0|^arch tiny"
  "latin|arch tiny\nsbuf t\xc3\xa9 [1, 4] f32\n|2|^latin\.nki\.txt:2:7: unexpected character '.xC3' \(a byte outside ASCII"
  "dram64|arch tiny\ndram t [4294967295, 4294967295] f32 input\n|2|^dram64\.nki\.txt:2:6: DRAM tensors need 73786976260478468100 bytes in total \(through 't'\); dram-limit is 16777216"
  "tiles64|arch gen2\nsbuf t [4294967295] [128, 4294967295] f32\n|2|^tiles64\.nki\.txt:2:[0-9]+: tile array 't' has 18446744065119617025 elements per partition in all; at most 4294967295"
  "elements33|arch tiny\nsbuf t [1, 4294967296] f32\n|2|^elements33\.nki\.txt:2:12: the element count 4294967296 does not fit in 32 bits"
  "trip1e18|arch tiny\nreg r\nsbuf t [1, 4] f32\n\nloop r = 0, 1000000000000000000, 1 {\n  memset t, 0\n}\n|2|^trip1e18\.nki\.txt:5:1: loop end must be <= 2147483648, got 1000000000000000000"
  "step64|arch tiny\nreg r\n\nloop r = 0, 10, 18446744073709551615 {\n}\n|2|^step64\.nki\.txt:4:17: integer '18446744073709551615' is out of range"
  "div0|arch tiny\nreg r\nsbuf t [1, 64] f32\n\nli r, 3\nmemset t[:, r//0:4], 0\n|2|^div0\.nki\.txt:6:16: the divisor 0 must be from 1 to 4294967295"
  "mod0|arch tiny\nreg r\nsbuf t [1, 64] f32\n\nli r, 3\nmemset t[:, r%%0:4], 0\n|2|^mod0\.nki\.txt:6:15: the modulus 0 must be from 1 to 4294967295"
  "ifscale|arch tiny\nreg r\nsbuf t [1, 64] f32\n\nli r, 1\nif r*9223372036854775807 > r*-9223372036854775807 {\n  memset t, 0\n}\n|2|^ifscale\.nki\.txt:6:[0-9]+: the condition's scale is out of range"
  "loaded|arch tiny\nreg r\nsbuf t [1, 64] u32\nsbuf u [1, 64] f32\n\nmemset t, 4000000000\nreg_load r, t[0:1, 0:1]\nmemset u[:, r:4], 0\n|2|^loaded\.nki\.txt:8:8: view of 'u' is addressed by register 'r', whose value was loaded from memory"
  "loadedbound|arch tiny\nreg r\nreg i\nsbuf t [1, 64] u32\nsbuf u [1, 64] f32\n\nmemset t, 4000000000\nreg_load r, t[0:1, 0:1]\nloop i = 0, r, 1 {\n  memset u, 0\n}\n|2|^loadedbound\.nki\.txt:9:[0-9]+: loop bound uses register 'r', which no enclosing loop counts with"
  "pinp|arch tiny\nsbuf t [1, 4] f32 pinned @p99999999999+0\n\nmemset t, 0\n|2|^pinp\.nki\.txt:2:[0-9]+: partition number in placement 'p99999999999' is out of range"
  "pinb|arch tiny\nsbuf t [1, 4] f32 pinned @p0+18446744073709551615\n\nmemset t, 0\n|2|^pinb\.nki\.txt:2:6: placement @p0\+18446744073709551615 of 't' \[1, 4\] \(16 bytes per partition\) exceeds SBUF"
  "pinbank|arch tiny\npsum t [1, 4] f32 pinned @bank18446744073709551615\n|2|^pinbank\.nki\.txt:2:[0-9]+: bank number in placement 'bank18446744073709551615' is out of range"
  "pinreg|arch tiny\nreg r @r4\n\nli r, 1\n|2|^pinreg\.nki\.txt:2:5: placement @r4 of register 'r' \(1 lanes?\) exceeds the 4 SP registers"
  "pindram|arch tiny\ndram t [1, 4] f32 input pinned @18446744073709551615\n|2|^pindram\.nki\.txt:2:6: placement @18446744073709551615 of 't' \(16 bytes\) exceeds dram-limit 16777216"
  "align0|arch tiny sbuf-align=0\n|2|^align0\.nki\.txt:1:22: sbuf-align must be between 1 and 4096, got 0"
  "quantum0|arch tiny sbuf-partition-quantum=0\n|2|^quantum0\.nki\.txt:1:34: sbuf-partition-quantum must be between 1 and 1024, got 0"
  "bank0|arch tiny psum-bank-bytes=0\n|2|^bank0\.nki\.txt:1:27: psum-bank-bytes must be between 1 and 65536, got 0"
  "inf|arch tiny\nsbuf t [1, 4] f32\n\nmemset t, 1e99999\n|2|^inf\.nki\.txt:4:11: float '1e99999' is out of range"
  "terms|arch tiny\nreg a\nreg b\nreg c\nreg d\nreg e\nreg f\nreg g\nreg h\nreg i\nsbuf t [1, 64] f32\n\nmemset t[:, a+b+c+d+e+f+g+h+i:1], 0\n|2|^terms\.nki\.txt:13:[0-9]+: an index may have at most 8 register terms"
)
for c in "${text_cases[@]}"; do
  IFS='|' read -r name bytes code pattern <<<"$c"
  printf "$bytes" >"$name.nki.txt"
  run "fmt $name" 20 "$allocsim" fmt "$name.nki.txt"
  expect "fmt $name" "$code" "$pattern"
done
# 100000 nested loops: refused at the 65th, without a deep recursion.
{
  printf 'arch tiny\nreg r\nsbuf t [1, 4] f32\n\n'
  for _ in $(seq 100000); do echo 'loop r = 0, 1, 1 {'; done
  echo 'memset t, 0'
  for _ in $(seq 100000); do echo '}'; done
} >deep.nki.txt
run "alloc deep" 20 "$allocsim" alloc deep.nki.txt
expect "alloc deep" 2 "^deep\.nki\.txt:69:1: loops nested deeper than 64"
# Three nested loops of 2^31 trips each: interpreting them would take years; the step limit ends it at once.
printf 'arch tiny\nreg a\nreg b\nreg c\nsbuf t [1, 4] f32\n\nloop a = 0, 2147483648, 1 {\n  loop b = 0, 2147483648, 1 {\n    loop c = 0, 2147483648, 1 {\n      memset t, 0\n    }\n  }\n}\n' >cube.nki.txt
run "interp cube" 30 "$allocsim" interp cube.nki.txt
expect "interp cube" 2 "^cube\.nki\.txt:9:5: program executes more than 16777216 instructions"

# --- Command lines.
printf 'arch tiny\nsbuf t [1, 4] f32\ndram o [1, 4] f32 output\n\nmemset t, 0\ndma o, t\n' >p.nki.txt
mkdir adir
mkfifo nobody.nki.txt
# command | exit code | message
cli_cases=(
  "alloc p.nki.txt p.nki.txt|2|^allocsim alloc: unexpected argument 'p\.nki\.txt': the input is already 'p\.nki\.txt'"
  "run p.nki.txt extra|2|^allocsim run: unexpected argument 'extra': the input is already 'p\.nki\.txt'"
  "alloc p.nki.txt -o /dev/full|2|^allocsim alloc: cannot write '/dev/full': "
  "fmt p.nki.txt -o adir|2|^allocsim fmt: cannot write 'adir': it is a directory"
  "alloc p.nki.txt --allocator greedy|2|^allocsim alloc: unknown allocator 'greedy' \(expected coloring, no-reuse, fixed, lsa or exact\)"
  "alloc p.nki.txt -O 99|2|^allocsim alloc: optlevel 99 is out of range 0\.\.8"
  "alloc p.nki.txt --time-limit nan|2|^allocsim alloc: --time-limit expects seconds, more than 0 and at most 86400, got 'nan'"
  "alloc p.nki.txt --seed 99999999999999999999999|2|^allocsim alloc: --seed must be at most 18446744073709551615"
  "alloc p.nki.txt --sbuf-heuristic 16|2|^allocsim alloc: --sbuf-heuristic expects a heuristic's index \(0-15\) or name, got '16'"
  "alloc p.nki.txt --sbuf-bytes -5|2|^allocsim alloc: --sbuf-bytes expects a positive integer, got '-5'"
  "run p.nki.txt --top -1|2|^allocsim run: --top expects a non-negative integer, got '-1'"
  "run p.nki.txt --compare ,|2|^allocsim run: --compare expects optlevels like O0,O2,O7, got ','"
  "run p.nki.txt --timing p.nki.txt|2|^p\.nki\.txt:1:6: timing key 'arch' expects a number, got 'tiny'"
  "trace p.nki.txt --vcd adir|2|^allocsim trace: cannot write 'adir': it is a directory"
  "trace p.nki.txt --vcd missing/t.vcd|2|^allocsim trace: cannot write 'missing/t\.vcd': No such file"
  "trace p.nki.txt --vcd /dev/full|2|^allocsim trace: cannot write '/dev/full': "
  "interp p.nki.txt --outputs-dir missing|2|^allocsim interp: cannot write 'missing/o\.bin'"
  "interp p.nki.txt --input o=p.nki.txt|2|^allocsim interp: --input o: the program has no DRAM input tensor 'o'"
  "gen --seed 1 --size 100001|2|^allocsim gen: --size must be at most 100000, got 100001"
  "gen --seed 1 --json|2|^allocsim gen: --json goes with --stats"
  "gen --seed 1 --size 0|2|^allocsim gen: --size must be at least 1, got 0"
  "fuzz-allocator --runs 1 --size 0 -- true|2|^allocsim fuzz-allocator: --size must be at least 1, got 0"
  "fmt /dev/zero|2|^allocsim fmt: '/dev/zero' is larger than 512 MiB"
  "verify adir|2|^allocsim verify: adir: is a directory"
  "fuzz-allocator --runs 0 -- true|2|^allocsim fuzz-allocator: --runs 0 needs --time S"
  "fuzz-allocator --runs 1 --no-kernels --out p.nki.txt -- true|2|^allocsim fuzz-allocator: --out 'p\.nki\.txt' is not a directory"
  "fuzz-allocator --runs 1 --corpus missing -- true|2|^allocsim fuzz-allocator: --corpus: 'missing' is not a directory"
)
for c in "${cli_cases[@]}"; do
  IFS='|' read -r cmd code pattern <<<"$c"
  # shellcheck disable=SC2086  # the command is split on purpose
  run "$cmd" 30 "$allocsim" $cmd
  expect "$cmd" "$code" "$pattern"
done
# Timing tables: a key given twice, a NUL byte (shown escaped, not cutting the message short), a directory; costs at
# the top of every key's range over an 8 Mi-element instruction: 10^6 ACT cycles an element at 0.001 GHz, reported
# at 100 GHz, is 8388608 * 10^6 * 10^5 = 8.4e17 cycles an instruction, past the 2^50 = 1.1e15 cycles the simulator
# counts at the act (line 6); 10^6 SP cycles a loop iteration is 10^11, past them at iteration 11259.
printf 'pe.fixed 1\npe.fixed 2\n' >dup.timing.txt
printf 'pe.fixed 1\0\n' >nul.timing.txt
printf 'clock-ghz 100\nact.clock-ghz 0.001\nact.per-element 1000000\n' >slow.timing.txt
printf 'clock-ghz 100\nsp.clock-ghz 0.001\nsp.loop-iteration 1000000\n' >slowloop.timing.txt
printf 'arch tiny sbuf-bytes=16777216\nsbuf a [1, 8388608] bf16\nsbuf b [1, 8388608] bf16\n\nmemset a, 1\nact b, a, exp\n' >bigact.nki.txt
printf 'arch tiny\nreg i\nreg r\nsbuf t [1, 4] f32\n\nmemset t, 0\nloop i = 0, 1000000, 1 {\n  li r, 1\n}\n' >sploop.nki.txt
timing_cases=(
  "run p.nki.txt --timing dup.timing.txt|^dup\.timing\.txt:2:1: timing key 'pe\.fixed' is given twice \(first on line 1\)"
  "run p.nki.txt --timing nul.timing.txt|^nul\.timing\.txt:1:10: timing key 'pe\.fixed' expects a number, got '1[\\]x00'\$"
  "run p.nki.txt --timing adir|^allocsim run: adir: is a directory, not a file"
  "run bigact.nki.txt --timing slow.timing.txt --timing-only|^bigact\.nki\.txt:6:1: the simulated time passes 1125899906842624 cycles at this instruction"
  "trace bigact.nki.txt --timing slow.timing.txt --vcd t.vcd|^bigact\.nki\.txt:6:1: the simulated time passes 1125899906842624 cycles"
  "run sploop.nki.txt --timing slowloop.timing.txt --timing-only|^sploop\.nki\.txt:8:3: the simulated time passes 1125899906842624 cycles"
)
for c in "${timing_cases[@]}"; do
  IFS='|' read -r cmd pattern <<<"$c"
  # shellcheck disable=SC2086  # the command is split on purpose
  run "$cmd" 30 "$allocsim" $cmd
  expect "$cmd" 2 "$pattern"
done

# Standard output that cannot take the result: an error, not exit 0 with the output lost.
run "interp >/dev/full" 20 bash -c "exec '$allocsim' interp p.nki.txt >/dev/full"
expect "interp >/dev/full" 2 "^allocsim interp: cannot write standard output: "
# A FIFO no process writes to: refused after a bounded wait instead of blocking for ever; one that is written reads.
run "fmt FIFO without a writer" 30 "$allocsim" fmt nobody.nki.txt
expect "fmt FIFO without a writer" 2 "^allocsim fmt: nobody\.nki\.txt: a FIFO nothing wrote to within 10 s"
run "fmt FIFO with a writer" 30 bash -c "cat p.nki.txt >nobody.nki.txt & exec '$allocsim' fmt nobody.nki.txt"
expect "fmt FIFO with a writer" 0 "^arch tiny"

# --- NKI kernels in Python that end the tracer themselves or ask for what no machine has.
if command -v python3 >/dev/null; then
  head='import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
'
  copy='    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.load(a))
    return out
'
  # name | module-level code | kernel body | message
  nki_cases=(
    "exits|import sys\nsys.exit(0)\n|$copy|^exits\.py:4: the file calls sys\.exit\(0\) while it is traced"
    "exits_in_kernel|import sys\n|    sys.exit(3)\n|^exits_in_kernel\.py:6: the file calls sys\.exit\(3\) while it is traced"
    "interrupt||    raise KeyboardInterrupt()\n|^interrupt\.py:5: KeyboardInterrupt raised while the file is traced"
    "os_exit|import os\nos._exit(0)\n|$copy|^allocsim nki: os_exit\.py: the Python tracer ended without writing a program"
    "raises||    raise ValueError('no')\n|^raises\.py:5: ValueError: no"
    "missing_module|import no_such_module_anywhere\n|$copy|^missing_module\.py:3: ModuleNotFoundError: No module named 'no_such_module_anywhere'"
    "huge||    t = nl.ndarray((128, 2**40), dtype=nl.float32, buffer=nl.sbuf)\n    out = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.shared_hbm)\n    nl.store(out, value=t[:, 0:4])\n    return out\n|^huge\.py:5: the element count 1099511627776 does not fit in 32 bits"
  )
  for c in "${nki_cases[@]}"; do
    IFS='|' read -r name module body pattern <<<"$c"
    { printf '%s' "$head"; printf "$module"; printf '@nki.jit\ndef k(a):\n'; printf "$body"; } >"$name.py"
    run "nki $name" 30 "$allocsim" nki "$name.py" --kernel k --arg a=128x4:float32 --trace-time-limit 20
    expect "nki $name" 2 "$pattern"
  done
  { printf '%s' "$head"; printf '@nki.jit\ndef k(a):\n%s' "$copy"; } >ok.py
  run "nki missing --arg" 30 "$allocsim" nki ok.py --kernel k
  expect "nki missing --arg" 2 "^ok\.py:3: parameter 'a' of kernel 'k' needs a value"
  run "nki unknown dtype" 30 "$allocsim" nki ok.py --kernel k --arg a=128x4:float99
  expect "nki unknown dtype" 2 "^ok\.py:[0-9]+: .*float99"
  run "nki -o /dev/full" 30 "$allocsim" nki ok.py --kernel k --arg a=128x4:float32 -o /dev/full
  expect "nki -o /dev/full" 2 "^allocsim nki: cannot write '/dev/full': "
  # A process the file starts and leaves running holds the tracer's output open: the trace ends with the tracer
  # (well within the limit, not at it), and the process goes with it.
  { printf '%s' "$head"; printf 'import subprocess\nleft = subprocess.Popen(["sleep", "300"])\nopen("left.pid", "w").write(str(left.pid))\n@nki.jit\ndef k(a):\n%s' "$copy"; } >leaves.py
  run "nki leaves a process" 30 "$allocsim" nki leaves.py --kernel k --arg a=128x4:float32 --trace-time-limit 20
  expect "nki leaves a process" 0 "^dram out \[128, 4\] f32 output"
  if [ -f left.pid ]; then
    case $(ps -o stat= -p "$(cat left.pid)") in  # gone, or a zombie nobody reaped yet (a container's init may not)
      "" | Z*) ;;
      *) fail "nki leaves a process: the process it started still runs" ;;
    esac
  else
    fail "nki leaves a process: the file did not run"
  fi
  # Memory: a file that allocates without end meets --trace-memory-limit as Python's MemoryError at its line.
  { printf '%s' "$head"; printf 'blocks = []\nwhile True:\n    blocks.append(bytearray(2**24))\n@nki.jit\ndef k(a):\n%s' "$copy"; } >grows.py
  run "nki grows" 30 "$allocsim" nki grows.py --kernel k --arg a=128x4:float32 --trace-memory-limit 200000000
  expect "nki grows" 2 "^grows\.py:5: MemoryError"
  run "nki --trace-memory-limit 1000" 30 "$allocsim" nki ok.py --kernel k --arg a=128x4:float32 --trace-memory-limit 1000
  expect "nki --trace-memory-limit 1000" 2 "^allocsim nki: --trace-memory-limit must be at least 67108864"
  run "interp --trace-memory-limit x" 30 "$allocsim" interp ok.py --kernel k --arg a=128x4:float32 --trace-memory-limit x
  expect "interp --trace-memory-limit x" 2 "^allocsim interp: --trace-memory-limit expects a non-negative integer, got 'x'"
  printf 'arch tiny\nsbuf t [1, 4] f32\n' >program_text.py
  run "nki program text as .py" 30 "$allocsim" nki program_text.py
  expect "nki program text as .py" 2 "^program_text\.py:1: syntax error"
fi

# --- minimalloc rows no memory holds.
printf 'id,lower,upper,size\na,0,10,65\n' >big.64.csv
printf '\xef\xbb\xbfid,lower,upper,size\na,0,10,8\n' >bom.64.csv
printf 'id,lower,upper,size\na\0,0,10,8\n' >nul.64.csv
run "solve nul" 10 "$allocsim" solve minimalloc nul.64.csv
expect "solve nul" 2 "^nul\.64\.csv:2:1: buffer id 'a[\\]x00' must be letters, digits, '_' or '\.'"
run "import big" 10 "$allocsim" import minimalloc big.64.csv -o /dev/null
expect "import big" 2 "^big\.64\.csv:2:1: buffer 'a' has size 65, more than the capacity 64: no placement exists"
run "solve big" 10 "$allocsim" solve minimalloc big.64.csv -o /dev/null
expect "solve big" 3 "^big\.64\.csv:2:1: exact: no placement within 64 bytes exists \(proved\)"
run "import bom" 10 "$allocsim" import minimalloc bom.64.csv -o /dev/null
expect "import bom" 2 "^bom\.64\.csv:1:1: "

finish "hostile entry points"
