// Liveness as segments: where each tensor's and register's values live over the linear order
// (alloc/linear_order.h). Every allocator (PSUM and SBUF colorers, linear scan, REG colorer, exact search) and the
// O7 in-place checker read their live ranges from here; the verifier's dynamic liveness (verify/dynamic_liveness.h)
// is the reference they must cover.
//
// Values
// ------
// A tensor holds a sequence of values. A write that replaces every element of the tensor on every execution (a
// full-view write, WriteCover::Whole) starts a new value; a partial write (a slice, a register-indexed view, an
// accumulating matmul) lands in the value that is there and extends it. A value lives from the write that starts
// it to its last mention before the next value starts: its last read, or a later dead store (a write still owns
// its memory when it happens). Reads within an instruction come before its writes; an instruction that reads the
// tensor it writes in full (`tt a, a, b`) updates the value in place and starts none (so that splitting values
// apart never makes an in-place update need a second buffer).
//
// The mentions of a tensor, in linear order, are cut into groups, one per value: a full write at position k
// starts a new group when no earlier mention can observe it and no later mention can observe what came before it.
// That is always so when no earlier mention lies in a loop that also contains k: every earlier mention has run to
// completion before k first runs, and k runs again before any later mention in its loops. When an earlier mention
// does share a loop L with k, k still starts a value if the tensor is not carried around L's back edge (every read
// of every iteration of L is covered by writes of the same iteration: alloc/iteration_coverage.h), for every such
// L: then nothing the previous iteration's k wrote is read before this iteration writes it again. A start@first
// matmul (WriteCover::WholeOnFirst) replaces the value on the first iteration of its innermost loop only: it starts
// a value when that loop holds no earlier mention. Writes in code that never runs are not mentions.
// A write inside a conditional block (`if`) or a loop with a register bound may not run: it never starts a value (it
// counts as a partial write), while reads inside count as reads; iteration coverage evaluates the conditions and
// bounds it can (alloc/iteration_coverage.h). Two cases are certain where the conditions and bounds name only the
// registers of the loops around them (alloc/conditional_runs.h): code that runs on every iteration of its loops is
// unconditional code; and a whole write that runs at least once in its outermost loop's run starts a value when that
// loop holds no earlier mention and every mention inside it is a write from this one on (nothing in the loop reads
// the tensor, and by the loop's end every element has been replaced). The same holds for the first write of a loop
// that writes the tensor piecewise, its iterations together replacing every element, and reads only what its run
// has written (`loop i { copy t[:, i*32:32], ...; copy u, t[:, i*32:32] }` after t's last read; an accumulation
// group per chunk): alloc/iteration_coverage.h, runRewrite.
// Such a conditional whole write's value is its last run's (nothing in the loop reads between two runs). Where no loop
// inside the outermost one begins another iteration after that run (alloc/conditional_runs.h, `later`), only the
// write's later positions run after it, and the whole body on the outermost loop's iterations that begin after it:
// with none the value starts at the write, not at the loop's header; with one it is live before the write on the
// loop's last iteration only ("Iterations" below).
// A partial write starts a value too when nothing of the value before it is read again: it runs on every execution
// of its loop body, and the later mentions up to the next whole write, or up to the write that completes a write of
// every element (the tensor replaced piecewise: two matmuls into its halves), read only elements written from the
// partial write on. They are walked in order: in the partial write's own loop body, its iterations one after another
// from the write's first run, with the loop's register bound to its value in the views (`loop i = 0, 2, 1 { matmul
// a[:, i*512:512], ...; copy s, a[:, i*512:512] }`), or, where that body also holds an earlier mention (its writes
// on the next iteration land in the value before), each iteration's run on its own, every one of them passing, the
// last one's going on past the loop (`loop i { memset t, 0; store t[:, i:2]; store t[:, 2:2] }; dma o, t`: the
// stores cover t on i = 0 only, and after the loop the memset's zeros are read); then in the body around that loop,
// views naming no register;
// no block between. A nested loop among them (not holding the write) passes when one run of it reads only what the
// run wrote (alloc/iteration_coverage.h, runCoverage), and what its writes directly in its body cover on every
// iteration counts as written; or, in a body walked with no register bound, when its iterations, walked one after
// another as the write's own loop is, read only what was written from the partial write on (`matmul a[:, 0:64], ..,
// start; loop { matmul a[:, 0:64], .. }; .., stop`: the loop accumulates into what the write restarted). A partial
// start@first matmul's read of its accumulator (on its loop's later iterations) belongs to the value its write starts.
// The loops around it must not carry the tensor, as for a full write.
//
// Each group's range is computed as a single value always was, with what the data allows taken off:
//  1. Anchors: from the group's first mention to its last. Inputs are written at program start, outputs read at
//     program end.
//  2. Loop extension: a first mention deeper than the loops common to first and last is anchored at the header of
//     the outermost such loop that may run it again and see what an earlier iteration left: one of more than one
//     iteration, unless the first mention replaces the whole value on each of its iterations (a whole write; a
//     start@first matmul for the loops outside its own) or each iteration reads only what it wrote and has
//     rewritten every element by its end (alloc/iteration_coverage.h, iterationRewrite). A last mention deeper
//     than common is extended to the end of the outermost loop that contains it but not the first, runs more than
//     once and reads, in some iteration but the first of a run, what that iteration did not write (otherwise
//     nothing is live from one iteration's last mention to the next; what the first iteration reads is what was there
//     before the loop, live from the first mention on: alloc/iteration_coverage.h, laterIterationCoverage).
//  3. Back edges: a common loop of more than one iteration extends the segment over its whole body only when the
//     value is carried around its back edge: a read of some iteration sees an element that iteration has not
//     written before. Decided from the views (alloc/iteration_coverage.h), exact where it answers; where the views
//     cannot be evaluated the value is treated as carried (counted in LivenessStats::undecidable). A first mention
//     that replaces the whole value on every iteration carries nothing; an accumulation group (start@first ...
//     stop@last in a K-loop) is carried around its K-loop, per iteration of the loops outside.
//  4. Dead stores: writes after the group's last read that read nothing themselves and share no loop of more than
//     one iteration with that read are live at their own positions only; the group's segment ends at the read (with
//     the writes at its position: an update in place). A read that sees only what the instruction just before it
//     wrote (`reg_store t[:, v], x` then `reg_load y, t[:, v]`: both unconditional, every view read equal to one
//     written, not accumulating, its registers not written by the store) reads nothing older than that write and
//     nothing that outlives the pair: it counts with the writes here, and it is not a read for the iterations'
//     last read in a loop ("Iterations" below).
//  5. Gaps in a loop: where a loop's body writes the whole tensor on every iteration, by an instruction k directly in
//     the body that reads none of it, after another mention of the value in the body, the value is dead from that
//     mention's last run in the iteration (the end of the loop in the body that holds it) to k: what an iteration
//     reads before k is the previous iteration's k's (or older), what it reads after k is k's, and what is read
//     after the loop is the last k's or later. Those positions are left out of the segment, whichever rule spans
//     the loop (`loop { copy b, a; ...; memset a, 1; copy c, a }`: a is not live between the copy to b and the
//     memset, though it is carried around the loop's back edge). The same holds between any two consecutive mentions
//     of the value in a loop's body (or at the top level) that lie in different statements of it, the second
//     starting with a write, when a walk from that write decides that what the tensor holds there is never read
//     (alloc/loop_gaps.h: for every iteration of the loops around it, each read from there on sees an element
//     written since, until every element is rewritten or the value's last mention is passed): iterations that
//     rotate through halves of a tensor (`i%2` views), a nested loop that rewrites it piecewise. The gap runs
//     from the first mention's last run (the end of the outermost loop around it in the body that runs more than
//     once; the mention itself when none does) to the second's first (likewise, that loop's header). Registers
//     have no gaps.
// A tensor's range is the union of its groups' segments, kept sorted and disjoint (touching segments merge). The
// segments of two values of one tensor never meet: a later value starts only where no loop carries the tensor, and
// the rules above extend a value over a loop only where that loop carries it, so splitting values into tensors of
// their own (alloc/value_split.h) never needs more room than the tensor whole.
//
// Iterations
// ----------
// One position stands for every iteration of its loops, so a segment over a loop's body says "live on some
// iteration" only. Two shapes are live on some iterations of a loop L only, and the range says which
// (LiveRange::only):
//  - last iteration only: a value whose first mention lies in L and whose last lies after it, where every iteration
//    of L replaces the whole value before it reads any of it (a whole write first, a start@first matmul of an inner
//    loop, or a rewrite piecewise: the loops rule 2 passes over). An iteration's value is then read by that
//    iteration only, and after L only the last one's is: from the value's last read in L (the end of the loop in
//    L's body that holds it; L's header when nothing in L reads it) to L's end, only the last iteration holds it,
//    except at the writes there, which take its memory on every iteration (`loop { copy b, a }`, b read after the
//    loop: b's write is a dead store on every iteration but the last). So for each such loop around the first
//    mention, the outermost and the ones inside it; a loop's part starts after the end of the next loop inward
//    around the first mention that runs more than once, so that the parts of nested loops never overlap (a loop of
//    one iteration has no iteration of its own to tell apart: the part of the loop around it reaches inside it). The
//    part's chain takes in the loops around L, outward, whose every iteration also starts the value afresh (or that
//    run once) and whose body reads nothing of it after the loop inward: on an iteration of any of them but the last,
//    nothing after L's last read reads what the value holds then. Before the part's start too, between two
//    consecutive mentions in L's body after the first mention that lie in different statements of it, the second a
//    write, the value is live on the last iteration only where a walk from that write (alloc/loop_gaps.h, up to the
//    value's last mention in L) finds what the tensor holds there never read in L: the next iteration starts the
//    value afresh, so only the code after L's last iteration can read it (`loop { copy t, x; reg_store t[0:1, 1:1],
//    r; reg_load r, t[0:1, 1:1] }`, t read after the loop: between the copy and the reg_store);
//  - every iteration but the last: a value whose last mention lies in L, where rule 2 extends it to L's end (an
//    iteration reads what the one before left): from that last mention to L's end, the next iteration reads it,
//    but after the last iteration nothing does. Likewise in each loop inside L around the last mention that runs
//    more than once, after the mention's last run in its body: live there only where some loop of the chain from L
//    in to that one is not on its last iteration;
//  - last iteration only, around a conditional whole write that starts a value in its outermost loop (see "Values"
//    above): when its last run is on the iteration before the last, from the loop's header (exclusive: each
//    iteration's own step) to the write; when it is on the last iteration, after the write (not before the end of
//    the next loop inward around it) but at the loop's other writes, as for a value written whole on every iteration.
// Neither applies where rule 3 extends the value over a loop around both mentions (the next iteration of that loop
// may read it). Conditional code whose runs the loop registers decide (alloc/conditional_runs.h) narrows them
// further: where a value is live on the last iteration only, an instruction that never runs on the last iteration
// of a loop of the part's chain (`if i == 2` in `loop i = 0, 4`: skips_last) holds nothing of it; where a value is
// live on every iteration but the last, an instruction that runs on the last iteration of every loop of the chain
// only (`if i == 3` in `loop i = 0, 4`, or `loop j = 0, i % 3` in `loop i = 0, 2`: only_last) holds nothing of it.
// No step there holds the value, and its position is left out of the range. A loop of one iteration is always on
// its last: a part's chain names only loops that run more than once. Loops nested in L are not told apart: a value
// live on the last iteration of L is live there on every iteration of the loops inside it. Two ranges whose iterations exclude each other at a position (one loop, one the
// last iteration only, the other every iteration but the last) do not interfere there: no step holds both
// (interferes()). LiveSum adds ranges up accordingly (at a position, per loop, the larger of the two): the max-live
// of the data by iteration. A placement holds for every iteration, though, and a value live on the last iteration
// only is still written on the others (a dead store that clobbers its memory there), where the values live on every
// iteration but the last are live too: such a pair interferes at the write, so an allocation still needs what is
// live at a position on any iteration. The allocators' own bounds (the SBUF colorer's max-live, the PSUM colorer's
// live banks, verify/memory_bounds.h) add up segments (addOverSegments), and any reader that ignores `only` sees
// every position of a segment as live on every iteration, which is sound.
// What remains that no liveness over the linear order tells apart: tensors live at one position in different
// iterations other than these (iteration i's tail against iteration i + 1's head of a value carried around the loop,
// the first iteration's against the others'). verify/liveness_precision.h measures it (positional against dynamic
// max-live), docs/quality.md lists it; only unrolling or peeling the loop removes it.
//
// Why it covers the dynamic liveness
// ----------------------------------
// Dynamically a tensor is live at a step when an element written at or before it is read at or after it. The read
// and the write that produced its element belong to one group: a group boundary k is a full write that runs after
// every earlier mention's last run and before every later mention's first run in the same iterations (or a partial
// write after which only what it and later writes wrote is read), so no element crosses it. Within a group, rules
// 1-3 and 5 cover every step between a write and a read of the group (a step inside a loop maps to the loop body's
// positions, covered either by the anchors or by the extensions, which are left out only where no element written
// before a position of one iteration is read after it: a loop run once, an iteration that rewrites the tensor
// before reading it, an iteration that reads only what it wrote, the first of a run also what was there before the
// loop, at or before the last mention; a gap before a whole write, which nothing between reads, or before a write
// from which the walk saw every later read covered by later writes, the walk following every execution from
// there); a
// dead store is live only at its own steps. So
// every dynamically live step maps to a position inside a segment. The iterations a range narrows (see
// "Iterations") hold the same way: on an iteration of L other than the last, an iteration that replaces the whole
// value before reading it leaves nothing that a later iteration or the code after L reads, so after its last read
// in L nothing of it is live (its writes after that read are dead stores); on the last iteration, a value last mentioned in L is read by nothing after its last
// mention there (no later mention, and no loop around both carries it). The properties in props/liveness_props.cpp
// and props/reuse_props.cpp check both against verify/dynamic_liveness.h on generated programs that reuse tensors,
// the iteration of each live step included.
//
// Registers follow the same rule, with their own back-edge answer: every write of a register replaces all of it, so
// a write that runs every time (not inside a block or a register-bounded loop) starts a new value, unless the
// register is carried around a loop that holds both it and an earlier mention: carried unless its first mention in
// that loop's body is such a write. A register redefined in full between two uses is therefore live in two
// segments (the REG colorer's pieces, alloc/reg/reg_live_pieces.h). A loop writes its register at its header and at
// its end (the exit value), and reads it throughout its body, so a loop register is live over its whole loop.
// Segments are inclusive: a tensor read and another written by the same instruction interfere (no in-place reuse;
// placements may overlap partially, so sharing memory there is not safe in general).
//
// Allocators use it in two ways: interference is segment against segment (interferes()), so tensors whose values
// never overlap share memory; and values can be split into tensors of their own (alloc/value_split.h) where a
// tensor is free to move, so that each value takes its own place.
#pragma once

