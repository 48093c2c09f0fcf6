#include "ir/minimalloc_csv.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>
#include <string_view>
#include <utility>

namespace allocsim {
namespace {

struct Field {
  std::string_view text;
  uint32_t col = 1;
};

// The fields of one line, views into it; blanks around a field are tolerated (spreadsheets write them).
void splitLine(std::string_view line, std::vector<Field>& out) {
  out.clear();
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    const std::string_view f = line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    const size_t b = f.find_first_not_of(" \t"), e = f.find_last_not_of(" \t");
    out.push_back({b == std::string_view::npos ? std::string_view() : f.substr(b, e - b + 1),
                   uint32_t(start + (b == std::string_view::npos ? 0 : b) + 1)});
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
}

int64_t toInt(const Field& f, uint32_t line, const char* what) {
  int64_t v = 0;
  const char* end = f.text.data() + f.text.size();
  auto [ptr, ec] = std::from_chars(f.text.data(), end, v);
  if (f.text.empty() || ec != std::errc() || ptr != end)
    throw InputError({line, f.col}, std::string(what) + " '" + std::string(f.text) + "' is not an integer (64-bit)");
  return v;
}

// The ids of the rows read so far, as an open-addressing table of row numbers: one probe per row in a flat array (a
// node per id in a std::unordered_set cost an allocation and several cache misses per row, most of reading a
// million rows). A slot holds the id's hash in its high 32 bits and its row + 1 in its low 32 bits; 0 is empty.
class IdSet {
 public:
  explicit IdSet(size_t rows) {
    size_t cap = 16;
    while (cap < 2 * rows) cap *= 2;
    slots_.assign(cap, 0);
  }
  // Adds `id` as the id of the row that will be buffers[row] (the rows before it are in `buffers`); false when one
  // of them has the same id.
  bool insert(std::string_view id, const std::vector<MinimallocBuffer>& buffers, uint32_t row) {
    const uint64_t h = std::hash<std::string_view>{}(id);
    const uint64_t tag = h >> 32 << 32;
    const size_t mask = slots_.size() - 1;
    for (size_t i = size_t(h) & mask;; i = (i + 1) & mask) {
      const uint64_t s = slots_[i];
      if (s == 0) {
        slots_[i] = tag | (uint64_t(row) + 1);
        return true;
      }
      if ((s >> 32 << 32) == tag && buffers[uint32_t(s) - 1].id == id) return false;
    }
  }

