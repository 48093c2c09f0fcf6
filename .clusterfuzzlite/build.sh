#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build: every fuzz/<name>_fuzz.cpp as a libFuzzer binary in $OUT, with its seed corpus
# (fuzz/corpus/<name>/ zipped), dictionary and options (max_len, timeout: fuzz/<name>.options). The compiler,
# $CFLAGS/$CXXFLAGS (sanitizer, coverage instrumentation) and $LIB_FUZZING_ENGINE come from the base image;
# fuzz/CMakeLists.txt links $LIB_FUZZING_ENGINE when it is set. Run locally with OSS-Fuzz's helper:
#   python infra/helper.py build_fuzzers --external $PWD && python infra/helper.py run_fuzzer --external $PWD lsa_driver_fuzz
cd "$SRC/allocsim"

# The base image compiles C++ against libc++; the distribution's SystemC (libsystemc-dev) is built against
# libstdc++, and the two standard libraries' std::string do not mix at the SystemC interface.
export CXXFLAGS="${CXXFLAGS//-stdlib=libc++/}"

# ALLOCSIM_SANITIZE stays OFF: the sanitizer flags are in $CFLAGS/$CXXFLAGS already, one per build.
cmake -S . -B "$WORK/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" -DCMAKE_CXX_FLAGS_RELEASE="-DNDEBUG" \
  -DALLOCSIM_FUZZ=ON -DALLOCSIM_SANITIZE=OFF -DALLOCSIM_TESTS=OFF -DALLOCSIM_BENCH=OFF \
  -DCMAKE_BUILD_RPATH='$ORIGIN/lib'
targets=()
for src in fuzz/*_fuzz.cpp; do targets+=("$(basename "$src" .cpp)"); done
ninja -C "$WORK/build" "${targets[@]}"

# The fuzzers run in the base runner image, which has no SystemC: its shared library travels in $OUT/lib, where the
# rpath above finds it.
mkdir -p "$OUT/lib"
for lib in $(ldd "$WORK/build/fuzz/${targets[0]}" | awk '/libsystemc/ { print $3 }'); do
  cp -L "$lib" "$OUT/lib/"
done

for name in "${targets[@]}"; do
  short=${name%_fuzz}
  cp "$WORK/build/fuzz/$name" "$OUT/"
  [ -f "fuzz/$short.options" ] && cp "fuzz/$short.options" "$OUT/$name.options"
  [ -f "fuzz/$short.dict" ] && cp "fuzz/$short.dict" "$OUT/$name.dict"
  if [ -d "fuzz/corpus/$short" ]; then
    (cd "fuzz/corpus/$short" && zip -q -r "$OUT/${name}_seed_corpus.zip" .)
  fi
done
