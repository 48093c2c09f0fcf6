// A FIFO of small trivially copyable values in a growable ring buffer: the part of std::deque the model's queues
// use, without its block map (they hold a handful of entries and are pushed and popped once per instruction).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace allocsim::sim {

template <typename T>
class RingFifo {
 public:
  bool empty() const { return head_ == tail_; }
  size_t size() const { return tail_ - head_; }
  T& front() { return buf_[head_ & mask_]; }
  T& back() { return buf_[(tail_ - 1) & mask_]; }
  void push_back(const T& v) {
    if (size() == buf_.size()) grow();
    buf_[tail_++ & mask_] = v;
  }
  void pop_front() { ++head_; }
  void clear() { head_ = tail_ = 0; }

 private:
  void grow() {
    std::vector<T> bigger(std::max<size_t>(8, buf_.size() * 2));  // a power of two
    for (size_t i = 0; i < size(); ++i) bigger[i] = buf_[(head_ + i) & mask_];
    tail_ = size();
    head_ = 0;
    buf_.swap(bigger);
    mask_ = buf_.size() - 1;
  }
  std::vector<T> buf_;
  size_t head_ = 0, tail_ = 0, mask_ = 0;
};

}  // namespace allocsim::sim
