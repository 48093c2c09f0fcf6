// Helpers the PSUM and SBUF colorer tests (psum_allocator_test.cpp, sbuf_allocator_test.cpp beside this file) share:
// both colorers leave part of the program to a later pass, and their tests check both alike.
#pragma once

#include <string>
#include <vector>

#include "alloc/greedy_placer.h"
#include "ir/program.h"
#include "verify/finding.h"

namespace allocsim::testing_colorer {

// A node's neighbours as a list, to compare.
template <class Graph>
std::vector<uint32_t> neighboursOf(const Graph& g, uint32_t node) {
  return {g.neighbours[node].begin(), g.neighbours[node].end()};
}

// The findings, one formatted line each; "" when there are none (so a failing EXPECT shows them all).
inline std::string findingsText(const std::vector<Finding>& fs) {
  std::string s;
  for (const Finding& f : fs) s += f.format("allocated") + "\n";
  return s;
}

// What the pass under test does not place, placed by placeGreedy: the tensors for which keep(tensor) holds stay
// where they are (pinned for the call, their pinned flags restored after).
template <class Keep>
Program placeTheRestGreedily(const Program& allocated, Keep keep) {
  Program p = allocated;
  std::vector<bool> was_pinned;
  for (Tensor& t : p.tensors) {
    was_pinned.push_back(t.pinned);
    if (keep(t)) t.pinned = true;
  }
  Program placed = placeGreedy(p);
  for (size_t i = 0; i < placed.tensors.size(); ++i) placed.tensors[i].pinned = was_pinned[i];
  return placed;
}

}  // namespace allocsim::testing_colorer
