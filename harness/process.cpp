#include "harness/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace allocsim {
namespace {

void closeFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The child's standard input, output and error pipes. O_CLOEXEC: with --jobs, another thread's child must not inherit
// this child's pipes (it would hold them open). False (and nothing left open) on failure, with errno set.
bool openPipes(int in[2], int out[2], int err[2]) {
  if (pipe2(in, O_CLOEXEC) != 0) return false;
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]), close(in[1]);
    return false;
  }
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    return false;
  }
  return true;
}

// In the forked child: its own process group (so a timeout kills everything it starts), the pipes as its standard
// streams, then the command.
[[noreturn]] void execChild(std::vector<char*>& args, const int in[2], const int out[2], const int err[2]) {
  setpgid(0, 0);
  signal(SIGPIPE, SIG_DFL);
  dup2(in[0], 0);
  dup2(out[1], 1);
  dup2(err[1], 2);
  execvp(args[0], args.data());
  const char msg[] = "cannot run the command\n";
  (void)!write(2, msg, sizeof msg - 1);
  _exit(127);
}

// The streams of a running child: fds = {its stdin, stdout, stderr} (-1 once closed), what was written of the input.
struct ChildStreams {
  int fds[3];
  size_t written = 0;
};

// Serves one ready stream k: writes more input (0) or reads output into r.out (1) or r.err (2), up to opts.max_output;
// more standard output than that sets r.output_limit.
void serveStream(ChildStreams& s, int k, const std::string& input, const ProcessOptions& opts, ProcessResult& r) {
  if (k == 0) {
    ssize_t w = write(s.fds[0], input.data() + s.written, input.size() - s.written);
    if (w > 0) s.written += size_t(w);
    if (w < 0 && errno != EAGAIN && errno != EINTR) closeFd(s.fds[0]);  // EPIPE: it stopped reading
    if (s.written == input.size()) closeFd(s.fds[0]);
    return;
  }
  std::string& sink = k == 1 ? r.out : r.err;
  char buf[65536];
  ssize_t got = read(s.fds[k], buf, sizeof buf);
  if (got > 0) {
    size_t room = opts.max_output > sink.size() ? opts.max_output - sink.size() : 0;
    sink.append(buf, std::min(size_t(got), room));
    if (k == 1 && size_t(got) > room) r.output_limit = true;  // more output than allowed: stop it rather than drain it
  } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
    closeFd(s.fds[k]);
  }
}

// Feeds the input and collects the output until every stream is closed, the timeout passes or the output limit is
// reached.
void exchange(ChildStreams& s, const std::string& input, const ProcessOptions& opts,
              std::chrono::steady_clock::time_point start, ProcessResult& r) {
  while (s.fds[0] >= 0 || s.fds[1] >= 0 || s.fds[2] >= 0) {
    const double left = opts.timeout_seconds - since(start);
    if (left <= 0) {
      r.timed_out = true;
      break;
    }
    pollfd p[3];
    nfds_t n = 0;
    int which[3];
    for (int k = 0; k < 3; ++k)
      if (s.fds[k] >= 0) {
        p[n] = {s.fds[k], short(k == 0 ? POLLOUT : POLLIN), 0};
        which[n++] = k;
      }
    if (r.output_limit) break;
    int ready = poll(p, n, int(left * 1000) + 1);
    if (ready < 0 && errno != EINTR) break;
    for (nfds_t j = 0; ready > 0 && j < n && !r.output_limit; ++j)
      if (p[j].revents) serveStream(s, which[j], input, opts, r);
  }
}

// Waits for the child's exit (killing its group at once after a timeout or too much output, or when the timeout
// passes while waiting) and returns its wait status.
int reap(pid_t pid, const ProcessOptions& opts, std::chrono::steady_clock::time_point start, ProcessResult& r) {
  int status = 0;
  if (r.timed_out || r.output_limit) {
    kill(-pid, SIGKILL);
    waitpid(pid, &status, 0);
    return status;
  }
  // Output closed: wait for the exit, still bounded by the timeout.
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (since(start) > opts.timeout_seconds) {
      r.timed_out = true;
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    usleep(200);
  }
  return status;
}

}  // namespace

// Starts argv with `input` on its standard input, collects its output under opts' limits, and waits for its exit.
ProcessResult runProcess(const std::vector<std::string>& argv, const std::string& input, const ProcessOptions& opts) {
  ProcessResult r;
  if (argv.empty()) {
    r.error = "no command";
    return r;
  }
  int in[2], out[2], err[2];
  if (!openPipes(in, out, err)) return r.error = std::strerror(errno), r;
  // A command that exits without reading all of its input must not kill us with SIGPIPE (write gets EPIPE).
  static const bool sigpipe_ignored = [] { return signal(SIGPIPE, SIG_IGN) != SIG_ERR; }();
  (void)sigpipe_ignored;
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) close(fd);
    r.error = std::strerror(errno);
    return r;
  }
  if (pid == 0) execChild(args, in, out, err);
  setpgid(pid, pid);  // also here, so the group exists before we might kill it
  r.started = true;
  ChildStreams s{{in[1], out[0], err[0]}, 0};
  close(in[0]), close(out[1]), close(err[1]);
  for (int fd : s.fds) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  if (input.empty()) closeFd(s.fds[0]);
  exchange(s, input, opts, start, r);
  for (int& fd : s.fds) closeFd(fd);
  const int status = reap(pid, opts, start, r);
  r.seconds = since(start);
  if (!r.timed_out) {
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  }
  return r;
}

}  // namespace allocsim
