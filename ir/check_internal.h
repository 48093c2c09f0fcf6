// Pieces shared by the well-formedness checker's files (check.cpp, check_decls.cpp, check_instrs.cpp,
// check_trace.cpp). Not a public interface: use ir/check.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/check.h"

namespace allocsim::check {

// Index arithmetic is done in 128 bits: constant + scale * register value cannot overflow it.
using Int = __int128;
std::string intText(Int v);

constexpr size_t kMaxDiagnostics = 20;
constexpr uint32_t kMaxLoopDepth = 256;  // deeper nests are rejected: the execution recurses per level

// Diagnostics keyed by the declaration or static instruction they belong to: only the first per key is
// kept, and at most kMaxDiagnostics in all.
class DiagSink {
 public:
  DiagSink(size_t tensors, size_t registers, size_t nodes);
  size_t tensorKey(TensorId t) const { return t; }
  size_t registerKey(RegId r) const { return tensors_ + r; }
  size_t nodeKey(uint32_t node) const { return tensors_ + registers_ + node; }
  size_t programKey() const { return flagged_.size() - 1; }

  bool has(size_t key) const { return flagged_[key]; }
  bool full() const { return diags_.size() >= kMaxDiagnostics; }
  bool empty() const { return diags_.empty(); }
  void report(size_t key, SourceLoc loc, std::string message);
  // In source order (line, column), ties and unknown locations in declaration / program order.
  std::vector<Diagnostic> sorted() const;

 private:
  struct Entry {
    size_t key;
    Diagnostic diag;
  };
  size_t tensors_, registers_;
  std::vector<bool> flagged_;
  std::vector<Entry> diags_;
};

// The program's instructions in preorder. A loop at node i has its body at nodes [i + 1, end).
struct Node {
  const Instruction* inst;
  uint32_t end;
  uint32_t loop;   // innermost enclosing loop node, or kNone (an if in between is not a loop)
  uint32_t depth;  // number of enclosing loops and ifs
};
std::vector<Node> flatten(const Program& p);

// A view with its register terms evaluated and found in bounds: every field fits the tensor.
struct View {
  TensorId tensor = kNone;
  uint64_t p0 = 0, np = 0;  // partitions [p0, p0 + np)
  uint64_t off = 0, count = 0, step2 = 0, count2 = 1;
  // Elements from the first to one past the last touched in a partition.
  uint64_t extent() const { return count2 <= 1 ? count : step2 * (count2 - 1) + count; }
  // True when each partition's elements form one gap-free run (segments abut or overlap).
  bool oneRun() const { return count2 <= 1 || step2 <= count; }
  bool containsElement(uint64_t e) const;
  bool operator==(const View&) const = default;
};

// `ap` with its partition start p0 and element offset off; nullopt when out of bounds of its tensor.
std::optional<View> viewAt(const Program& p, const AccessPattern& ap, Int p0, Int off);
// "A[0:8, 64:32]" or "A[0:8, 0:4, 8:3]": the view as the text format writes it, starts evaluated.
std::string sliceText(const Program& p, const AccessPattern& ap, Int p0, Int off);
std::string shapeText(uint64_t partitions, uint64_t elements);  // "[8, 64]"
// A view of one tile (ap.tile set, evaluated to `tile`; `off` is the evaluated row offset): "" when the view lies
// inside that tile, else the message ("q{4}[0:8, 0:16] is outside tile array 'q' [4] [8, 16] ...").
std::string tileProblem(const Program& p, const AccessPattern& ap, Int p0, Int tile, Int off);
std::string quoted(const std::string& name);                    // "'A'"
// The PSUM banks holding the first and last element of a matmul destination with element offset off.
std::pair<uint64_t, uint64_t> bankSpan(const Program& p, const AccessPattern& ap, uint64_t off);
std::string bankMessage(const Program& p, const AccessPattern& dst, uint64_t first, uint64_t last);

// The three passes. The declarations and instructions passes return false when what they found makes
// executing the program unsafe (unusable sizes, references to things that do not exist).
bool checkDeclarations(const Program& p, DiagSink& sink);
bool checkInstructions(const Program& p, const std::vector<Node>& nodes, DiagSink& sink);
void traceProgram(const Program& p, const std::vector<Node>& nodes, DiagSink& sink, const CheckOptions& opts);

}  // namespace allocsim::check
