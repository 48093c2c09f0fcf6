// What allocator tests check of an allocation: all three oracles against the original program, through the same
// entry point as `allocsim verify --original` (verify/verify.h), and the figures of an allocation report.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "alloc/report.h"
#include "verify/verify.h"

namespace allocsim {

// Every finding fails the test (named by `what`); so does an oracle that did not run.
inline void expectOraclesPass(const Program& original, const Program& allocated, const std::string& what,
                              uint64_t poison_seed) {
  VerifyOptions vo;
  vo.original = &original;
  vo.poison_seed = poison_seed;
  VerifyReport r = verifyAllocated(allocated, vo);
  for (const Finding& f : r.findings) ADD_FAILURE() << what << ": " << f.format(what);
  for (const OracleRun& o : r.oracles) EXPECT_TRUE(o.ran) << what;
}

// A numeric report field, or -1 when the report has none by that key.
inline int64_t reportField(const AllocReport& r, const std::string& key) {
  const ReportField* f = r.find(key);
  return f ? std::stoll(f->value) : -1;
}

}  // namespace allocsim
