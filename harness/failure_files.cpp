#include "harness/failure_files.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <utility>

#include "ir/print.h"

namespace allocsim {
namespace {

namespace fs = std::filesystem;

void writeText(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
  if (!f.flush()) throw std::runtime_error("cannot write " + p.string());
}

std::string indented(const std::string& text) {
  std::string out;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    out += "    " + text.substr(at, nl - at) + "\n";
    at = nl + 1;
  }
  return out.empty() ? "    (nothing)\n" : out;
}

}  // namespace

std::string regenerateCommand(const CaseInput& c, const Arch& arch) {
  std::string cmd = "allocsim gen --seed " + std::to_string(c.seed) + " --size " + std::to_string(c.size) +
                    " --pressure " + std::to_string(c.pressure) + " --reuse " + std::to_string(c.reuse) +
                    " --conditionals " + std::to_string(c.conditionals) + " --dma-patterns " +
                    std::to_string(c.dma_patterns) + " --arch " + arch.name;
  for (const auto& [key, value] : archOverridesFromPreset(arch)) cmd += " --" + key + " " + std::to_string(value);
  return cmd;
}

std::string rerunCommand(const std::string& command, const std::string& base) {
  const std::string in = base + ".nki.txt", out = base + ".output.nki.txt";
  std::string cmd = command;
  const bool uses_in = cmd.find("{in}") != std::string::npos, uses_out = cmd.find("{out}") != std::string::npos;
  for (auto [what, with] : {std::pair<std::string, std::string>{"{in}", in}, {"{out}", out}})
    for (size_t at = cmd.find(what); at != std::string::npos; at = cmd.find(what, at + with.size()))
      cmd.replace(at, what.size(), with);
  if (!uses_in) cmd += " < " + in;
  if (!uses_out) cmd += " > " + out;
  return cmd;
}

std::string checkCommand(const FailureRecord& f, const std::string& base) {
  return "allocsim verify " + base + ".output.nki.txt --original " + base + ".nki.txt --seed " +
         std::to_string(f.input.seeds.input_seed) + " --poison-seed " + std::to_string(f.input.seeds.poison_seed);
}

std::string failureReport(const std::string& command, const FailureRecord& f, const std::string& base) {
  std::string s;
  s += "command: " + command + "\n";
  s += "finding: " + f.minimal_outcome.kind.name() + ": " + f.minimal_outcome.message + "\n";
  if (!f.minimal_outcome.placements.empty())
    s += "the allocator's placements of the tensors involved:\n" + indented(f.minimal_outcome.placements);
  if (f.fails_on_every_input)
    s += "fails on every input: even the smallest program (one SBUF element set to 0) fails this way\n";
  if (f.flaky) {
    s += "FLAKY: the same input gave different results:\n";
    s += "    run 1: " + std::string(caseStatusName(f.outcome.status)) + " " + f.outcome.kind.name() + " (exit " +
         std::to_string(f.outcome.exit_code) + ")\n";
    for (size_t k = 0; k < f.reruns.size(); ++k)
      s += "    run " + std::to_string(k + 2) + ": " + caseStatusName(f.reruns[k].status) + " " + f.reruns[k].kind.name() +
           " (exit " + std::to_string(f.reruns[k].exit_code) + ")\n";
  }
  s += "input: " + f.input.source;
  if (f.input.generated) s += " by `" + regenerateCommand(f.input, f.input.program.arch) + "`";
  s += "\nseeds: --seed " + std::to_string(f.input.seeds.input_seed) + " --poison-seed " +
       std::to_string(f.input.seeds.poison_seed) + "\n";
  s += "rerun: " + rerunCommand(command, base) + "\n";
  if (!f.minimal_outcome.output.empty()) s += "check: " + checkCommand(f, base) + "\n";
  s += "instructions: " + std::to_string(f.instructions_before) + " in the original input, " +
       std::to_string(f.instructions_after) + " after shrinking";
  if (f.candidate_timeout > 0)
    s += " (candidates given " + std::to_string(f.candidate_timeout).substr(0, 4) + " s each)";
  if (f.shrunk)
    s += " (" + std::to_string(f.shrink.attempts) + " candidates tried, " + std::to_string(f.shrink.accepted) +
         " kept, " + std::to_string(f.shrink.rejected_ill_formed) + " ill-formed ones skipped)";
  s += "\nall kinds on the shrunk input:";
  for (const FailureKind& k : f.minimal_outcome.kinds) s += " " + k.name();
  s += "\n\n--- input (" + base + ".nki.txt)\n" + printProgram(f.minimal);
  s += "\n--- details\n" + indented(f.minimal_outcome.detail);
  s += "\n--- allocator output\n" + indented(f.minimal_outcome.output);
  s += "\n--- allocator standard error\n" + indented(f.minimal_outcome.log);
  return s;
}

std::vector<std::string> writeFailureFiles(const std::string& dir, const std::string& command,
                                           const CampaignResult& result) {
  std::vector<std::string> written(result.failures.size());
  int n = 0;
  for (size_t i = 0; i < result.failures.size(); ++i) {
    const FailureRecord& f = result.failures[i];
    if (!f.first_of_kind) continue;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw std::runtime_error("cannot create " + dir + ": " + ec.message());
    char name[16];
    std::snprintf(name, sizeof name, "%03d", ++n);
    // Absolute: the paths go into commands a user copies (harness/failure_files.h).
    const fs::path base = fs::absolute(fs::path(dir) / name, ec);
    writeText(base.string() + ".nki.txt", printProgram(f.minimal));
    writeText(base.string() + ".original.nki.txt", printProgram(f.input.program));
    if (!f.minimal_outcome.output.empty()) writeText(base.string() + ".output.nki.txt", f.minimal_outcome.output);
    writeText(base.string() + ".txt", failureReport(command, f, base.string()));
    written[i] = base.string() + ".nki.txt";
  }
  return written;
}

}  // namespace allocsim
