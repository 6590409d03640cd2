# Energy reader tests (RAPL powercap). Included at the end of kernels/CMakeLists.txt,
# after the kernel targets exist.
set(_cs_energy_root "${CMAKE_CURRENT_LIST_DIR}/..")

add_executable(test_energy
  "${_cs_energy_root}/tests/test_energy.c"
  "${_cs_energy_root}/src/energy.c")
target_include_directories(test_energy PRIVATE "${_cs_energy_root}/src")
target_link_libraries(test_energy PRIVATE m)
set_target_properties(test_energy PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests")
add_test(NAME energy_powercap_fake_sysfs COMMAND test_energy)

# On a machine without powercap (or with it), a real kernel run keeps its timings and
# says what happened to energy: joules null + note, or a rapl reading.
if(TARGET aes-seq)
  add_test(NAME energy_aes_seq_record
    COMMAND "${_cs_energy_root}/tests/test_energy_record.sh" "$<TARGET_FILE:aes-seq>")
endif()
