// The files a failure leaves for its user: in the output directory, NNN.nki.txt is the shrunk input program (run
// `allocsim verify` or your allocator on it), NNN.original.nki.txt the unshrunk one, NNN.output.nki.txt what the
// allocator wrote for the shrunk input (when it wrote anything), and NNN.txt the command, the seeds, the finding,
// the commands that rerun the allocator and the check on these files, and the allocator's output and standard
// error for the shrunk input.
#pragma once

#include <string>
#include <vector>

#include "harness/campaign.h"

namespace allocsim {

// Writes every first-of-its-kind failure (numbered from 001 in the order found) and returns the paths written,
// one entry per failure ("" for one not written). Throws std::runtime_error when the directory cannot be written.
std::vector<std::string> writeFailureFiles(const std::string& dir, const std::string& command,
                                           const CampaignResult& result);

// The text of NNN.txt for one failure; `base` is the files' path without extension ("dir/001").
std::string failureReport(const std::string& command, const FailureRecord& f, const std::string& base = "NNN");

// The shell commands that rerun the allocator on base.nki.txt into base.output.nki.txt ({in} and {out} of
// `command` replaced, or redirections), then check that output as `fuzz-allocator` did.
std::string rerunCommand(const std::string& command, const std::string& base);
std::string checkCommand(const FailureRecord& f, const std::string& base);

// How to regenerate a generated case's program ("allocsim gen --seed S --size N --pressure P --arch A").
std::string regenerateCommand(const CaseInput& c, const Arch& arch);

}  // namespace allocsim
