// How `allocsim alloc` and `allocsim demo` show a DriverResult (alloc/driver.h): the report lines, one per line
// and each step's lines after a "[step]" header, or one JSON object with the selection and every step's fields
// and lines.
#pragma once

#include <string>

#include "alloc/driver.h"

namespace allocsim::cli {

std::string driverReportText(const DriverResult& r);
// {"file": ..., "optlevel": N, "path": "...", "reports": [{"allocator": "psum", ..., "lines": [...]}, ...],
//  "tensors": [{"name", "space", shape, "origin", ["copy_of"], placement fields}, ...], "registers": [...],
//  "inserted": [{"index": preorder id, "origin", "text": the instruction}, ...]}
// `verify_json`, when not empty, is a JSON value appended as "verify".
std::string driverReportJson(const DriverResult& r, const std::string& file, const std::string& verify_json = "");

}  // namespace allocsim::cli
