# SPDX-License-Identifier: MIT
# DevoInstall.cmake: install() rules and the two ways to find an installed devo: the CMake
# package (find_package(devo) -> devo::devo) and pkg-config (devo.pc). A consumer links devo
# with its C compiler alone: libcsv, the threads library, libm and, in a CUDA build, the static
# CUDA runtime are in devo::devo's link interface (pkg-config: Libs.private, for --static).
include(CMakePackageConfigHelpers)
set(DEVO_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/devo)

install(TARGETS devo EXPORT devoTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/engine/include/devo.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS devo_cli etc-gen RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/devo)

# ---- CMake package ----
install(EXPORT devoTargets NAMESPACE devo:: DESTINATION ${DEVO_CMAKE_DIR})
# The CUDA toolkit this build used, a hint for find_dependency(CUDAToolkit) on the consumer's
# side (which needs the toolkit's libraries, not nvcc).
if(DEVO_HAVE_CUDA)
  get_filename_component(DEVO_CUDA_ROOT "${CUDAToolkit_BIN_DIR}" DIRECTORY)
endif()
set(DEVO_CSV_NAMES csv)
if(DEVO_CSV_STATIC)
  set(DEVO_CSV_NAMES "libcsv.a csv")
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/devoConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/devoConfig.cmake
                              INSTALL_DESTINATION ${DEVO_CMAKE_DIR})
# 0.x: a minor version may change the API, so only the same minor version is compatible
write_basic_package_version_file(${PROJECT_BINARY_DIR}/devoConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/devoConfig.cmake ${PROJECT_BINARY_DIR}/devoConfigVersion.cmake
        DESTINATION ${DEVO_CMAKE_DIR})

# ---- pkg-config ----
# The prefix is found from the .pc file's own place, so `cmake --install build --prefix DIR`
# (a prefix other than the configured one) still gives a working file.
file(RELATIVE_PATH DEVO_PC_UP /x/${CMAKE_INSTALL_LIBDIR}/pkgconfig /x)
string(REGEX REPLACE "/$" "" DEVO_PC_UP "${DEVO_PC_UP}")
set(DEVO_PC_PRIVATE "-lcsv -lpthread -lm")
if(DEVO_CSV_STATIC)
  set(DEVO_PC_PRIVATE "${CSV_LIBRARY} -lpthread -lm")
endif()
if(DEVO_HAVE_CUDA)
  string(APPEND DEVO_PC_PRIVATE " ${CUDA_cudart_static_LIBRARY} -lstdc++ -ldl -lrt")
endif()
if(BUILD_SHARED_LIBS)
  set(DEVO_PC_PRIVATE "") # the shared library carries its own dependencies
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/devo.pc.in ${PROJECT_BINARY_DIR}/devo.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/devo.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
