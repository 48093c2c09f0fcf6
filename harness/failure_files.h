// The files a failure leaves for its user: in the output directory, NNN.nki.txt is the shrunk
// input program (run `allocsim verify` or your allocator on it), NNN.original.nki.txt the unshrunk one, and
// NNN.txt the command, the seeds, the finding and the allocator's output and standard error for the shrunk input.
#pragma once

#include <string>
#include <vector>

#include "harness/campaign.h"

namespace allocsim {

// Writes every first-of-its-kind failure (numbered from 001 in the order found) and returns the paths written,
// one entry per failure ("" for one not written). Throws std::runtime_error when the directory cannot be written.
std::vector<std::string> writeFailureFiles(const std::string& dir, const std::string& command,
                                           const CampaignResult& result);

// The text of NNN.txt for one failure.
std::string failureReport(const std::string& command, const FailureRecord& f);

// How to regenerate a generated case's program ("allocsim gen --seed S --size N --pressure P --arch A").
std::string regenerateCommand(const CaseInput& c, const Arch& arch);

}  // namespace allocsim
