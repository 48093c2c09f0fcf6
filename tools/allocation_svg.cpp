#include "tools/allocation_svg.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "alloc/liveness.h"
#include "verify/placement_rules.h"

namespace allocsim::cli {
namespace {

constexpr double kLeft = 90, kPanelWidth = 1000, kSbufHeight = 360, kBankHeight = 28, kFloorHeight = 240;
// Beyond this many tensors in a panel, the largest (bytes x live span) are drawn one by one and the rest as a grid
// of grey cells whose darkness counts them, so the file stays a few megabytes whatever the program.
constexpr size_t kMaxBoxes = 1500;
constexpr uint32_t kGridColumns = 200, kGridRows = 60;
// The legend lists the tensors too small to carry a label, up to this many.
constexpr size_t kMaxLegend = 600;
constexpr double kLegendRow = 14, kLegendColumn = 250;
constexpr int kLegendColumns = 4;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string xmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// A stable color per tensor name (FNV-1a hue), so the same tensor looks the same in every picture.
std::string colorOf(const std::string& name) {
  uint32_t h = 2166136261u;
  for (unsigned char c : name) h = (h ^ c) * 16777619u;
  return "hsl(" + std::to_string(h % 360) + ",55%,72%)";
}

struct Box {
  TensorId id = 0;
  const Tensor* t = nullptr;
  LiveRange live;
};

struct Frame {
  double x0, y0, w, h;
  double positions;  // the x axis spans positions [0, positions)
  double x(double pos) const { return x0 + w * pos / positions; }
};

std::string rect(double x, double y, double w, double h, const std::string& style) {
  return "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(std::max(w, 0.5)) + "\" height=\"" +
         num(std::max(h, 0.5)) + "\" " + style + "/>";
}

std::string text(double x, double y, const std::string& s, const std::string& extra = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\"" + (extra.empty() ? "" : " " + extra) + ">" +
         xmlEscape(s) + "</text>";
}

std::string outline(const Tensor& t) {
  bool inserted = t.origin != Origin::Source;
  return std::string("stroke=\"#333\" stroke-width=\"0.6\"") + (inserted ? " stroke-dasharray=\"3,2\"" : "");
}

std::string liveText(const LiveRange& r) {
  return "live over positions " + std::to_string(r.first) + ".." + std::to_string(r.last);
}

std::string tensorGroup(const Box& b, const std::string& space, const std::string& shape, const std::string& title,
                        const std::string& label, double lx, double ly) {
  std::string g = "<g class=\"tensor\" data-tensor=\"" + xmlEscape(b.t->name) + "\" data-space=\"" + space +
                  "\" data-first=\"" + std::to_string(b.live.first) + "\" data-last=\"" +
                  std::to_string(b.live.last) + "\">" + shape + "<title>" + xmlEscape(title) + "</title>";
  if (!label.empty()) g += text(lx, ly, label, "font-size=\"9\"");
  return g + "</g>\n";
}

// Ticks along the time axis of a panel, labelled with the source line of the instruction at that position (a loop's
// header and end: the loop's line), and the axis's caption.
std::string timeAxis(const Frame& f, const LinearOrder& order) {
  const uint32_t positions = uint32_t(order.positions.size());
  std::string out = "<line x1=\"" + num(f.x0) + "\" y1=\"" + num(f.y0 + f.h) + "\" x2=\"" + num(f.x0 + f.w) +
                    "\" y2=\"" + num(f.y0 + f.h) + "\" stroke=\"#000\"/>\n";
  uint32_t step = std::max<uint32_t>(1, positions / 10);
  for (uint32_t p = 0; p < positions; p += step) {
    const Instruction* inst = order.positions[p].inst;
    const std::string label = inst ? "L" + std::to_string(inst->loc.line) : p == 0 ? "start" : "end";
    out += text(f.x(p), f.y0 + f.h + 12, label, "font-size=\"9\"") + "\n";
  }
  out += text(f.x0 + f.w - 330, f.y0 + f.h + 34,
              "time: program order (each instruction, loop header and loop end one step); ticks: source line",
              "class=\"axis-label\" font-size=\"9\"") + "\n";
  return out;
}

// The boxes drawn one by one: all of them, or the kMaxBoxes largest (bytes x live span); the others go to `rest`.
std::vector<const Box*> drawnBoxes(const std::vector<Box>& boxes, std::vector<const Box*>& rest, bool sbuf) {
  std::vector<const Box*> all;
  for (const Box& b : boxes) all.push_back(&b);
  if (all.size() <= kMaxBoxes) return all;
  auto weight = [sbuf](const Box* b) {
    const uint64_t span = uint64_t(b->live.last - b->live.first) + 1;
    return (sbuf ? b->t->totalBytes() : b->t->bytesPerPartition()) * span;
  };
  std::stable_sort(all.begin(), all.end(), [&](const Box* a, const Box* b) { return weight(a) > weight(b); });
  rest.assign(all.begin() + long(kMaxBoxes), all.end());
  all.resize(kMaxBoxes);
  std::stable_sort(all.begin(), all.end(), [](const Box* a, const Box* b) { return a->id < b->id; });
  return all;
}

// Boxes not drawn one by one, as a grid over the panel: a cell is as dark as the number of them covering it.
// box(b) gives b's rectangle (x, y, w, h) in the panel.
template <typename Rect>
std::string aggregateGrid(const std::vector<const Box*>& rest, const Frame& f, Rect&& box, const char* space) {
  if (rest.empty()) return "";
  std::vector<uint32_t> count(size_t(kGridColumns) * kGridRows, 0);
  const double cw = f.w / kGridColumns, ch = f.h / kGridRows;
  for (const Box* b : rest) {
    auto [x, y, w, h] = box(*b);
    const uint32_t c0 = uint32_t(std::clamp((x - f.x0) / cw, 0.0, double(kGridColumns - 1)));
    const uint32_t c1 = uint32_t(std::clamp((x + w - f.x0) / cw, 0.0, double(kGridColumns - 1)));
    const uint32_t r0 = uint32_t(std::clamp((y - f.y0) / ch, 0.0, double(kGridRows - 1)));
    const uint32_t r1 = uint32_t(std::clamp((y + h - f.y0) / ch, 0.0, double(kGridRows - 1)));
    for (uint32_t r = r0; r <= r1; ++r)
      for (uint32_t c = c0; c <= c1; ++c) ++count[size_t(r) * kGridColumns + c];
  }
  const uint32_t most = *std::max_element(count.begin(), count.end());
  std::string out = "<g class=\"aggregate\" data-space=\"" + std::string(space) + "\" data-tensors=\"" +
                    std::to_string(rest.size()) + "\"><title>" + std::to_string(rest.size()) +
                    " smaller tensors, drawn as a density: the darker a cell, the more of them it holds</title>\n";
  for (uint32_t r = 0; r < kGridRows; ++r)
    for (uint32_t c = 0; c < kGridColumns; ++c) {
      const uint32_t n = count[size_t(r) * kGridColumns + c];
      if (n == 0) continue;
      out += rect(f.x0 + c * cw, f.y0 + r * ch, cw, ch,
                  "fill=\"#555\" fill-opacity=\"" + num(0.15 + 0.6 * double(n) / double(most)) + "\"") + "\n";
    }
  return out + "</g>\n";
}

// The legend: tensors whose boxes are too small for a label, each with its color and the same hover title.
struct LegendEntry {
  std::string name, title, color;
  bool inserted = false;
};

// The picture, drawn in named steps, each appending its part of the document to `out` in order: the header line,
// the SBUF panel (its byte axis, tensors, spill markers and time axis), the PSUM panel, the floorplan at the peak
// (its overflow text and tensors), the legend, the finding and the footer.
class MapWriter {
 public:
  MapWriter(const Program& p, const SvgOptions& opts)
      : p_(p), opts_(opts), live_(computeLiveness(p)), positions_(uint32_t(live_.order.positions.size())) {
    collectBoxes();
    byteAxisRange();
    findPeak();
    const double psum_h = kBankHeight * std::max<uint32_t>(1, p.arch.psum_banks);
    sf_ = {kLeft, 60, kPanelWidth, kSbufHeight, double(std::max<uint32_t>(positions_, 1))};
    pf_ = {kLeft, sf_.y0 + sf_.h + 80, kPanelWidth, psum_h, sf_.positions};
    ff_ = {kLeft, pf_.y0 + pf_.h + 80, kPanelWidth, kFloorHeight, 1};
  }

