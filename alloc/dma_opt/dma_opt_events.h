// What DMA optimization records of its decisions when asked (DmaOptOptions::verbosity > 0), in order: plain data
// that tools/report_format.h prints as the production allocator's lines.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

namespace allocsim {
namespace dma_event {
struct Removed {  // a load or save whose data is already resident in an earlier tile (load merging)
  std::string instruction;  // its text
  uint32_t line = 0, col = 0;
  std::string resident;     // the tensor that holds the data
  bool operator==(const Removed&) const = default;
};
struct CopyConsidered {  // a reload that could become an on-chip copy from the resident tile (transform_load)
  uint64_t ring_decrease = 0;  // descriptors saved
  std::string resident;
  uint64_t distance = 0;       // instructions the resident tile is held longer
  uint64_t bytes = 0;          // per partition
  bool taken = false;
  bool operator==(const CopyConsidered&) const = default;
};
}  // namespace dma_event

using DmaOptEvent = std::variant<dma_event::Removed, dma_event::CopyConsidered>;

}  // namespace allocsim
