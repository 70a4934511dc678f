# SPDX-License-Identifier: MIT
# DevoCudaArch.cmake: the default CUDA architectures, included once nvcc is found and before
# enable_language(CUDA). An explicit -DCMAKE_CUDA_ARCHITECTURES=... always wins.
# 1. The GPUs of this machine, as nvidia-smi reports their compute capability (the effect of
#    CMake 3.24's "native", which 3.22 lacks and which fails where no GPU is visible).
# 2. Without a visible GPU, Hopper (sm_90: H100, H200, GH200) as machine code plus its PTX,
#    which the driver compiles for newer GPUs at the first launch. One architecture, because
#    each one costs the whole device compile again (about 5 minutes of CPU) and about 2 MB of
#    devo; the CEC kernels of gpu_cec.cu need sm_90 anyway. Older GPUs (Turing, Ampere, Ada):
#    -DCMAKE_CUDA_ARCHITECTURES="75;80;86;89;90" or just the one of the target machine.
if(DEFINED CMAKE_CUDA_ARCHITECTURES)
  message(STATUS "devo: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES} (from -D or the cache)")
  return()
endif()

set(_devo_arch "")
find_program(DEVO_NVIDIA_SMI nvidia-smi)
mark_as_advanced(DEVO_NVIDIA_SMI)
if(DEVO_NVIDIA_SMI)
  execute_process(COMMAND ${DEVO_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                  OUTPUT_VARIABLE _devo_caps RESULT_VARIABLE _devo_rc ERROR_QUIET TIMEOUT 20)
  if(_devo_rc EQUAL 0)
    string(REGEX MATCHALL "[0-9]+\\.[0-9]+" _devo_caps "${_devo_caps}")
    foreach(_cap IN LISTS _devo_caps)
      string(REPLACE "." "" _cap "${_cap}")
      list(APPEND _devo_arch ${_cap})
    endforeach()
    list(REMOVE_DUPLICATES _devo_arch)
  endif()
endif()

if(_devo_arch)
  set(_devo_why "the GPUs of this machine")
else()
  set(_devo_arch 90)
  set(_devo_why "no GPU visible: sm_90 and its PTX")
endif()
set(CMAKE_CUDA_ARCHITECTURES "${_devo_arch}" CACHE STRING "CUDA architectures (devo's default: see cmake/DevoCudaArch.cmake)")
message(STATUS "devo: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES} (${_devo_why})")
