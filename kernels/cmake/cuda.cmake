# aes-cuda and its tests. Included at the end of kernels/CMakeLists.txt, after the
# cs_aes / cs_common libraries exist.
#
# - The host-side tests (the __host__ __device__ block code compiled by the C compiler,
#   the NVML energy bookkeeping with a stand-in NVML) are built everywhere.
# - aes-cuda itself is built only where a CUDA compiler is found (check_language), for
#   CS_CUDA_ARCHITECTURES (default "80;90": SASS for sm_80 and sm_90, plus PTX so newer
#   GPUs can JIT). Its CUDA runtime is linked statically and NVML is opened at run time
#   (dlopen libnvidia-ml.so.1), so the binary starts on machines without a driver and
#   says so itself (exit 3). When NVML's header (nvml.h) is found, the NVML signatures
#   used are checked against it at compile time; when the toolkit's NVML stub library is
#   found too, a link check against it is built.
set(_cs_root "${CMAKE_CURRENT_LIST_DIR}/..")
set(_cs_src "${_cs_root}/src")
set(_cs_tests "${_cs_root}/tests")

# The energy reader's tests live beside these.
include("${CMAKE_CURRENT_LIST_DIR}/energy_tests.cmake")

find_package(OpenSSL REQUIRED COMPONENTS Crypto)
find_package(Python3 COMPONENTS Interpreter)

