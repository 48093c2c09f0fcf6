# Helpers of the hostile-input tests (sourced): run a command under a time limit and hold its exit code and output.
# Every run fails the test when it is still running at its limit, dies of a signal, or prints what only a crash or a
# broken promise prints (an internal error, an uncaught exception, an assertion, a sanitizer report, a Python
# traceback).
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# run NAME SECONDS CMD...: runs CMD (standard input empty), keeping its exit code in $rc and both streams in $out.
run() {
  local name=$1 limit=$2
  shift 2
  out=$(timeout -s KILL "$limit" "$@" 2>&1 </dev/null)
  rc=$?
  [ "$rc" -eq 137 ] && fail "$name: still running after $limit s"
  [ "$rc" -ge 128 ] && [ "$rc" -ne 137 ] && fail "$name: killed by signal $((rc - 128))"
  case $out in
    *"internal error"* | *"terminate called"* | *"Assertion"* | *"AddressSanitizer"* | *"runtime error:"* | \
      *"Traceback (most recent call last)"*)
      fail "$name: crash text in the output: $(echo "$out" | head -5)" ;;
  esac
  return 0
}

# expect NAME CODE PATTERN: the last run's exit code is CODE and its output matches the extended regex PATTERN.
expect() {
  [ "$rc" -eq "$2" ] || fail "$1: exit $rc, expected $2: $(echo "$out" | head -3)"
  echo "$out" | grep -Eq -- "$3" || fail "$1: output does not match /$3/: $(echo "$out" | head -3)"
}

# finish: the test's exit code and closing line.
finish() {
  [ "$failures" -eq 0 ] || { echo "$failures failure(s)" >&2; exit 1; }
  echo "$1: all passed"
}
