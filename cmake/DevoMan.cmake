# SPDX-License-Identifier: MIT
# DevoMan.cmake: man pages for devo and etc-gen, made at build time by help2man from the
# programs' own --help and --version (so they never disagree with the programs), and the bash
# completion script. Without help2man the man pages are skipped with a note, not an error.
set(DEVO_COMPLETION ${PROJECT_SOURCE_DIR}/tools/completion/devo.bash)
if(DEVO_MAN)
  find_program(HELP2MAN help2man)
  mark_as_advanced(HELP2MAN)
  if(HELP2MAN)
    set(DEVO_MAN_PAGES "")
    foreach(prog devo etc-gen)
      if(prog STREQUAL "devo")
        set(tgt devo_cli)
        set(what "differential evolution on CPU and NVIDIA GPUs: scheduling and benchmarks")
      else()
        set(tgt etc-gen)
        set(what "generate Braun-style ETC matrices (expected time to compute)")
      endif()
      add_custom_command(
        OUTPUT ${PROJECT_BINARY_DIR}/${prog}.1
        COMMAND ${HELP2MAN} --no-info --no-discard-stderr --section=1 --name=${what}
                --output=${PROJECT_BINARY_DIR}/${prog}.1
                --help-option=--help --version-option=--version
                "${PROJECT_SOURCE_DIR}/scripts/man_help.sh $<TARGET_FILE:${tgt}>"
        DEPENDS ${tgt} ${PROJECT_SOURCE_DIR}/scripts/man_help.sh
        COMMENT "help2man: ${prog}.1"
        VERBATIM)
      list(APPEND DEVO_MAN_PAGES ${PROJECT_BINARY_DIR}/${prog}.1)
    endforeach()
    add_custom_target(devo_man ALL DEPENDS ${DEVO_MAN_PAGES})
    install(FILES ${DEVO_MAN_PAGES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  else()
    message(STATUS "devo: help2man not found, no man pages (apt-get install help2man)")
  endif()
endif()
install(FILES ${DEVO_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME devo)
