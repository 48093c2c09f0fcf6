// What the PSUM and SBUF colorers count and, at verbosity 1 and up, record round by round: plain data that the
// colorers fill and that nothing in alloc/ formats (tools/report_format.h turns it into the production allocator's
// report lines and the JSON fields). Shared because both run one Chaitin–Briggs skeleton (alloc/colorer.h) and are
// reported alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "alloc/worklist_sizes.h"

namespace allocsim {

// A color order as the trace names it: a heuristic's name, through simplify or in its plain order.
struct ColorOrderName {
  std::string heuristic;
  bool plain = false;
  bool operator==(const ColorOrderName&) const = default;
};

// The trace of a colorer's rounds, in the order they happened (verbosity >= 1). Node sizes are a PSUM node's banks
// (size, 0) or an SBUF node's partitions and bytes per partition.
namespace colorer_event {
struct RunStart {  // a heuristic's whole spill fixpoint begins (SBUF: one per heuristic)
  std::string heuristic;
  bool operator==(const RunStart&) const = default;
};
struct RoundStart {
  uint32_t round = 0;
  bool operator==(const RoundStart&) const = default;
};
struct FailedNode {
  std::string tensor;
  uint64_t size = 0, bytes = 0;
  bool operator==(const FailedNode&) const = default;
};
struct Tried {  // one color order's selection
  ColorOrderName order;
  std::optional<WorklistSizes> sizes;  // simplify's (verbosity >= 2, simplify's orders only)
  std::vector<FailedNode> failed;
  double score = 0;
  bool operator==(const Tried&) const = default;
};
struct RoundBest {  // the round's best selection
  ColorOrderName order;
  bool operator==(const RoundBest&) const = default;
};
struct Spilled {  // the round's victims (SBUF: spilled to DRAM slots, or rehomed to DRAM)
  std::vector<std::string> spilled, rehomed;
  bool operator==(const Spilled&) const = default;
};
struct Abandoned {  // the run stopped: it spilled more than a finished run
  uint64_t spill_bytes = 0, bound = 0;
  bool operator==(const Abandoned&) const = default;
};
struct Inserted {  // the spill code the round's rewrite inserted
  uint32_t stores = 0, reloads = 0;
  bool operator==(const Inserted&) const = default;
};
}  // namespace colorer_event

using ColorerEvent = std::variant<colorer_event::RunStart, colorer_event::RoundStart, colorer_event::Tried,
                                  colorer_event::RoundBest, colorer_event::Spilled, colorer_event::Abandoned,
                                  colorer_event::Inserted>;

struct ColorerTrace {
  bool on = false;          // recorded (verbosity >= 1)
  bool sizes = false;       // with simplify's worklist sizes (verbosity >= 2)
  std::vector<ColorerEvent> events;
  void add(ColorerEvent e) {
    if (on) events.push_back(std::move(e));
  }
  bool operator==(const ColorerTrace&) const = default;
};

// The outcome both colorers count: of the final round's best selection, and over all rounds.
struct ColorerOutcome {
  double score = 0;          // the final selection's (lower is better)
  ColorOrderName best;       // the color order that won it
  double spill_cycles = 0;   // spill cost of every spilled node, summed
  uint32_t tensors_spilled = 0;
  double utilization_pct = 0;
  uint32_t rounds = 0;
  bool operator==(const ColorerOutcome&) const = default;
};

}  // namespace allocsim
