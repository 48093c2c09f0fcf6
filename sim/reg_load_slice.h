// What a timing-only run (SimOptions::timing_only) of a program with register loads must compute: the instructions
// whose results can reach a `reg_load`, and the input tensors they can read. Everything else skips its data path.
//
// Why this is enough. The model's decisions (addresses, loop trips, branch conditions, every cycle) depend on tensor
// data only through registers, and a register takes tensor data only by a reg_load; the SP instructions (reg_load,
// reg_store, li, add, ...) always run. So the run has the full run's timing when every reg_load reads the bytes it
// reads in the full run. Values move in program order (the scoreboard orders every read after the writes before
// it, whatever is computed), so it is enough that the program, run in order with the skipped instructions writing
// nothing, leaves the same bytes wherever a reg_load reads.
//
// How. A backward liveness over physical storage, in rectangles of the scoreboard's kind (sim/footprint.h: SBUF
// partitions x bytes, whole PSUM banks, DRAM address ranges): the live set holds what a later reg_load can still
// depend on. Walking the program backward:
//   - a reg_load makes its source live;
//   - an instruction off the SP is computed when something it writes (destination, fused reduction's destination)
//     overlaps the live set; then what it surely overwrites leaves the live set, and what it reads (its sources and
//     scalar tensors; a matmul's accumulator) joins it;
//   - a reg_store's destination leaves the live set (it runs anyway);
//   - a loop's body is walked again until the live set at its head no longer changes (it may run any number of
//     times, none included); an if's body may run or not (the union of both).
// A write surely overwrites a live rectangle when its view has no register terms and covers the rectangle exactly
// (contiguous bytes in each SBUF partition, or one contiguous DRAM range; never a PSUM bank, whose rectangle is
// rounded out), or when it is the same view, register terms included, as the read that made the rectangle live and
// no register of those terms is written in between. Otherwise a rectangle stays live: a view with register terms
// stands for its whole tensor (a view stays inside its tensor, or the run fails in both modes).
// The input tensors overlapping what is live at the program's start are loaded (in declaration order, as in a full
// run); every other byte starts with the same poison in both runs. A skipped instruction writes nothing, and it only
// ever writes bytes no computed instruction or reg_load reads before a computed write covers them.
#pragma once

#include <vector>

#include "ir/machine_layout.h"
#include "ir/program.h"

namespace allocsim::sim {

struct RegLoadSlice {
  std::vector<bool> computed;  // by Instruction::id: the instruction's data path runs
  std::vector<bool> inputs;    // by TensorId: the input tensor is loaded
};

// The slice of an allocated program whose instructions are numbered in preorder (Program::renumber). Empty vectors
// when nothing is to be computed (no reg_load, or none reads what an instruction off the SP or an input can write).
// When its ids are not its preorder numbering, every instruction and input is marked.
RegLoadSlice regLoadSlice(const Program& p, const MachineLayout& layout);

}  // namespace allocsim::sim