  std::string write() {
    header();
    sbufPanel();
    psumPanel();
    floorplan();
    const double height = legend();
    if (opts_.finding) finding(*opts_.finding, height);
    out_ += text(10, height - 12,
                 "dashed outline: inserted tensor (spill / reload / copy);  orange v: spill store;  blue ^: reload;  "
                 "hover a box for its exact placement and live range", "font-size=\"9\"") + "\n";
    return document(height);
  }

 private:
  // The placed on-chip tensors that are live somewhere; the unplaced ones are counted.
  void collectBoxes() {
    for (TensorId id = 0; id < p_.tensors.size(); ++id) {
      const Tensor& t = p_.tensors[id];
      if (t.space == Space::Dram) continue;
      if (!t.placement) {
        ++unplaced_;
        continue;
      }
      if (live_.tensors[id].empty()) continue;
      (t.space == Space::Sbuf ? sbuf_ : psum_).push_back({id, &t, live_.tensors[id]});
    }
  }

  // The byte axis: what the placements reach, or the capacity when they reach most of it.
  void byteAxisRange() {
    uint64_t reach = 1;
    for (const Box& b : sbuf_) reach = std::max(reach, b.t->placement->offset + b.t->bytesPerPartition());
    ymax_ = reach * 5 >= uint64_t(p_.arch.sbuf_bytes) * 4 ? std::max<uint64_t>(reach, p_.arch.sbuf_bytes) : reach;
  }

