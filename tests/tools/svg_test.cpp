// allocsim show / verify --svg: the picture is well-formed XML (checked by a small strict reader here, not by the
// writer's own code), every placed tensor is drawn where its placement and live range say, and a finding's bytes
// are drawn in red over both tensors involved.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tests/common/cli_run.h"
#include "tests/common/files.h"

namespace allocsim {
namespace {

struct Element {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::vector<Element> children;
  std::string text;
};

// A strict reader for the XML subset an SVG file uses: a prolog, elements, quoted attributes, text with the five
// predefined entities. Fails the test (and returns false) on anything malformed: unbalanced or crossed tags,
// unquoted or repeated attributes, stray '<' or '&', trailing content.
class XmlReader {
 public:
  explicit XmlReader(const std::string& s) : s_(s) {}

  bool document(Element& root) {
    skipSpace();
    if (s_.compare(i_, 5, "<?xml") == 0) {
      size_t end = s_.find("?>", i_);
      if (end == std::string::npos) return fail("unterminated prolog");
      i_ = end + 2;
    }
    skipSpace();
    if (!element(root)) return false;
    skipSpace();
    return i_ == s_.size() || fail("content after the root element");
  }
  const std::string& error() const { return error_; }

 private:
  bool fail(const std::string& why) {
    if (error_.empty()) error_ = why + " at byte " + std::to_string(i_);
    return false;
  }
  void skipSpace() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  std::string name() {
    size_t b = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '-' || s_[i_] == ':' ||
                              s_[i_] == '_'))
      ++i_;
    return s_.substr(b, i_ - b);
  }
  bool entityText(size_t end, std::string& out) {
    for (; i_ < end; ++i_) {
      char c = s_[i_];
      if (c == '<') return fail("'<' in text");
      if (c != '&') {
        out += c;
        continue;
      }
      static const std::pair<const char*, char> kEntities[] = {
          {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
      bool ok = false;
      for (auto [ent, ch] : kEntities)
        if (s_.compare(i_, std::strlen(ent), ent) == 0) {
          out += ch;
          i_ += std::strlen(ent) - 1;
          ok = true;
          break;
        }
      if (!ok) return fail("bad entity");
    }
    return true;
  }
  bool element(Element& e) {
    if (i_ >= s_.size() || s_[i_] != '<') return fail("expected '<'");
    ++i_;
    e.name = name();
    if (e.name.empty()) return fail("element without a name");
    for (;;) {
      skipSpace();
      if (i_ >= s_.size()) return fail("unterminated start tag");
      if (s_.compare(i_, 2, "/>") == 0) {
        i_ += 2;
        return true;
      }
      if (s_[i_] == '>') {
        ++i_;
        break;
      }
      std::string key = name();
      if (key.empty() || i_ >= s_.size() || s_[i_] != '=') return fail("attribute without '='");
      ++i_;
      if (i_ >= s_.size() || s_[i_] != '"') return fail("unquoted attribute");
      size_t end = s_.find('"', ++i_);
      if (end == std::string::npos) return fail("unterminated attribute");
      std::string value;
      if (!entityText(end, value)) return false;
      i_ = end + 1;
      if (!e.attrs.emplace(key, value).second) return fail("repeated attribute " + key);
    }
    for (;;) {
      size_t lt = s_.find('<', i_);
      if (lt == std::string::npos) return fail("unterminated element " + e.name);
      if (!entityText(lt, e.text)) return false;
      if (s_.compare(i_, 2, "</") == 0) {
        i_ += 2;
        if (name() != e.name) return fail("mismatched end tag for " + e.name);
        skipSpace();
        if (i_ >= s_.size() || s_[i_] != '>') return fail("bad end tag");
        ++i_;
        return true;
      }
      e.children.emplace_back();
      if (!element(e.children.back())) return false;
    }
  }

  const std::string& s_;
  size_t i_ = 0;
  std::string error_;
};

void collect(const Element& e, const std::string& name, std::vector<const Element*>& out) {
  if (e.name == name) out.push_back(&e);
  for (const Element& c : e.children) collect(c, name, out);
}

std::map<std::string, const Element*> tensorGroups(const Element& root) {
  std::vector<const Element*> gs;
  collect(root, "g", gs);
  std::map<std::string, const Element*> out;
  for (const Element* g : gs)
    if (g->attrs.count("class") && g->attrs.at("class") == "tensor") out[g->attrs.at("data-tensor")] = g;
  return out;
}

const Element& rectOf(const Element& g) {
  for (const Element& c : g.children)
    if (c.name == "rect") return c;
  ADD_FAILURE() << "tensor group without a rect";
  return g;
}

double attr(const Element& e, const char* key) { return std::stod(e.attrs.at(key)); }

std::string tempPath(const char* name) { return std::string(::testing::TempDir()) + name; }

TEST(Svg, ShowDrawsEveryPlacedTensorAtItsPlacementAndLiveRange) {
  // overlap_one_byte.fixed: a @p0+0, b @p0+256, c @p0+1024, each 256 bytes a partition. Positions: 0 start,
  // 1 dma a, 2 dma b, 3 tt c, 4 dma C, 5 dma D, 6 end. a is live 1..3, b 2..5, c 3..4.
  std::string out = tempPath("show_fixed.svg");
  CliRun r = allocsim("show corpus/broken/overlap_one_byte.fixed.nki.txt -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::string svg = readFile(out);
  XmlReader reader(svg);
  Element root;
  ASSERT_TRUE(reader.document(root)) << reader.error();
  EXPECT_EQ(root.name, "svg");
  auto groups = tensorGroups(root);
  ASSERT_EQ(groups.size(), 3u);
  for (auto [name, first, last] : {std::tuple{"a", 1, 3}, {"b", 2, 5}, {"c", 3, 4}}) {
    ASSERT_TRUE(groups.count(name)) << name;
    EXPECT_EQ(groups[name]->attrs.at("data-first"), std::to_string(first)) << name;
    EXPECT_EQ(groups[name]->attrs.at("data-last"), std::to_string(last)) << name;
    EXPECT_EQ(groups[name]->attrs.at("data-space"), "sbuf");
  }
  const Element &a = rectOf(*groups["a"]), &b = rectOf(*groups["b"]), &c = rectOf(*groups["c"]);
  // Same size in bytes: same height; stacked by offset without overlap: a above b, c further down, with the
  // gap between b and c (bytes 512..1023) twice a box's height.
  EXPECT_DOUBLE_EQ(attr(a, "height"), attr(b, "height"));
  EXPECT_NEAR(attr(b, "y"), attr(a, "y") + attr(a, "height"), 0.02);
  EXPECT_NEAR(attr(c, "y") - (attr(b, "y") + attr(b, "height")), 2 * attr(a, "height"), 0.05);
  // Widths proportional to the live ranges (3, 4 and 2 positions); b starts one position after a.
  EXPECT_NEAR(attr(b, "width") / attr(a, "width"), 4.0 / 3.0, 0.01);
  EXPECT_NEAR(attr(c, "width") / attr(a, "width"), 2.0 / 3.0, 0.01);
  EXPECT_NEAR(attr(b, "x") - attr(a, "x"), attr(a, "width") / 3, 0.02);
  // The hover text states the exact placement.
  bool titled = false;
  for (const Element& ch : groups["b"]->children)
    if (ch.name == "title") titled = ch.text.find("bytes 256..511") != std::string::npos;
  EXPECT_TRUE(titled);
  std::vector<const Element*> rects;
  collect(root, "rect", rects);
  for (const Element* e : rects)
    EXPECT_FALSE(e->attrs.count("class") && e->attrs.at("class") == "finding-region") << "no finding, no red";
}

TEST(Svg, VerifyDrawsTheOverlapInRedOverBothTensors) {
  std::string out = tempPath("verify_overlap.svg");
  CliRun r = allocsim("verify corpus/broken/overlap_one_byte.nki.txt --svg " + out);
  ASSERT_EQ(r.exit_code, 1) << r.out;
  Element root;
  std::string svg = readFile(out);
  XmlReader again(svg);
  ASSERT_TRUE(again.document(root)) << again.error();
  std::vector<const Element*> rects;
  collect(root, "rect", rects);
  const Element* red = nullptr;
  for (const Element* e : rects)
    if (e->attrs.count("class") && e->attrs.at("class") == "finding-region") red = e;
  ASSERT_NE(red, nullptr);
  auto groups = tensorGroups(root);
  // The red box lies where a (@p0+0) and b (@p0+255) meet: inside both boxes' byte rows, around byte 255,
  // and over the positions where both are live (2..3).
  for (const char* name : {"a", "b"}) {
    const Element& t = rectOf(*groups[name]);
    double ry = attr(*red, "y") + attr(*red, "height") / 2;
    EXPECT_GE(ry, attr(t, "y") - 2.5) << name;
    EXPECT_LE(ry, attr(t, "y") + attr(t, "height") + 2.5) << name;
    EXPECT_GE(attr(*red, "x"), attr(t, "x") - 0.01) << name;
    EXPECT_LE(attr(*red, "x") + attr(*red, "width"), attr(t, "x") + attr(t, "width") + 0.01) << name;
  }
}

TEST(Svg, ShowRejectsAnUnparsableProgramWithALocation) {
  CliRun r = allocsim("show corpus/broken/README.md");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("corpus/broken/README.md:3:1: unknown statement"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace allocsim
