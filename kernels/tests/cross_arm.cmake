# The portable kernels cross-compiled for AArch64 and 32-bit ARM (ARMv7 hard-float) and
# their known-answer tests run under qemu-user (test_cross_arm.sh).
if(NOT CS_PORTABLE_ONLY AND CMAKE_HOST_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  foreach(triplet aarch64-linux-gnu arm-linux-gnueabihf)
    add_test(NAME cross_${triplet}
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_cross_arm.sh ${triplet}
                     ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/cross-${triplet})
    # COST: started early by `ctest -j` (seconds each; tests/CMakeLists.txt)
    set_tests_properties(cross_${triplet} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 COST 10)
  endforeach()
endif()
