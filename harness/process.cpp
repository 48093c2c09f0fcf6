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

}  // namespace

ProcessResult runProcess(const std::vector<std::string>& argv, const std::string& input, const ProcessOptions& opts) {
  ProcessResult r;
  if (argv.empty()) {
    r.error = "no command";
    return r;
  }
  int in[2], out[2], err[2];
  // O_CLOEXEC: with --jobs, another thread's child must not inherit this child's pipes (it would hold them open).
  if (pipe2(in, O_CLOEXEC) != 0) return r.error = std::strerror(errno), r;
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]), close(in[1]);
    return r.error = std::strerror(errno), r;
  }
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    return r.error = std::strerror(errno), r;
  }
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
  if (pid == 0) {
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
  setpgid(pid, pid);  // also here, so the group exists before we might kill it
  r.started = true;
  int fds[3] = {in[1], out[0], err[0]};
  close(in[0]), close(out[1]), close(err[1]);
  for (int fd : fds) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  size_t written = 0;
  if (input.empty()) closeFd(fds[0]);
  std::string* sinks[3] = {nullptr, &r.out, &r.err};
  char buf[65536];
  while (fds[0] >= 0 || fds[1] >= 0 || fds[2] >= 0) {
    const double left = opts.timeout_seconds -
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (left <= 0) {
      r.timed_out = true;
      break;
    }
    pollfd p[3];
    nfds_t n = 0;
    int which[3];
    for (int k = 0; k < 3; ++k)
      if (fds[k] >= 0) {
        p[n] = {fds[k], short(k == 0 ? POLLOUT : POLLIN), 0};
        which[n++] = k;
      }
    if (r.output_limit) break;
    int ready = poll(p, n, int(left * 1000) + 1);
    if (ready < 0 && errno != EINTR) break;
    for (nfds_t j = 0; ready > 0 && j < n; ++j) {
      if (!p[j].revents) continue;
      int k = which[j];
      if (k == 0) {
        ssize_t w = write(fds[0], input.data() + written, input.size() - written);
        if (w > 0) written += size_t(w);
        if (w < 0 && errno != EAGAIN && errno != EINTR) closeFd(fds[0]);  // EPIPE: it stopped reading
        if (written == input.size()) closeFd(fds[0]);
      } else {
        ssize_t got = read(fds[k], buf, sizeof buf);
        if (got > 0) {
          size_t room = opts.max_output > sinks[k]->size() ? opts.max_output - sinks[k]->size() : 0;
          sinks[k]->append(buf, std::min(size_t(got), room));
          if (k == 1 && size_t(got) > room) {  // more output than allowed: stop it rather than drain it
            r.output_limit = true;
            break;
          }
        } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
          closeFd(fds[k]);
        }
      }
    }
  }
  for (int& fd : fds) closeFd(fd);
  int status = 0;
  if (r.timed_out || r.output_limit) {
    kill(-pid, SIGKILL);
    waitpid(pid, &status, 0);
  } else {
    // Output closed: wait for the exit, still bounded by the timeout.
    for (;;) {
      pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) break;
      if (w < 0 && errno != EINTR) break;
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > opts.timeout_seconds) {
        r.timed_out = true;
        kill(-pid, SIGKILL);
        waitpid(pid, &status, 0);
        break;
      }
      usleep(200);
    }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!r.timed_out) {
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  }
  return r;
}

}  // namespace allocsim
