#include "sim/kernel_thread.h"

#include <condition_variable>
#include <mutex>
#include <thread>

namespace allocsim::sim {
namespace {

class KernelThread {
 public:
  static KernelThread& instance() {
    static KernelThread t;
    return t;
  }
  void run(const std::function<void()>& job) {
    std::lock_guard<std::mutex> one_at_a_time(callers_);
    std::unique_lock<std::mutex> lock(mu_);
    job_ = &job;
    finished_ = false;
    cv_.notify_all();
    cv_.wait(lock, [&] { return finished_; });
  }
  ~KernelThread() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  KernelThread() : thread_([this] { loop(); }) {}
  void loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || job_ != nullptr; });
      if (!job_) return;
      (*job_)();
      job_ = nullptr;
      finished_ = true;
      cv_.notify_all();
    }
  }

  std::mutex callers_, mu_;
  std::condition_variable cv_;
  const std::function<void()>* job_ = nullptr;
  bool finished_ = false, stop_ = false;
  std::thread thread_;
};

}  // namespace

void onKernelThread(const std::function<void()>& job) { KernelThread::instance().run(job); }

}  // namespace allocsim::sim
