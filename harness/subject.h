// The allocator under test, however it runs: a command line (ExternalCommandSubject) or an in-process
// Allocator (InProcessSubject). run() hands it one unallocated program and checks what comes back with
// harness/check_output.h; the campaign and the shrinker only see CaseOutcomes.
#pragma once

#include <string>
#include <vector>

#include "harness/allocator.h"
#include "harness/outcome.h"
#include "harness/process.h"
#include "ir/program.h"

namespace allocsim {

class Subject {
 public:
  virtual ~Subject() = default;
  // Safe to call from several threads at once (the campaign's --jobs).
  virtual CaseOutcome run(const Program& input, const CheckSeeds& seeds) = 0;
  virtual std::string describe() const = 0;
  // The seconds a run may take (0: no limit of its own), and changing it (the shrinker of a timeout runs its
  // candidates with a shorter one).
  virtual double timeout() const { return 0; }
  virtual void setTimeout(double) {}
};

// CMD ARGS...: every argument "{in}" / "{out}" (also inside a longer argument, e.g. --input={in}) is replaced
// by a file path: the program is written to {in} and the result read from {out}. Without {in} the program goes
// to standard input; without {out} the result is read from standard output. Exit code 3 is a refusal; any
// other non-zero exit, a signal, a timeout, no output ("no-output") or more output than `max_output_multiple`
// times the input's text (at least 1 MiB; "huge-output", the command is killed there) is a failure.
class ExternalCommandSubject : public Subject {
 public:
  // Throws std::runtime_error when no scratch directory can be made under `scratch_parent` ("" = $TMPDIR or /tmp).
  ExternalCommandSubject(std::vector<std::string> argv, ProcessOptions opts, std::string scratch_parent = "",
                         double max_output_multiple = kDefaultMaxOutputMultiple);
  static constexpr double kDefaultMaxOutputMultiple = 100;
  ~ExternalCommandSubject() override;
  CaseOutcome run(const Program& input, const CheckSeeds& seeds) override;
  std::string describe() const override;
  double timeout() const override { return opts_.timeout_seconds; }
  void setTimeout(double seconds) override { opts_.timeout_seconds = seconds; }
  // The bytes of output a run on `input_text` may write.
  size_t maxOutput(const std::string& input_text) const;

 private:
  std::vector<std::string> argv_;
  ProcessOptions opts_;
  double max_output_multiple_;
  std::string scratch_;
  bool uses_in_ = false, uses_out_ = false;
};

class InProcessSubject : public Subject {
 public:
  // `allocator` must outlive this; with several threads its allocate() is called concurrently.
  InProcessSubject(Allocator& allocator, std::string name) : allocator_(allocator), name_(std::move(name)) {}
  CaseOutcome run(const Program& input, const CheckSeeds& seeds) override;
  std::string describe() const override { return name_; }

 private:
  Allocator& allocator_;
  std::string name_;
};

}  // namespace allocsim
