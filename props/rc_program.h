// RapidCheck generators for programs (props/): the program generator (gen/generate.h)
// driven by RapidCheck, one `inRange` per decision. Because every decision is a separate RapidCheck value,
// shrinking works choice by choice, and since a choice of 0 always means "stop / smallest / first option",
// a shrunk counterexample is a small program.
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include <rapidcheck.h>

#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/program.h"

namespace allocsim {

// Only usable while a RapidCheck generator or property runs (it draws with operator*).
class RapidCheckChoices : public Choices {
 public:
  uint64_t below(uint64_t n) override;
};

// Decisions from a RapidCheck-generated list, consumed in order (value % n); once the list runs out every
// decision is 0. Shrinking then also *removes* decisions (RapidCheck shrinks a list by dropping elements), which
// deletes whole statements: the per-decision draw of RapidCheckChoices can only turn a statement into the
// simplest one, never remove it, because "stop here" would also drop the statements a failure needs.
class ListChoices : public Choices {
 public:
  explicit ListChoices(const std::vector<uint64_t>& draws) : draws_(draws) {}
  uint64_t below(uint64_t n) override;
  bool exhausted() const override { return pos_ >= draws_.size(); }

 private:
  const std::vector<uint64_t>& draws_;
  size_t pos_ = 0;
};

// A program from generateProgram with these options, driven by RapidCheckChoices.
rc::Gen<Program> genProgram(GenOptions opts);
// The same driven by ListChoices: what the property suites use, for its smaller counterexamples.
rc::Gen<Program> genProgramFromList(GenOptions opts);
// A program on `arch` with a generated size (1 .. max_size) and pressure (50 .. 300 percent), from ListChoices.
rc::Gen<Program> genProgramOn(const Arch& arch, uint32_t max_size = 40);

// A program on the tiny machine with a size drawn from [min_size, max_size] and each rate drawn from its list (an
// empty list: GenOptions' default), from ListChoices.
struct TinyRates {
  uint32_t min_size = 1, max_size = 30;
  std::vector<uint32_t> pressure, reuse, conditionals;
  uint32_t max_nest_trips = 0;  // GenOptions::max_nest_trips
};
rc::Gen<Program> genTinyProgram(TinyRates r);

// RapidCheck prints a counterexample in the text format.
void showValue(const Program& p, std::ostream& os);

}  // namespace allocsim