#include <cstdint>
#include <vector>

#include "alloc/linear_order.h"
#include "ir/program.h"

namespace allocsim {

// Inclusive positions [first, last] of the linear order.
struct Segment {
  uint32_t first = 0;
  uint32_t last = 0;
  bool operator==(const Segment&) const = default;
};

// Positions [first, last] of a loop's body (or its end position, where no instruction runs) at which a value is live
// on some iterations of each run of `loop` only: the last one, or every one but the last. With `outer`, a loop around
// `loop`, the same of the chain of loops from `outer` in to `loop`: live only where every one of them is on its last
// iteration, or only where some one of them is not.
struct IterationPart {
  uint32_t first = 0;
  uint32_t last = 0;
  int32_t loop = -1;            // an index into LinearOrder::loops
  bool last_iteration = false;  // true: live there on the last iteration only; false: on every iteration but the last
  int32_t outer = -1;           // the chain's outermost loop (an index into LinearOrder::loops); -1: `loop` alone
  bool operator==(const IterationPart&) const = default;
  int32_t outermost() const { return outer < 0 ? loop : outer; }
  // Whether no step runs with both this part's value and `o`'s live: one live on the last iteration of every loop of
  // its chain only, the other not on the last of every loop of its own, and the second chain inside the first. (At a
  // position both hold, both chains lie on the position's loop nest, where a loop around another comes first in
  // LinearOrder::loops.)
  bool excludes(const IterationPart& o) const {
    if (last_iteration == o.last_iteration) return false;
    const IterationPart& a = last_iteration ? *this : o;  // the last iterations only
    const IterationPart& b = last_iteration ? o : *this;
    return a.outermost() <= b.outermost() && b.loop <= a.loop;
  }
};

// The positions where a tensor or register is live: a sorted set of disjoint segments. first/last are the hull;
// `parts` lists the segments when there are two or more (empty: the hull is the one segment). `only` narrows some
// positions of the segments to some iterations of a loop (see "Iterations" in the file comment); a reader that
// ignores it sees every position of a segment as live on every iteration, which is always sound.
struct LiveRange {
  LiveRange() = default;
  LiveRange(uint32_t first_pos, uint32_t last_pos) : first(first_pos), last(last_pos) {}  // one segment