# ---- host-side tests (no CUDA needed) ----
add_executable(test_cuda_block "${_cs_tests}/test_cuda_block.c")
target_include_directories(test_cuda_block PRIVATE "${_cs_src}")
target_link_libraries(test_cuda_block PRIVATE cs_aes OpenSSL::Crypto)
set_target_properties(test_cuda_block PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests")
add_test(NAME cuda_block_on_cpu COMMAND test_cuda_block)

add_executable(test_cuda_chunks "${_cs_tests}/test_cuda_chunks.c" "${_cs_src}/cuda_chunks.c")
target_include_directories(test_cuda_chunks PRIVATE "${_cs_src}")
target_link_libraries(test_cuda_chunks PRIVATE cs_aes OpenSSL::Crypto)
set_target_properties(test_cuda_chunks PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests")
add_test(NAME cuda_chunks_on_cpu COMMAND test_cuda_chunks)

add_executable(test_copy_bound "${_cs_tests}/test_copy_bound.c" "${_cs_src}/copy_bound.c")
target_include_directories(test_copy_bound PRIVATE "${_cs_src}")
target_link_libraries(test_copy_bound PRIVATE m)
set_target_properties(test_copy_bound PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests")
add_test(NAME copy_bound_on_cpu COMMAND test_copy_bound)

add_executable(test_cuda_nvml "${_cs_tests}/test_cuda_nvml.c" "${_cs_src}/nvml_energy.c"
                              "${_cs_src}/energy.c")
target_include_directories(test_cuda_nvml PRIVATE "${_cs_src}")
target_link_libraries(test_cuda_nvml PRIVATE ${CMAKE_DL_LIBS} m)
set_target_properties(test_cuda_nvml PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests")
add_test(NAME cuda_nvml_energy_bookkeeping COMMAND test_cuda_nvml)

# ---- aes-cuda ----
option(CS_WITH_CUDA "Build aes-cuda when a CUDA compiler is found" ON)
if(CS_WITH_CUDA)  # (OFF: no CUDA compiler is even looked for, a quicker configure)
  include(CheckLanguage)
  check_language(CUDA)
endif()
if(NOT CS_WITH_CUDA OR NOT CMAKE_CUDA_COMPILER)
  message(STATUS "aes-cuda: not built (no CUDA compiler found or CS_WITH_CUDA=OFF)")
  return()
endif()
set(CS_CUDA_ARCHITECTURES "80;90" CACHE STRING "GPU architectures aes-cuda is compiled for")
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES ${CS_CUDA_ARCHITECTURES})
endif()
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)
message(STATUS "aes-cuda: CUDA ${CUDAToolkit_VERSION}, architectures ${CS_CUDA_ARCHITECTURES}")

set(_cs_arch_list ${CS_CUDA_ARCHITECTURES})
list(TRANSFORM _cs_arch_list PREPEND "sm_")
list(JOIN _cs_arch_list "," _cs_arch_list)

add_executable(aes-cuda "${_cs_src}/aes_cuda.cu" "${_cs_src}/aes_cuda_energy.cu"
  "${_cs_src}/aes_cuda_lanes.cu" "${_cs_src}/aes_cuda_ttable.cu" "${_cs_src}/aes_cuda_ref.cu"
  "${_cs_src}/cuda_chunks.c" "${_cs_src}/nvml_energy.c")
set_target_properties(aes-cuda PROPERTIES
  CUDA_ARCHITECTURES "${CS_CUDA_ARCHITECTURES}"
  CUDA_STANDARD 17
  CUDA_STANDARD_REQUIRED ON
  CUDA_RUNTIME_LIBRARY Static
  RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}")
target_include_directories(aes-cuda PRIVATE "${_cs_src}")
target_compile_definitions(aes-cuda PRIVATE CS_CUDA_ARCHS="${_cs_arch_list}")
# The host code nvcc hands to the C++ compiler gets the C sources' warnings as errors
# (CS_WARNINGS), and nvcc's own warnings are errors as well.
set(CS_CUDA_WARNINGS --Werror all-warnings "-Xcompiler=-Wall,-Wextra,-Werror")
target_compile_options(aes-cuda PRIVATE
  "$<$<COMPILE_LANGUAGE:CUDA>:-lineinfo;${CS_CUDA_WARNINGS}>")
target_link_libraries(aes-cuda PRIVATE cs_common cs_aes CUDA::cudart_static ${CMAKE_DL_LIBS} m)

# The copy limit the GPU benchmark compares end-to-end throughput with (kernels/bench).
add_executable(aes-cuda-copylimit "${_cs_root}/bench/copy_limit.cu" "${_cs_src}/copy_bound.c"
                                  "${_cs_src}/cuda_chunks.c")
target_include_directories(aes-cuda-copylimit PRIVATE "${_cs_src}")
set_target_properties(aes-cuda-copylimit PROPERTIES
  CUDA_ARCHITECTURES "${CS_CUDA_ARCHITECTURES}"
  CUDA_RUNTIME_LIBRARY Static
  RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}")
target_compile_options(aes-cuda-copylimit PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:${CS_CUDA_WARNINGS}>")
target_link_libraries(aes-cuda-copylimit PRIVATE CUDA::cudart_static)

find_path(CS_NVML_INCLUDE_DIR nvml.h HINTS ${CUDAToolkit_INCLUDE_DIRS}
          DOC "directory of NVML's nvml.h (optional: checks the NVML signatures aes-cuda uses)")
if(CS_NVML_INCLUDE_DIR)
  foreach(_t aes-cuda test_cuda_nvml)
    target_compile_definitions(${_t} PRIVATE CS_HAVE_NVML_H)
    target_include_directories(${_t} PRIVATE "${CS_NVML_INCLUDE_DIR}")
  endforeach()
  message(STATUS "aes-cuda: NVML signatures checked against ${CS_NVML_INCLUDE_DIR}/nvml.h")
  if(TARGET CUDA::nvml)
    add_executable(test_cuda_nvml_link "${_cs_tests}/test_cuda_nvml_link.c")
    target_include_directories(test_cuda_nvml_link PRIVATE "${CS_NVML_INCLUDE_DIR}")
    target_link_libraries(test_cuda_nvml_link PRIVATE CUDA::nvml)
    message(STATUS "aes-cuda: NVML link check against the toolkit's libnvidia-ml stub")
  endif()
endif()

# ---- aes-cuda tests ----
if(Python3_Interpreter_FOUND)
  add_test(NAME cuda_fatbin_sm80_sm90
    COMMAND Python3::Interpreter "${_cs_tests}/test_cuda_fatbin.py" "$<TARGET_FILE:aes-cuda>"
            ${CS_CUDA_ARCHITECTURES})
endif()
# Usage errors and the no-device path (CUDA_VISIBLE_DEVICES= hides every GPU, so this
# runs the same with and without one).
add_test(NAME cuda_cli_and_no_device
  COMMAND "${_cs_tests}/test_cuda_cli.sh" "$<TARGET_FILE:aes-cuda>")
# The GPU run: skipped (exit 77) with the reason where no CUDA device is present.
add_test(NAME cuda_gpu_run
  COMMAND "${_cs_tests}/test_cuda_run.sh" "$<TARGET_FILE:aes-cuda>")
set_tests_properties(cuda_gpu_run PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
