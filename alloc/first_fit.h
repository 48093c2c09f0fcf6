// First-fit search over the machine's placement geometry: SBUF rectangles (partition x
// byte, with the arch's byte alignment and partition start quantum), and 1-D spans for PSUM banks (the production
// allocator: "first-fit the lowest base bank with liveN free banks"; the footprint is alloc/psum/psum_bank_model.h) and
// register lanes.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/arch.h"
#include "ir/program.h"

namespace allocsim {

// Partitions [partition, partition + partitions) x bytes [offset, offset + bytes) of every one of them.
struct SbufRect {
  uint32_t partition = 0;
  uint32_t partitions = 0;
  uint64_t offset = 0;
  uint64_t bytes = 0;
};
bool overlaps(const SbufRect& a, const SbufRect& b);
SbufRect sbufRect(const Tensor& t, const Placement& at);

// [first, first + count): PSUM banks or register lanes.
struct Span {
  uint64_t first = 0;
  uint64_t count = 0;
};

// The lowest partition band (a multiple of sbuf_partition_quantum), then the lowest byte offset (a multiple of
// sbuf_align) at which a `partitions` x `bytes` rectangle lies inside SBUF and overlaps no rectangle of `taken`.
std::optional<Placement> firstFitSbuf(const Arch& arch, uint32_t partitions, uint64_t bytes,
                                      const std::vector<SbufRect>& taken);

// The lowest start s with s + count <= capacity such that [s, s + count) meets no span of `taken`.
std::optional<uint64_t> firstFitSpan(uint64_t capacity, uint64_t count, const std::vector<Span>& taken);

}  // namespace allocsim