  uint32_t first = kNone;  // inclusive positions in the linear order; first == kNone: empty
  uint32_t last = 0;
  std::vector<Segment> parts;  // two or more, ascending, with a gap between neighbours; or empty (see above)
  std::vector<IterationPart> only;  // ascending, disjoint, each inside one segment

  bool empty() const { return first == kNone; }
  bool contains(uint32_t pos) const;
  size_t segmentCount() const { return empty() ? 0 : parts.empty() ? 1 : parts.size(); }
  Segment segment(size_t i) const { return parts.empty() ? Segment{first, last} : parts[i]; }
  // Adds the positions [s.first, s.last] (merged with the segments they meet or touch), live on every iteration
  // there (the parts of `only` they meet are cut back).
  void add(Segment s);
  // The part of `only` that holds `pos`, or null (then the range, if it contains pos, is live there on every
  // iteration).
  const IterationPart* partAt(uint32_t pos) const;
  bool operator==(const LiveRange&) const = default;
};

// True when both ranges are non-empty and share a position (segment against segment) where their iterations do not
// exclude each other (IterationPart::excludes).
bool interferes(const LiveRange& a, const LiveRange& b);

// Adds `w` over every segment of `r` to a difference array indexed by position (delta.size() > r.last + 1). It
// ignores `only`: the sum at a position is what is live there on some iteration or other.
void addOverSegments(std::vector<int64_t>& delta, const LiveRange& r, int64_t w);

// The most weight live at once over ranges, by iteration: at a position, what is live on every iteration, plus the
// most that the parts there (IterationPart) can hold together on one iteration, over which of their loops are on
// their last iteration (the max-live of the data that the ranges claim; "Iterations" above says why a placement may
// need more). Without the order, the loops between a chain's ends are not known and each chain counts as a loop of
// its own (never less than with the order).
class LiveSum {
 public:
  explicit LiveSum(size_t positions, const LinearOrder* order = nullptr) : every_(positions + 1, 0), order_(order) {}
  // Adds `w` over the positions of `r` (those at or beyond the positions given to the constructor are ignored).
  void add(const LiveRange& r, int64_t w);
  int64_t max() const;

