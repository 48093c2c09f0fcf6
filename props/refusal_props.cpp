// Refusals that tell the truth: on generated programs at pressure, every exit-3 message that names tensors live
// together is checked against the program itself, independently of the allocator that wrote it:
// - the up-front check's "OP reads [and writes] SBUF tensors of N bytes in all (a, b), all resident while it runs,
//   and the SBUF holds C" (alloc/feasibility.h), and its PSUM form in banks;
// - the exact search's proof by the area bound, "...; live together at line L: 'a' (8 x 256 bytes), 'b' (...),
//   S bytes per partition against C" (alloc/exact/exact_allocator.h), in banks, bytes or partition-bytes.
// The named tensors' declared sizes must add up to the stated total, the total must exceed the stated capacity
// (the machine's), and the interpreter's dynamic liveness (verify/dynamic_liveness.h) must have all of them live at
// one step of the run: a set that is live together only at one linear position, in different iterations of its
// loops, proves nothing. A tensor the exact search split into values (`a_Val3`, alloc/value_split.h) counts as the
// tensor it holds a value of.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "ir/print.h"
#include "props/rc_program.h"
#include "tools/placement_check.h"
#include "verify/dynamic_liveness.h"

namespace allocsim {
namespace {

// The input tensor a named tensor stands for: itself, or the tensor whose value a `NAME_ValK` holds.
TensorId inputTensor(const Program& p, std::string name) {
  TensorId t = p.findTensor(name);
  static const std::regex value(R"((.*)_Val[0-9]+$)");
  std::smatch m;
  while (t == kNone && std::regex_match(name, m, value)) {
    name = m[1];
    t = p.findTensor(name);
  }
  return t;
}

// Whether the tensors share a step at which the interpreter observes every one of them live.
bool liveAtOneStep(const DynamicLiveness& dy, const std::vector<TensorId>& ts) {
  if (ts.empty()) return false;
  std::vector<StepInterval> common = dy.tensors[ts[0]].intervals();
  for (size_t k = 1; k < ts.size() && !common.empty(); ++k) {
    LiveIntervals a;
    for (const StepInterval& i : common) a.add(i.lo, i.hi);
    common = commonSteps(a, dy.tensors[ts[k]]);
  }
  return !common.empty();
}

// Checks one refusal message; returns the form it had ("" when it names no tensors live together).
std::string checkRefusal(const Program& p, const DynamicLiveness& dy, const std::string& msg) {
  const uint64_t sbuf_area = uint64_t(p.arch.sbuf_partitions) * p.arch.sbuf_bytes;
  static const std::regex resident(
      R"(^\w+ (reads|writes|reads and writes) (SBUF|PSUM) tensors of ([0-9]+) (bytes|banks) in all \(([^)]*)\), all )"
      R"(resident while it runs, and the (SBUF holds|PSUM has) ([0-9]+))");
  static const std::regex together(R"(; live together(?: at line [0-9]+)?: (.*), ([0-9]+) (banks|bytes per partition|)"
                                   R"(partition-bytes) against ([0-9]+)$)");
  std::smatch m;
  if (std::regex_search(msg, m, resident)) {
    const bool sbuf = m[2] == "SBUF";
    const uint64_t total = std::stoull(m[3]), capacity = std::stoull(m[7]);
    const std::string list = m[5];
    RC_ASSERT(capacity == (sbuf ? sbuf_area : uint64_t(p.arch.psum_banks)));
    RC_ASSERT(total > capacity);
    if (list.find("...") != std::string::npos) return "resident (list cut)";
    std::vector<TensorId> ts;
    uint64_t sum = 0;
    for (size_t at = 0; at <= list.size();) {
      size_t end = list.find(", ", at);
      if (end == std::string::npos) end = list.size();
      const TensorId t = p.findTensor(list.substr(at, end - at));
      RC_ASSERT(t != kNone);
      ts.push_back(t);
      const Tensor& x = p.tensors[t];
      sum += sbuf ? uint64_t(x.partitions) * x.bytesPerPartition() : psumBankCount(p.arch, x);
      at = end + 2;
    }
    RC_ASSERT(sum == total);
    RC_ASSERT(liveAtOneStep(dy, ts));
    return "resident";
  }
  if (std::regex_search(msg, m, together)) {
    const std::string list = m[1], unit = m[3];
    const uint64_t total = std::stoull(m[2]), capacity = std::stoull(m[4]);
    RC_ASSERT(capacity == (unit == "banks" ? uint64_t(p.arch.psum_banks)
                           : unit == "partition-bytes" ? sbuf_area
                                                       : uint64_t(p.arch.sbuf_bytes)));
    RC_ASSERT(total > capacity);
    static const std::regex named(R"('([^']+)' \()");
    std::vector<TensorId> ts;
    uint64_t sum = 0;
    for (auto it = std::sregex_iterator(list.begin(), list.end(), named); it != std::sregex_iterator(); ++it) {
      const TensorId t = inputTensor(p, (*it)[1]);
      RC_ASSERT(t != kNone);
      ts.push_back(t);
      const Tensor& x = p.tensors[t];
      sum += unit == "banks"             ? psumBankCount(p.arch, x)
             : unit == "partition-bytes" ? uint64_t(x.partitions) * x.bytesPerPartition()
                                         : x.bytesPerPartition();
    }
    std::sort(ts.begin(), ts.end());
    ts.erase(std::unique(ts.begin(), ts.end()), ts.end());
    if (list.find(" more") == std::string::npos) RC_ASSERT(sum == total);
    if (!liveAtOneStep(dy, ts)) RC_FAIL("the tensors named are never live at one step: " + msg + "\n" + printProgram(p));
    return list.find(" more") != std::string::npos ? "live together (list cut)" : "live together";
  }
  if (msg.find("over the live ranges") != std::string::npos) return "not proved: live in different iterations";
  return "";
}

RC_GTEST_PROP(Refusals, NamedTensorsAreLiveTogetherAndExceedTheCapacity, ()) {
  const Program p = *genProgramOn(*archPreset("tiny"), 30);
  DynamicLiveness dy;
  try {
    dy = computeDynamicLiveness(p);
  } catch (const std::exception&) {
    RC_DISCARD("the program does not run within the interpreter's limits");
  }
  uint32_t refused = 0, checked = 0;
  for (const char* allocator : {"coloring", "lsa", "exact"}) {
    DriverOptions o;
    o.allocator = allocator;
    o.optlevel = std::string(allocator) == "lsa" ? 6 : 2;  // the linear scan's loop-aware level
    if (std::string(allocator) == "exact") {
      o.exact_check = placementOracleCheck();  // as `allocsim alloc` runs it
      o.time_limit_s = 5;
      o.node_budget = 20000;
    }
    try {
      allocate(p, o);
    } catch (const AllocError& e) {
      ++refused;
      const std::string form = checkRefusal(p, dy, e.what());
      if (form.starts_with("live together") || form.starts_with("resident")) ++checked;
      RC_TAG(form.empty() ? "other refusal" : form);
    }
  }
  RC_TAG(refused == 0 ? "allocated" : checked ? "some refusal checked" : "refused, nothing named");
}

}  // namespace
}  // namespace allocsim