  // Peak SBUF use (bytes over all partitions) and where it happens: the floorplan's moment.
  void findPeak() {
    std::vector<int64_t> delta(positions_ + 1, 0);
    for (const Box& b : sbuf_) addOverSegments(delta, b.live, int64_t(b.t->totalBytes()));
    int64_t cur = 0;
    for (uint32_t i = 0; i < positions_; ++i) {
      cur += delta[i];
      if (cur > peak_) peak_ = cur, peak_pos_ = i;
    }
  }

  double ybyte(uint64_t b) const { return sf_.y0 + sf_.h * double(b) / double(ymax_); }

  void toLegend(const Tensor& t, const std::string& title) {
    if (legend_.size() >= kMaxLegend) return void(++legend_left_out_);
    legend_.push_back({t.name, title, colorOf(t.name), t.origin != Origin::Source});
  }

  void header() {
    std::string header = (opts_.title.empty() ? std::string("allocation") : opts_.title) + " - arch " +
                         p_.arch.name + ": SBUF " + std::to_string(p_.arch.sbuf_partitions) + " x " +
                         std::to_string(p_.arch.sbuf_bytes) + " B, PSUM " + std::to_string(p_.arch.psum_banks) +
                         " banks; " + std::to_string(sbuf_.size()) + " SBUF and " + std::to_string(psum_.size()) +
                         " PSUM tensors drawn";
    if (unplaced_) header += ", " + std::to_string(unplaced_) + " unplaced left out";
    out_ += text(10, 20, header, "font-size=\"13\"") + "\n";
  }

  void sbufPanel() {
    out_ += "<g id=\"sbuf\">\n" + text(10, sf_.y0 - 10, "SBUF: byte offset within a partition (y) over time (x)") + "\n";
    out_ += rect(sf_.x0, sf_.y0, sf_.w, sf_.h, "fill=\"#f7f7f7\" stroke=\"#000\"") + "\n";
    sbufByteAxis();
    sbufTensors();
    out_ += timeAxis(sf_, live_.order);
    spillMarkers();
    out_ += "</g>\n";
  }

