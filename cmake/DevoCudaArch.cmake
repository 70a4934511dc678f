# SPDX-License-Identifier: MIT
# DevoCudaArch.cmake: the default CUDA architectures, included once nvcc is found and before
# enable_language(CUDA). An explicit -DCMAKE_CUDA_ARCHITECTURES=... always wins.
# 1. The GPUs of this machine, as nvidia-smi reports their compute capability (the effect of
#    CMake 3.24's "native", which 3.22 lacks and which fails where no GPU is visible).
# 2. Without a visible GPU, a portable set: Volta (sm_70, or Turing sm_75 where this nvcc no
#    longer compiles for Volta, as CUDA 13 does), Ampere sm_80 and Hopper sm_90 as machine code,
#    plus sm_90's PTX, which the driver compiles for newer GPUs at the first launch.
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
  execute_process(COMMAND ${CMAKE_CUDA_COMPILER} --list-gpu-arch
                  OUTPUT_VARIABLE _devo_list RESULT_VARIABLE _devo_rc ERROR_QUIET)
  set(_devo_low 70)
  if(_devo_rc EQUAL 0 AND NOT _devo_list MATCHES "compute_70")
    set(_devo_low 75)
  endif()
  set(_devo_arch ${_devo_low}-real 80-real 90)
  set(_devo_why "no GPU visible: portable set, sm_90 also as PTX")
endif()
set(CMAKE_CUDA_ARCHITECTURES "${_devo_arch}" CACHE STRING "CUDA architectures (devo's default: see cmake/DevoCudaArch.cmake)")
message(STATUS "devo: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES} (${_devo_why})")