 private:
  struct Change {
    uint32_t pos;
    uint32_t key;  // an index into keys_
    int64_t w;
  };
  void over(std::vector<int64_t>& delta, uint32_t first, uint32_t last, int64_t w);
  std::vector<int64_t> every_;  // difference array over positions
  const LinearOrder* order_;
  std::vector<IterationPart> keys_;  // the distinct (loop, outer, last_iteration) of the parts added
  std::vector<Change> changes_;      // where a key's weight rises or falls
};

// How the back-edge rule was decided, per (tensor, loop) question asked of the views (registers and quick whole-write
// kills are not counted). `-v` prints them (alloc/driver.cpp).
struct LivenessStats {
  uint32_t per_iteration = 0;  // covered in every iteration: not extended
  uint32_t carried = 0;        // a true loop-carried value: extended over the loop
  uint32_t undecidable = 0;    // the views could not decide: extended (the conservative rule)
  bool operator==(const LivenessStats&) const = default;
};

struct Liveness {
  LinearOrder order;
  LivenessStats stats;
  std::vector<LiveRange> tensors;    // by TensorId
  std::vector<LiveRange> registers;  // by RegId
  // By TensorId: the positions of the full writes that start the tensor's second, third, ... value (ascending).
  // At such a position the tensor's reads belong to the value before and its writes to the value it starts.
  std::vector<std::vector<uint32_t>> value_starts;
};

// The order holds pointers into `p`: the result must not outlive it.
Liveness computeLiveness(const Program& p);

}  // namespace allocsim
