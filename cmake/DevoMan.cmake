# SPDX-License-Identifier: MIT
# DevoMan.cmake: the man pages, one per command as git has them: devo(1) lists the commands,
# devo-<command>(1) each (devo-serve(1) where serve is built), and etc-gen(1). They are made at
# build time by scripts/man_help.sh from the programs' own --help and --version, so they never
# disagree with the programs. Also the bash completion script.
set(DEVO_COMPLETION ${PROJECT_SOURCE_DIR}/tools/completion/devo.bash)
if(DEVO_MAN)
  set(DEVO_COMMANDS solve schedule eval list-problems experiment rank)
  if(MHD_FOUND) # the condition of devo_cli's DEVO_HAVE_SERVE
    list(APPEND DEVO_COMMANDS serve)
  endif()
  set(DEVO_MAN_PAGES "")
  # page, program target, command ("" for a program's own page), NAME line ("" for a command:
  # its line of `devo --help`)
  set(DEVO_MAN_devo devo_cli ""
      "differential evolution on CPU and NVIDIA GPUs: scheduling and benchmarks")
  set(DEVO_MAN_etc-gen etc-gen ""
      "generate Braun-style ETC matrices (expected time to compute)")
  foreach(c ${DEVO_COMMANDS})
    set(DEVO_MAN_devo-${c} devo_cli ${c} "")
  endforeach()
  list(TRANSFORM DEVO_COMMANDS PREPEND devo- OUTPUT_VARIABLE pages)
  foreach(page devo ${pages} etc-gen)
    list(GET DEVO_MAN_${page} 0 tgt)
    list(GET DEVO_MAN_${page} 1 cmd)
    list(GET DEVO_MAN_${page} 2 what)
    set(out ${PROJECT_BINARY_DIR}/${page}.1)
    add_custom_command(
      OUTPUT ${out}
      COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/man_help.sh -n "${what}" -o ${out}
              $<TARGET_FILE:${tgt}> ${cmd}
      DEPENDS ${tgt} ${PROJECT_SOURCE_DIR}/scripts/man_help.sh
      COMMENT "man page ${page}.1"
      VERBATIM)
    list(APPEND DEVO_MAN_PAGES ${out})
  endforeach()
  add_custom_target(devo_man ALL DEPENDS ${DEVO_MAN_PAGES})
  install(FILES ${DEVO_MAN_PAGES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
# bash-completion loads completions/NAME when NAME is first completed: one copy per program
foreach(prog devo etc-gen)
  install(FILES ${DEVO_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
          RENAME ${prog})
endforeach()
