// harness/process.h: exit codes, signals, timeouts and captured streams of a child process.
#include <gtest/gtest.h>

#include "harness/process.h"

namespace allocsim {
namespace {

TEST(HarnessProcess, PassesStdinToStdoutAndCapturesStderr) {
  ProcessResult r = runProcess({"sh", "-c", "cat; echo oops >&2"}, "hello\n", {});
  ASSERT_TRUE(r.started);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "hello\n");
  EXPECT_EQ(r.err, "oops\n");
}

TEST(HarnessProcess, ReportsExitCodeAndSignal) {
  ProcessResult e = runProcess({"sh", "-c", "exit 5"}, "", {});
  EXPECT_EQ(e.exit_code, 5);
  EXPECT_EQ(e.signal, 0);
  ProcessResult s = runProcess({"sh", "-c", "kill -SEGV $$"}, "", {});
  EXPECT_EQ(s.signal, 11);
}

TEST(HarnessProcess, KillsACommandThatOverrunsItsTimeAndWhatItStarted) {
  ProcessOptions o;
  o.timeout_seconds = 0.3;
  // The child's child holds stdout open: a timeout must not wait for it.
  ProcessResult r = runProcess({"sh", "-c", "sleep 30 & sleep 30"}, "", o);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.seconds, 5.0);
}

TEST(HarnessProcess, AMissingCommandExits127) {
  ProcessResult r = runProcess({"/nonexistent/allocator"}, "", {});
  EXPECT_EQ(r.exit_code, 127);
}

TEST(HarnessProcess, ACommandThatIgnoresItsInputIsNoProblem) {
  // A large input to a command that exits at once: we get EPIPE, not SIGPIPE.
  ProcessResult r = runProcess({"true"}, std::string(1 << 20, 'x'), {});
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 0);
}

}  // namespace
}  // namespace allocsim
