// As in the production allocator, select: pop the simplify stack and give each node the lowest base bank at which its
// liveN banks are all free of its already-colored neighbours (a 1-D first fit over a bank bitmap); a node with no
// such window " cannot allocate " and joins the spill set. Pinned nodes are colored first, at their given bank.
//
// The round-robin bank commit of the production allocator (accessor k of a placed tensor gets bank (base + k) mod
// liveN, cycling over the tensor's banks) needs no bookkeeping in this model: a placement is a base bank and a tensor
// occupies the contiguous banks [base, base + liveN); an access at byte offset o of a partition lands in bank
// base + o / bank-bytes (a matmul destination lies within one bank), so the tensor's consecutive bank-sized tiles
// cycle through its banks in order — the addresses are the commit.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "alloc/psum/psum_interference.h"

namespace allocsim {

struct PsumSelection {
  std::vector<std::optional<uint32_t>> base;  // by node: the base bank, nullopt for a node that cannot allocate
  std::vector<uint32_t> failed;               // nodes that cannot allocate, in pop order
  uint32_t banks_used = 0;                    // distinct banks covered by a placed node with a live range
  double spill_cost = 0;                      // sum of the failed nodes' costs (+inf if one is un-spillable)
  // the production allocator's "PSUM score = ... (lower is better)": the spill cost, plus banks_used /
  // (NUM_PSUM_BANKS + 1) < 1 so that between selections with the same spill cost the one that uses fewer banks wins.
  double score = 0;
};

// The lowest base bank b < psum_banks with bits [b, b + banks) all clear in `occupied`; nullopt if none.
std::optional<uint32_t> firstFitBank(const std::vector<bool>& occupied, uint32_t banks);

// `stack` as simplifyPsum returns it; every node that is not pinned must be in it exactly once.
PsumSelection selectPsum(const Program& p, const PsumGraph& g, const std::vector<uint32_t>& stack);

// Sets `s.banks_used` alone (after nodes moved: keepRecentBanksApart).
void countPsumBanks(const Program& p, const PsumGraph& g, PsumSelection& s);

}  // namespace allocsim
