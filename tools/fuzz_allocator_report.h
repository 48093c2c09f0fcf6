// How `allocsim fuzz-allocator` shows a campaign: a text summary (one line of totals, then each failure kind with
// its shrunk reproducer) or the same as one JSON object (--json).
#pragma once

#include <string>
#include <vector>

#include "harness/campaign.h"

namespace allocsim::cli {

struct FuzzReportContext {
  std::string command;             // the allocator's command line
  const CampaignOptions* options = nullptr;
  std::vector<std::string> files;  // per failure: the NNN.nki.txt written, or ""
};

std::string fuzzReportText(const CampaignResult& r, const FuzzReportContext& c);
std::string fuzzReportJson(const CampaignResult& r, const FuzzReportContext& c);
// The progress line (no newline): cases, failures, refusals, cases per second.
std::string fuzzProgressLine(const CampaignProgress& p);

}  // namespace allocsim::cli