  // Byte ticks down the SBUF panel and, when the axis reaches it, the capacity as a red dashed line.
  void sbufByteAxis() {
    for (int i = 0; i <= 4; ++i) {
      uint64_t b = ymax_ * uint64_t(i) / 4;
      out_ += text(4, ybyte(b) + 4, std::to_string(b) + " B", "font-size=\"9\"") + "\n";
    }
    if (ymax_ >= p_.arch.sbuf_bytes)
      out_ += "<line class=\"capacity\" x1=\"" + num(sf_.x0) + "\" y1=\"" + num(ybyte(p_.arch.sbuf_bytes)) +
              "\" x2=\"" + num(sf_.x0 + sf_.w) + "\" y2=\"" + num(ybyte(p_.arch.sbuf_bytes)) +
              "\" stroke=\"#900\" stroke-dasharray=\"6,3\"/>\n";
  }

  void sbufTensors() {
    std::vector<const Box*> rest;
    auto sbufRect = [&](const Box& b) {
      const Placement& pl = *b.t->placement;
      const double x = sf_.x(b.live.first), y = ybyte(pl.offset);
      return std::tuple{x, y, sf_.x(b.live.last + 1) - x, ybyte(pl.offset + b.t->bytesPerPartition()) - y};
    };
    for (const Box* bp : drawnBoxes(sbuf_, rest, true)) {
      const Box& b = *bp;
      const Placement& pl = *b.t->placement;
      auto [x, y, w, h] = sbufRect(b);
      std::string parts =
          "p" + std::to_string(pl.partition) + ".." + std::to_string(pl.partition + b.t->partitions - 1);
      std::string title = b.t->name + ": SBUF partitions " + std::to_string(pl.partition) + ".." +
                          std::to_string(pl.partition + b.t->partitions - 1) + ", bytes " +
                          std::to_string(pl.offset) + ".." + std::to_string(pl.offset + b.t->bytesPerPartition() - 1) +
                          ", " + liveText(b.live) +
                          (b.t->origin != Origin::Source ? std::string(", inserted (") + originName(b.t->origin) + ")"
                                                         : "");
      std::string label = w > 40 && h > 10 ? b.t->name + " " + parts : "";
      if (label.empty()) toLegend(*b.t, title);
      out_ += tensorGroup(
          b, "sbuf", rect(x, y, w, h, "fill=\"" + colorOf(b.t->name) + "\" fill-opacity=\"0.7\" " + outline(*b.t)),
          title, label, x + 2, y + std::min(h, 12.0) - 2);
    }
    out_ += aggregateGrid(rest, sf_, sbufRect, "sbuf");
  }

  // Spill stores and reloads on the time axis: one marker of each kind per pixel column.
  void spillMarkers() {
    std::vector<int> marked(size_t(kPanelWidth) + 2, 0);  // per pixel column: bit 1 spill, bit 2 reload
    for (uint32_t pos = 0; pos < positions_; ++pos) {
      const LinearPosition& lp = live_.order.positions[pos];
      if (lp.kind != LinearPosition::Kind::Instruction || !lp.inst) continue;
      Origin o = lp.inst->origin;
      if (o != Origin::Spill && o != Origin::Reload) continue;
      double x = sf_.x(pos + 0.5), y = sf_.y0 + sf_.h + 18;
      int& seen = marked[size_t(std::clamp(x - sf_.x0, 0.0, kPanelWidth + 1))];
      const int bit = o == Origin::Spill ? 1 : 2;
      if (seen & bit) continue;
      seen |= bit;
      std::string pts =
          o == Origin::Spill
              ? num(x - 4) + "," + num(y) + " " + num(x + 4) + "," + num(y) + " " + num(x) + "," + num(y + 7)
              : num(x - 4) + "," + num(y + 7) + " " + num(x + 4) + "," + num(y + 7) + " " + num(x) + "," + num(y);
      out_ += std::string("<polygon class=\"") + (o == Origin::Spill ? "spill" : "reload") + "\" points=\"" + pts +
              "\" fill=\"" + (o == Origin::Spill ? "#d97706" : "#2563eb") + "\"><title>" +
              (o == Origin::Spill ? "spill store" : "reload") + " at position " + std::to_string(pos) + ", line " +
              std::to_string(lp.inst->loc.line) + "</title></polygon>\n";
    }
  }

