// Findings grouped for a readable report: one bad placement can give thousands of findings (2,000
// tensors on one address: one overlap per pair). Findings of one oracle and kind about the same tensors (an overlap's
// pair) or the same instruction form a group; a report prints each group's first finding in full and counts the
// rest, and stops after a number of groups. JSON reports list every finding.
#pragma once

#include <cstddef>
#include <vector>

#include "verify/finding.h"

namespace allocsim::cli {

struct FindingGroup {
  size_t first = 0;                 // index of the group's first finding (groups are in first-finding order)
  std::vector<size_t> rest;         // the others, in order
  size_t count() const { return 1 + rest.size(); }
};

std::vector<FindingGroup> groupFindings(const std::vector<Finding>& findings);

}  // namespace allocsim::cli
