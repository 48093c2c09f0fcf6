#include "alloc/lsa/p_square.h"

#include <algorithm>
#include <cmath>

namespace allocsim {

PSquareQuantile::PSquareQuantile(double quantile) : p_(quantile) {
  dn_ = {0.0, p_ / 2, p_, (1 + p_) / 2, 1.0};
}

void PSquareQuantile::add(double x) {
  if (count_ < 5) {
    q_[count_++] = x;
    if (count_ == 5) {
      std::sort(q_.begin(), q_.end());
      for (int i = 0; i < 5; ++i) n_[i] = i + 1;
      np_ = {1, 1 + 2 * p_, 1 + 4 * p_, 3 + 2 * p_, 5};
    }
    return;
  }
  ++count_;
  int k;  // the cell x falls in; the extreme markers follow the extremes
  if (x < q_[0]) {
    q_[0] = x;
    k = 0;
  } else if (x >= q_[4]) {
    q_[4] = std::max(q_[4], x);
    k = 3;
  } else {
    k = 0;
    while (k < 3 && x >= q_[k + 1]) ++k;
  }
  for (int i = k + 1; i < 5; ++i) n_[i] += 1;
  for (int i = 0; i < 5; ++i) np_[i] += dn_[i];
  // Move the three middle markers towards their desired positions by one, parabolically when that keeps the
  // heights ordered, else linearly.
  for (int i = 1; i <= 3; ++i) {
    const double d = np_[i] - n_[i];
    if ((d >= 1 && n_[i + 1] - n_[i] > 1) || (d <= -1 && n_[i - 1] - n_[i] < -1)) {
      const double s = d >= 0 ? 1.0 : -1.0;
      const double parabolic =
          q_[i] + s / (n_[i + 1] - n_[i - 1]) *
                      ((n_[i] - n_[i - 1] + s) * (q_[i + 1] - q_[i]) / (n_[i + 1] - n_[i]) +
                       (n_[i + 1] - n_[i] - s) * (q_[i] - q_[i - 1]) / (n_[i] - n_[i - 1]));
      if (q_[i - 1] < parabolic && parabolic < q_[i + 1]) {
        q_[i] = parabolic;
      } else {
        const int j = i + int(s);
        q_[i] = q_[i] + s * (q_[j] - q_[i]) / (n_[j] - n_[i]);
      }
      n_[i] += s;
    }
  }
}

double PSquareQuantile::value() const {
  if (count_ == 0) return 0;
  if (count_ < 5) {
    std::array<double, 5> sorted = q_;
    std::sort(sorted.begin(), sorted.begin() + count_);
    const size_t idx = std::min<size_t>(count_ - 1, size_t(std::ceil(p_ * double(count_))) - (p_ > 0 ? 1 : 0));
    return sorted[idx];
  }
  return q_[2];
}

}  // namespace allocsim
