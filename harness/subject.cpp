#include "harness/subject.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "harness/check_output.h"
#include "ir/print.h"

namespace allocsim {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

std::string replaceAll(std::string s, const std::string& what, const std::string& with) {
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + with.size()))
    s.replace(at, what.size(), with);
  return s;
}

std::string readFile(const fs::path& p, bool& ok) {
  std::ifstream in(p, std::ios::binary);
  ok = bool(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void failWith(CaseOutcome& out, FailureKind::Class kind, std::string message) {
  out.status = CaseStatus::Fail;
  out.kind = FailureKind::of(kind);
  out.kinds = {out.kind};
  out.message = std::move(message);
}

}  // namespace

ExternalCommandSubject::ExternalCommandSubject(std::vector<std::string> argv, ProcessOptions opts,
                                               std::string scratch_parent, double max_output_multiple)
    : argv_(std::move(argv)), opts_(opts), max_output_multiple_(max_output_multiple) {
  for (const std::string& a : argv_) {
    uses_in_ = uses_in_ || contains(a, "{in}");
    uses_out_ = uses_out_ || contains(a, "{out}");
  }
  if (scratch_parent.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    scratch_parent = tmp && *tmp ? tmp : "/tmp";
  }
  std::string templ = (fs::path(scratch_parent) / "allocsim-fuzz-XXXXXX").string();
  if (!mkdtemp(templ.data())) throw std::runtime_error("cannot make a scratch directory under " + scratch_parent);
  scratch_ = templ;
}

ExternalCommandSubject::~ExternalCommandSubject() {
  std::error_code ec;
  fs::remove_all(scratch_, ec);
}

std::string ExternalCommandSubject::describe() const {
  std::string s;
  for (const std::string& a : argv_) s += (s.empty() ? "" : " ") + a;
  return s;
}

size_t ExternalCommandSubject::maxOutput(const std::string& input_text) const {
  const double cap = max_output_multiple_ * double(input_text.size());
  return std::max<size_t>(size_t(1) << 20, cap >= 1e18 ? size_t(1e18) : size_t(cap));
}

CaseOutcome ExternalCommandSubject::run(const Program& input, const CheckSeeds& seeds) {
  static std::atomic<uint64_t> counter{0};
  const std::string id = std::to_string(counter++);
  const fs::path in = fs::path(scratch_) / ("in" + id + ".nki.txt");
  const fs::path out = fs::path(scratch_) / ("out" + id + ".nki.txt");
  const std::string text = printProgram(input);
  CaseOutcome result;
  if (uses_in_) {
    std::ofstream f(in, std::ios::binary);
    f << text;
    if (!f.flush()) throw std::runtime_error("cannot write " + in.string());
  }
  std::vector<std::string> argv;
  for (const std::string& a : argv_) argv.push_back(replaceAll(replaceAll(a, "{in}", in.string()), "{out}", out.string()));
  ProcessOptions po = opts_;
  po.max_output = maxOutput(text);
  ProcessResult pr = runProcess(argv, uses_in_ ? "" : text, po);
  result.seconds = pr.seconds;
  result.log = pr.err;
  bool have_output = true;
  // An output file is measured before it is read: a runaway allocator's file must not take our memory.
  std::error_code size_ec;
  const uintmax_t file_size = uses_out_ ? fs::file_size(out, size_ec) : 0;
  const bool huge = pr.output_limit || (uses_out_ && !size_ec && file_size > po.max_output);
  if (!huge) result.output = uses_out_ ? readFile(out, have_output) : pr.out;
  const auto blank = [](const std::string& t) { return t.find_first_not_of(" \t\r\n") == std::string::npos; };
  std::error_code ec;
  fs::remove(in, ec);
  fs::remove(out, ec);
  result.exit_code = pr.signal ? -pr.signal : pr.exit_code;
  if (!pr.started) {
    failWith(result, FailureKind::Class::ExitCode, "the command could not be started: " + pr.error);
  } else if (huge) {
    failWith(result, FailureKind::Class::HugeOutput,
             "more output than " + std::to_string(po.max_output) + " bytes (" +
                 std::to_string(uint64_t(max_output_multiple_)) + " times the input's " +
                 std::to_string(text.size()) + " bytes, --max-output): " +
                 (pr.output_limit ? "stopped there" : "the output file has " + std::to_string(file_size) + " bytes"));
  } else if (pr.timed_out) {
    std::ostringstream m;
    m << "timeout: no result after " << opts_.timeout_seconds << " s";
    failWith(result, FailureKind::Class::Timeout, m.str());
  } else if (pr.signal) {
    failWith(result, FailureKind::Class::Crash, "killed by signal " + std::to_string(pr.signal) + " (" + strsignal(pr.signal) + ")");
  } else if (pr.exit_code == 3) {
    result.status = CaseStatus::Refused;
    result.message = "refused (exit code 3)";
  } else if (pr.exit_code != 0) {
    failWith(result, FailureKind::Class::ExitCode, "exit code " + std::to_string(pr.exit_code) +
                                      (pr.exit_code == 127 ? " (command not found?)" : ""));
  } else if (!have_output) {
    failWith(result, FailureKind::Class::NoOutput, "exit code 0 but no output file " + out.string());
  } else if (blank(result.output)) {
    failWith(result, FailureKind::Class::NoOutput, std::string("exit code 0 and no output") +
                                      (uses_out_ ? " (an empty " + out.string() + ")" : " on standard output"));
  } else {
    checkAllocatedText(input, result.output, seeds, result);
  }
  return result;
}

CaseOutcome InProcessSubject::run(const Program& input, const CheckSeeds& seeds) {
  CaseOutcome result;
  const auto start = std::chrono::steady_clock::now();
  Program allocated;
  try {
    allocated = allocator_.allocate(input);
  } catch (const AllocatorRefusal& e) {
    result.status = CaseStatus::Refused;
    result.message = std::string("refused: ") + e.what();
    result.log = e.what();
    return result;
  } catch (const std::exception& e) {
    failWith(result, FailureKind::Class::Exception, std::string("the allocator threw: ") + e.what());
    result.log = e.what();
    return result;
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.output = printProgram(allocated);
  // Through the text: what it printed is what a user would hand to `allocsim verify`.
  checkAllocatedText(input, result.output, seeds, result);
  return result;
}

}  // namespace allocsim
