# The installed CMake package: `cmake --install build --prefix P`, then in a user's project
#   find_package(allocsim REQUIRED)            # with -DCMAKE_PREFIX_PATH=P
#   target_link_libraries(my_allocator PRIVATE allocsim::harness)
# Targets allocsim::ir, ::gen, ::alloc, ::verify, ::sim (SystemC, found through pkg-config), ::harness (each
# links the layers below it); headers under
# include/allocsim/<layer>/ and included as "ir/program.h", "harness/allocator.h", ...; bin/allocsim.
include(GNUInstallDirs)
set(ALLOCSIM_PACKAGE_LIBS allocsim_ir allocsim_gen allocsim_alloc allocsim_verify allocsim_sim allocsim_harness)
foreach(lib ${ALLOCSIM_PACKAGE_LIBS})
  string(REPLACE "allocsim_" "" short ${lib})
  set_target_properties(${lib} PROPERTIES EXPORT_NAME ${short})
  target_include_directories(${lib} INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/allocsim>)
  if(ALLOCSIM_SANITIZE)
    # Instrumented libraries need the sanitizer runtimes in whatever links them.
    target_link_options(${lib} INTERFACE $<INSTALL_INTERFACE:-fsanitize=address,undefined>)
  endif()
endforeach()
install(TARGETS ${ALLOCSIM_PACKAGE_LIBS} EXPORT allocsimTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS allocsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The NKI tracer: `allocsim nki` finds it at <prefix>/share/allocsim/python (PYTHONPATH for `import allocsim_nki`).
install(DIRECTORY ${CMAKE_SOURCE_DIR}/python/ DESTINATION ${CMAKE_INSTALL_DATADIR}/allocsim/python
        PATTERN "__pycache__" EXCLUDE PATTERN "tests" EXCLUDE)
foreach(dir ir gen alloc verify sim harness)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/allocsim/${dir}
          FILES_MATCHING PATTERN "*.h")
endforeach()
install(EXPORT allocsimTargets NAMESPACE allocsim:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/allocsim)
file(WRITE ${CMAKE_BINARY_DIR}/allocsimConfig.cmake
     "include(CMakeFindDependencyMacro)\nfind_dependency(Threads)\nfind_dependency(PkgConfig)\n"
     "pkg_check_modules(SYSTEMC REQUIRED IMPORTED_TARGET systemc)\n"
     "include(\${CMAKE_CURRENT_LIST_DIR}/allocsimTargets.cmake)\n")
install(FILES ${CMAKE_BINARY_DIR}/allocsimConfig.cmake DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/allocsim)

if(ALLOCSIM_TESTS AND NOT ALLOCSIM_SANITIZE)
  # (The sanitizer build skips it: it compiles a project, which is slow, and checks packaging, not memory safety.)
  # A staged install, and the examples/ project configured, built and fuzzed against it, as a user would.
  add_test(NAME install_package
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/tools/install_package_test.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR}
                   ${CMAKE_BINARY_DIR}/install-test)
  set_tests_properties(install_package PROPERTIES TIMEOUT 300)
endif()
