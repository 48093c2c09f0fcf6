// Fuzz target: program text -> parser -> printer round trip -> well-formedness checker -> interpreter.
// Properties: nothing crashes, hangs or allocates without bound; every accepted text prints to a canonical
// form that parses back to an equal program and prints identically; a well-formed program interprets
// (or is rejected with an InputError, never anything else).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "ir/check.h"
#include "ir/interp.h"
#include "ir/parse.h"
#include "ir/print.h"

using namespace allocsim;

namespace {

// Bounds that keep one input fast under ASan; programs beyond them are still parsed and checked.
constexpr uint64_t kMaxCheckSteps = 1 << 15;
// A gen2 matmul over 10 MB of tensors interprets in 0.5 s natively but over 10 s under ASan + coverage: beyond
// this size the fuzzer learns nothing new from running the program, only the checker is exercised.
constexpr uint64_t kMaxInterpBytes = uint64_t(256) << 10;

uint64_t declaredBytes(const Program& p) {
  uint64_t total = 0;
  for (const Tensor& t : p.tensors) total += t.totalBytes();
  return total;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  Program p;
  try {
    p = parseProgram(text);
  } catch (const InputError&) {
    return 0;
  }
  std::string printed = printProgram(p);
  Program q;
  try {
    q = parseProgram(printed);
  } catch (const InputError&) {
    std::abort();  // the canonical form of an accepted program must parse
  }
  if (!(q == p) || printProgram(q) != printed) std::abort();

  CheckOptions copts;
  copts.max_steps = kMaxCheckSteps;
  if (!checkProgram(p, copts).empty()) return 0;
  if (declaredBytes(p) > kMaxInterpBytes) return 0;
  InterpOptions iopts;
  iopts.max_steps = kMaxCheckSteps;
  try {
    interpret(p, iopts);
  } catch (const InputError&) {
  }
  return 0;
}