 private:
  std::vector<uint64_t> slots_;
};

bool validId(std::string_view id) {
  if (id.empty()) return false;
  for (char c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return false;
  return true;
}

}  // namespace

MinimallocProblem parseMinimallocCsv(const std::string& text, const ProgressFn* progress) {
  MinimallocProblem p;
  const size_t lines = size_t(std::count(text.begin(), text.end(), '\n')) + 1;
  IdSet ids(lines);
  p.buffers.reserve(lines);
  bool with_offset = false, header_seen = false;
  uint32_t line_no = 0, header_line = 0;
  size_t pos = 0;
  std::vector<Field> f;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line(text.data() + pos, (nl == std::string::npos ? text.size() : nl) - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    if (++line_no % kProgressSteps == 0) reportProgress(progress, "reading the file", line_no, "lines");
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    splitLine(line, f);
    if (!header_seen) {
      header_seen = true;
      header_line = line_no;
      std::vector<std::string> names;
      for (const Field& x : f) names.emplace_back(x.text);
      const std::vector<std::string> base = {"id", "lower", "upper", "size"};
      std::vector<std::string> full = base;
      full.push_back("offset");
      if (names == full) with_offset = true;
      else if (names != base)
        throw InputError({line_no, 1}, "expected the header 'id,lower,upper,size' (or with ',offset'), got '" +
                                           std::string(line) + "'");
      continue;
    }
    const size_t want = with_offset ? 5 : 4;
    if (f.size() != want)
      throw InputError({line_no, f.size() > want ? f[want].col : uint32_t(line.size() + 1)},
                       "expected " + std::to_string(want) + " fields, got " + std::to_string(f.size()));
    MinimallocBuffer b;
    b.loc = {line_no, 1};
    const std::string_view id = f[0].text;
    if (!validId(id))
      throw InputError({line_no, f[0].col}, "buffer id '" + std::string(id) + "' must be letters, digits, '_' or '.'");
    if (!ids.insert(id, p.buffers, uint32_t(p.buffers.size())))
      throw InputError({line_no, f[0].col}, "duplicate buffer id '" + std::string(id) + "'");
    b.id = id;
    b.lower = toInt(f[1], line_no, "lower");
    b.upper = toInt(f[2], line_no, "upper");
    b.size = toInt(f[3], line_no, "size");
    if (b.lower < 0) throw InputError({line_no, f[1].col}, "lower " + std::string(f[1].text) + " is negative");
    if (b.upper <= b.lower)
      throw InputError({line_no, f[2].col}, "buffer '" + b.id + "' lives over [" + std::string(f[1].text) + ", " +
                                                std::string(f[2].text) + "), which is empty: upper must exceed lower");
    if (b.size <= 0) throw InputError({line_no, f[3].col}, "size " + std::string(f[3].text) + " must be positive");
    if (with_offset) {
      b.offset = toInt(f[4], line_no, "offset");
      if (*b.offset < 0) throw InputError({line_no, f[4].col}, "offset " + std::string(f[4].text) + " is negative");
    }
    p.buffers.push_back(std::move(b));
  }
  if (!header_seen) throw InputError({1, 1}, "empty file: expected the header 'id,lower,upper,size'");
  // A problem without buffers has nothing to place: solve would "place" it and import would write a program
  // without instructions, which no verb accepts. Both refuse it here, alike.
  if (p.buffers.empty())
    throw InputError({header_line, 1}, "no buffers: the file has its header and no rows");
  return p;
}

std::string printMinimallocCsv(const MinimallocProblem& p) {
  bool offsets = !p.buffers.empty();
  for (const MinimallocBuffer& b : p.buffers) offsets = offsets && b.offset.has_value();
  std::string out = offsets ? "id,lower,upper,size,offset\n" : "id,lower,upper,size\n";
  for (const MinimallocBuffer& b : p.buffers) {
    out += b.id + "," + std::to_string(b.lower) + "," + std::to_string(b.upper) + "," + std::to_string(b.size);
    if (offsets) out += "," + std::to_string(*b.offset);
    out += "\n";
  }
  return out;
}

std::optional<uint64_t> capacityFromFileName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.size() < 5 || name.compare(name.size() - 4, 4, ".csv") != 0) return std::nullopt;
  name.resize(name.size() - 4);
  size_t dot = name.find_last_of('.');
  if (dot == std::string::npos || dot + 1 == name.size()) return std::nullopt;
  uint64_t v = 0;
  const char* b = name.data() + dot + 1;
  const char* e = name.data() + name.size();
  auto [ptr, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || ptr != e) return std::nullopt;
  return v;
}

uint64_t maxLiveBytes(const MinimallocProblem& p) {
  // Ends sort before starts at the same time: [lower, upper) intervals touching at a point do not overlap.
  std::vector<std::pair<int64_t, int64_t>> events;
  for (const MinimallocBuffer& b : p.buffers) {
    events.push_back({b.lower, b.size});
    events.push_back({b.upper, -b.size});
  }
  std::sort(events.begin(), events.end());
  int64_t live = 0, peak = 0;
  for (auto [t, d] : events) {
    live += d;
    peak = std::max(peak, live);
  }
  return uint64_t(peak);
}

namespace {

// Calls f(buffer, live bytes, live buffers, time) after each start, in time order: the ends at a time before the
// starts there, the starts in file order.
template <typename F>
void sweepStarts(const MinimallocProblem& p, F&& f) {
  struct Event {
    int64_t time;
    bool start;
    uint32_t buffer;
  };
  std::vector<Event> events;
  events.reserve(2 * p.buffers.size());
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    events.push_back({p.buffers[i].lower, true, uint32_t(i)});
    events.push_back({p.buffers[i].upper, false, uint32_t(i)});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.start != b.start) return !a.start;
    return a.buffer < b.buffer;
  });
  uint64_t bytes = 0, count = 0;
  for (const Event& e : events) {
    const uint64_t size = uint64_t(p.buffers[e.buffer].size);
    if (!e.start) {
      bytes -= size, --count;
      continue;
    }
    bytes += size, ++count;
    if (!f(e.buffer, bytes, count, e.time)) return;
  }
}

}  // namespace

std::optional<LiveExcess> firstLiveExcess(const MinimallocProblem& p, uint64_t capacity) {
  std::optional<LiveExcess> out;
  sweepStarts(p, [&](uint32_t buffer, uint64_t bytes, uint64_t, int64_t time) {
    if (bytes <= capacity) return true;
    out = LiveExcess{buffer, time, bytes};
    return false;
  });
  return out;
}

LiveCrowd mostBuffersLive(const MinimallocProblem& p) {
  LiveCrowd out;
  sweepStarts(p, [&](uint32_t buffer, uint64_t, uint64_t count, int64_t time) {
    if (count > out.count) out = LiveCrowd{buffer, time, count};
    return true;
  });
  return out;
}

}  // namespace allocsim