  void psumPanel() {
    out_ += "<g id=\"psum\">\n" + text(10, pf_.y0 - 10, "PSUM: banks (y, all partitions) over time (x)") + "\n";
    out_ += rect(pf_.x0, pf_.y0, pf_.w, pf_.h, "fill=\"#f7f7f7\" stroke=\"#000\"") + "\n";
    for (uint32_t bank = 0; bank < p_.arch.psum_banks; ++bank)
      out_ += text(4, pf_.y0 + kBankHeight * (bank + 0.6), "bank " + std::to_string(bank), "font-size=\"9\"") + "\n";
    psumTensors();
    out_ += timeAxis(pf_, live_.order) + "</g>\n";
  }

  void psumTensors() {
    std::vector<const Box*> rest;
    auto psumRect = [&](const Box& b) {
      const double x = pf_.x(b.live.first);
      return std::tuple{x, pf_.y0 + kBankHeight * b.t->placement->bank, pf_.x(b.live.last + 1) - x,
                        kBankHeight * double(psumBankCount(p_.arch, *b.t))};
    };
    for (const Box* bp : drawnBoxes(psum_, rest, false)) {
      const Box& b = *bp;
      uint64_t banks = psumBankCount(p_.arch, *b.t);
      auto [x, y, w, h] = psumRect(b);
      std::string title = b.t->name + ": PSUM banks " + std::to_string(b.t->placement->bank) + ".." +
                          std::to_string(b.t->placement->bank + banks - 1) + ", " + liveText(b.live);
      if (w <= 30) toLegend(*b.t, title);
      out_ += tensorGroup(
          b, "psum", rect(x, y, w, h, "fill=\"" + colorOf(b.t->name) + "\" fill-opacity=\"0.8\" " + outline(*b.t)),
          title, w > 30 ? b.t->name : "", x + 2, y + 11);
    }
    out_ += aggregateGrid(rest, pf_, psumRect, "psum");
  }

  void floorplan() {
    const LinearPosition& peak_at =
        live_.order.positions[std::min<size_t>(peak_pos_, positions_ ? positions_ - 1 : 0)];
    const std::string peak_line = positions_ && peak_at.inst ? ", line " + std::to_string(peak_at.inst->loc.line) : "";
    out_ += "<g id=\"floorplan\">\n" +
            text(10, ff_.y0 - 24, "SBUF floorplan at step " + std::to_string(peak_pos_) + peak_line + " (peak, " +
                                      std::to_string(peak_) + " bytes live): partitions (y) x bytes (x)") + "\n";
    overflowText();
    out_ += rect(ff_.x0, ff_.y0, ff_.w, ff_.h, "fill=\"#f7f7f7\" stroke=\"#000\"") + "\n";
    floorplanTensors();
    out_ += "</g>\n";
  }

  // A peak beyond the SBUF is no allocation: say why in words.
  void overflowText() {
    const uint64_t sbuf_total = uint64_t(p_.arch.sbuf_partitions) * p_.arch.sbuf_bytes;
    size_t beyond = 0;
    for (const Box& b : sbuf_) {
      const Placement& pl = *b.t->placement;
      beyond += pl.offset + b.t->bytesPerPartition() > p_.arch.sbuf_bytes ||
                pl.partition + b.t->partitions > p_.arch.sbuf_partitions;
    }
    if (uint64_t(peak_) <= sbuf_total && beyond == 0) return;
    std::string why;
    if (uint64_t(peak_) > sbuf_total)
      why = "overflow: " + std::to_string(peak_) + " bytes live at once is " +
            std::to_string(uint64_t(peak_) - sbuf_total) + " more than the SBUF's " + std::to_string(sbuf_total) +
            " (" + std::to_string(p_.arch.sbuf_partitions) + " partitions x " + std::to_string(p_.arch.sbuf_bytes) +
            " bytes), so tensors live here share bytes or lie beyond the SBUF";
    if (beyond > 0)
      why += std::string(why.empty() ? "overflow: " : "; ") + std::to_string(beyond) +
             " tensor(s) placed past the SBUF's end (beyond the red dashed line)";
    out_ += text(10, ff_.y0 - 10, why, "class=\"overflow\" fill=\"#b91c1c\" font-size=\"10\"") + "\n";
  }

