#!/usr/bin/env bash
# fuzz_decode --machine (fuzz::runOn): the decoded program is the same, only the machine it runs on changes; --arch
# changes the machine the program is generated for, and so the program; a bad override is refused with exit code 2.
# Usage: fuzz_decode_machine_test.sh FUZZ_DECODE CORPUS_DIR
set -uo pipefail
bin=${1:?fuzz_decode binary}
corpus=${2:?a corpus directory}
fail() { echo "FAIL: $*"; exit 1; }
mapfile -t files < <(find "$corpus" -type f | sort | head -n 20)
[ ${#files[@]} -gt 0 ] || fail "no inputs in $corpus"

plain=$("$bin" "${files[@]}") || fail "exit $? decoding"
roomy=$("$bin" --machine sbuf-bytes=12288 --machine psum-banks=8 "${files[@]}") || fail "exit $? with --machine"
# Every program's arch line names the overrides, and nothing else differs.
[ "$(grep -c '^arch tiny sbuf-bytes=12288 psum-banks=8$' <<<"$roomy")" -eq ${#files[@]} ] ||
  fail "--machine: not every arch line is 'arch tiny sbuf-bytes=12288 psum-banks=8'"
[ "$(grep -v '^arch ' <<<"$plain")" = "$(grep -v '^arch ' <<<"$roomy")" ] || fail "--machine changed a program"
# --arch generates for the larger machine: some program differs (larger tensors).
generated=$("$bin" --arch sbuf-bytes=12288 --arch psum-banks=8 "${files[@]}") || fail "exit $? with --arch"
[ "$(grep -v '^arch ' <<<"$plain")" != "$(grep -v '^arch ' <<<"$generated")" ] ||
  fail "--arch did not change what the generator made of ${#files[@]} inputs"

err=$("$bin" --machine bogus=1 "${files[0]}" 2>&1 >/dev/null)
[ $? -eq 2 ] && [ "$err" = "fuzz_decode: --machine bogus=1: unknown arch parameter 'bogus'" ] || fail "bad key: $err"
err=$("$bin" --machine sbuf-bytes "${files[0]}" 2>&1 >/dev/null)
[ $? -eq 2 ] && [ "$err" = "fuzz_decode: --machine sbuf-bytes: expected KEY=VALUE" ] || fail "no value: $err"
echo "fuzz_decode --machine: ok (${#files[@]} inputs: same programs on the roomy machine, --arch differs, two refusals)"
