// Properties of the generator itself: every program it makes is well-formed and survives the text round
// trip, so every other property may take generated programs as valid input.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "ir/check.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "props/rc_program.h"
#include "props/regression_file.h"

namespace allocsim {
namespace {

RC_GTEST_PROP(GeneratedPrograms, AreWellFormedAndRoundTrip, ()) {
  const Program p = *genProgramOn(*archPreset("tiny"));
  std::vector<Diagnostic> diags = checkProgram(p);
  if (!diags.empty()) {
    std::string why = "not well-formed: " + formatDiagnostic("generated", diags.front());
    saveRegression("generated_not_well_formed", p, why);
    RC_FAIL(why);
  }
  const std::string text = printProgram(p);
  Program back;
  try {
    back = parseProgram(text);
  } catch (const InputError& e) {
    saveRegression("generated_does_not_parse", p, e.format("printed"));
    RC_FAIL("printed program does not parse: " + e.format("printed"));
  }
  if (!(back == p) || printProgram(back) != text) {
    saveRegression("generated_round_trip", p, "print then parse changed the program");
    RC_FAIL("print then parse changed the program");
  }
  size_t n = 0;
  forEachInstruction(p.body, [&](const Instruction&) { ++n; });
  RC_TAG(n < 10 ? "< 10 instructions" : n < 100 ? "10-99 instructions" : ">= 100 instructions");
}

// What shrinking converges to, all-zero decisions, is a small well-formed program at any size.
RC_GTEST_PROP(GeneratedPrograms, AllZeroDecisionsGiveASmallWellFormedProgram, ()) {
  const uint32_t size = *rc::gen::inRange<uint32_t>(1, 41);
  class Zeros : public Choices {  // an empty decision list, as ListChoices is once it runs out
   public:
    uint64_t below(uint64_t) override { return 0; }
    bool exhausted() const override { return true; }
  } zeros;
  const Program p = generateProgram(zeros, GenOptions{*archPreset("tiny"), size, 100});
  RC_ASSERT(checkProgram(p).empty());
  size_t n = 0;
  forEachInstruction(p.body, [&](const Instruction&) { ++n; });
  RC_ASSERT(n <= 4u);  // the all-zero stream stops after the first statement
}

}  // namespace
}  // namespace allocsim