  // The SBUF tensors live at the peak, at their partitions and bytes.
  void floorplanTensors() {
    const double parts = std::max<uint32_t>(1, p_.arch.sbuf_partitions);
    std::vector<const Box*> rest;
    std::vector<Box> at_peak;
    for (const Box& b : sbuf_)
      if (b.live.contains(peak_pos_)) at_peak.push_back(b);
    for (const Box* bp : drawnBoxes(at_peak, rest, true)) {
      const Box& b = *bp;
      const Placement& pl = *b.t->placement;
      double x = ff_.x0 + ff_.w * double(pl.offset) / double(ymax_);
      double w = ff_.w * double(b.t->bytesPerPartition()) / double(ymax_);
      double y = ff_.y0 + ff_.h * pl.partition / parts, h = ff_.h * b.t->partitions / parts;
      out_ += "<rect class=\"floor\" data-tensor=\"" + xmlEscape(b.t->name) + "\" x=\"" + num(x) + "\" y=\"" +
              num(y) + "\" width=\"" + num(std::max(w, 0.5)) + "\" height=\"" + num(std::max(h, 0.5)) +
              "\" fill=\"" + colorOf(b.t->name) + "\" " + outline(*b.t) + "><title>" + xmlEscape(b.t->name) +
              "</title></rect>\n";
      if (w > 40 && h > 10) out_ += text(x + 2, y + std::min(h, 12.0) - 2, b.t->name, "font-size=\"9\"") + "\n";
    }
    if (!rest.empty())
      out_ += text(ff_.x0, ff_.y0 + ff_.h + 14, std::to_string(rest.size()) + " smaller tensors live here are not drawn",
                   "font-size=\"9\"") + "\n";
  }

  // The tensors too small for a label, each with its color and the same hover title. Returns the document's height,
  // which the legend's rows decide.
  double legend() {
    const double legend_y = ff_.y0 + ff_.h + 40;
    const size_t legend_rows = (legend_.size() + kLegendColumns - 1) / kLegendColumns;
    const double height =
        legend_y + (legend_.empty() ? 0 : 16 + kLegendRow * double(legend_rows + (legend_left_out_ ? 1 : 0))) + 60;
    if (legend_.empty()) return height;
    out_ += "<g id=\"legend\">\n" + text(10, legend_y, "tensors too small to label (hover for the placement):") + "\n";
    for (size_t k = 0; k < legend_.size(); ++k) {
      const LegendEntry& e = legend_[k];
      const double x = 10 + kLegendColumn * double(k % kLegendColumns),
                   y = legend_y + 8 + kLegendRow * double(k / kLegendColumns);
      out_ += "<g class=\"legend-entry\" data-tensor=\"" + xmlEscape(e.name) + "\"><title>" + xmlEscape(e.title) +
              "</title>" + rect(x, y, 10, 10, "fill=\"" + e.color + "\" stroke=\"#333\" stroke-width=\"0.6\"" +
                                                  (e.inserted ? " stroke-dasharray=\"3,2\"" : "")) +
              text(x + 14, y + 9, e.name, "font-size=\"9\"") + "</g>\n";
    }
    if (legend_left_out_)
      out_ += text(10, legend_y + 8 + kLegendRow * double(legend_rows) + 9,
                   "and " + std::to_string(legend_left_out_) + " more (each box's hover title has its placement)",
                   "font-size=\"9\"") + "\n";
    out_ += "</g>\n";
    return height;
  }

