#include "tools/finding_groups.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace allocsim::cli {
namespace {

// What makes two findings "the same problem": oracle, kind, and the tensors (or registers) an overlap is about;
// findings without a region are about their instruction.
using GroupKey = std::tuple<int, std::string, int, std::vector<uint32_t>, uint32_t>;

GroupKey keyOf(const Finding& f) {
  if (f.region.present()) {
    std::vector<uint32_t> items = f.region.items;
    std::sort(items.begin(), items.end());
    return {int(f.oracle), std::string(findingKindName(f.kind)), int(f.region.kind), std::move(items), kNone};
  }
  return {int(f.oracle), std::string(findingKindName(f.kind)), -1, {}, f.inst_id};
}

}  // namespace

std::vector<FindingGroup> groupFindings(const std::vector<Finding>& findings) {
  std::vector<FindingGroup> groups;
  std::map<GroupKey, size_t> index;
  for (size_t i = 0; i < findings.size(); ++i) {
    auto [it, fresh] = index.emplace(keyOf(findings[i]), groups.size());
    if (fresh) {
      groups.push_back(FindingGroup{i, {}});
    } else {
      groups[it->second].rest.push_back(i);
    }
  }
  return groups;
}

}  // namespace allocsim::cli
