# `allocsim fuzz-allocator` runs the corpus kernels (corpus/kernels/*.nki.txt) besides generated programs; they are
# embedded at configure time (like the demo kernel) so that an installed binary needs no source tree.
file(GLOB ALLOCSIM_KERNEL_FILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/corpus/kernels/*.nki.txt)
list(SORT ALLOCSIM_KERNEL_FILES)
set(ALLOCSIM_KERNEL_ENTRIES "")
foreach(f ${ALLOCSIM_KERNEL_FILES})
  get_filename_component(name ${f} NAME)
  file(READ ${f} text)
  string(APPEND ALLOCSIM_KERNEL_ENTRIES "      {\"corpus/kernels/${name}\", R\"ALLOCSIM_KERNEL(${text})ALLOCSIM_KERNEL\"},\n")
endforeach()
configure_file(${CMAKE_SOURCE_DIR}/tools/corpus_kernels.cpp.in ${CMAKE_BINARY_DIR}/generated/corpus_kernels.cpp @ONLY)
target_sources(allocsim_cli PRIVATE ${CMAKE_BINARY_DIR}/generated/corpus_kernels.cpp)