  // The finding, in red: a line at its instruction's position across the time panels, its region over the time both
  // items are live, and its message above the footer.
  void finding(const Finding& f, double height) {
    out_ += "<g id=\"finding\">\n";
    for (uint32_t pos = 0; pos < positions_; ++pos) {
      const LinearPosition& lp = live_.order.positions[pos];
      if (!lp.inst || lp.inst->id != f.inst_id || f.inst_id == kNone) continue;
      double x = sf_.x(pos + 0.5);
      out_ += "<line class=\"finding-position\" x1=\"" + num(x) + "\" y1=\"" + num(sf_.y0) + "\" x2=\"" + num(x) +
              "\" y2=\"" + num(pf_.y0 + pf_.h) + "\" stroke=\"#dc2626\" stroke-width=\"1.5\"/>\n";
      break;
    }
    const FindingRegion& r = f.region;
    if (r.present() && (r.kind == FindingRegion::Kind::Sbuf || r.kind == FindingRegion::Kind::Psum)) {
      // Over the time both items are live (their static ranges' intersection).
      uint32_t first = 0, last = positions_ ? positions_ - 1 : 0;
      for (uint32_t item : r.items)
        if (item < live_.tensors.size() && !live_.tensors[item].empty()) {
          first = std::max(first, live_.tensors[item].first);
          last = std::min(last, live_.tensors[item].last);
        }
      if (first > last) first = last;
      const Frame& fr = r.kind == FindingRegion::Kind::Sbuf ? sf_ : pf_;
      double x = fr.x(first), w = fr.x(last + 1) - x;
      double y = r.kind == FindingRegion::Kind::Sbuf ? ybyte(r.lo) : pf_.y0 + kBankHeight * double(r.lo);
      double h = r.kind == FindingRegion::Kind::Sbuf ? ybyte(r.hi) - y : kBankHeight * double(r.hi - r.lo);
      // A one-byte clobber is thinner than a pixel: keep it visible.
      if (h < 4) y -= (4 - h) / 2, h = 4;
      out_ += rect(x, y, w, h,
                   "class=\"finding-region\" fill=\"#dc2626\" fill-opacity=\"0.55\" stroke=\"#dc2626\" "
                   "stroke-width=\"1.5\"") + "\n";
    }
    out_ += text(10, height - 30,
                 "finding (" + std::string(oracleName(f.oracle)) + ", " + findingKindName(f.kind) + ", line " +
                     std::to_string(f.loc.line) + "): " + f.message,
                 "fill=\"#dc2626\" font-size=\"10\"") + "\n</g>\n";
  }

  // The SVG document around the drawing.
  std::string document(double height) const {
    const double width = kLeft + kPanelWidth + 30;
    std::string head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                       num(width) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(width) + " " +
                       num(height) + "\" font-family=\"monospace\" font-size=\"11\">\n";
    head += "<title>" + xmlEscape("allocsim allocation map" + (opts_.title.empty() ? "" : ": " + opts_.title)) +
            "</title>\n<rect x=\"0\" y=\"0\" width=\"" + num(width) + "\" height=\"" + num(height) +
            "\" fill=\"#fff\"/>\n";
    return head + out_ + "</svg>\n";
  }

  const Program& p_;
  const SvgOptions& opts_;
  Liveness live_;
  uint32_t positions_;
  std::vector<Box> sbuf_, psum_;
  size_t unplaced_ = 0;
  uint64_t ymax_ = 1;
  int64_t peak_ = 0;
  uint32_t peak_pos_ = 0;
  Frame sf_{}, pf_{}, ff_{};  // the SBUF, PSUM and floorplan panels
  std::vector<LegendEntry> legend_;
  size_t legend_left_out_ = 0;
  std::string out_;
};

}  // namespace

std::string allocationSvg(const Program& p, const SvgOptions& opts) { return MapWriter(p, opts).write(); }

}  // namespace allocsim::cli
