# What `cmake --install` puts where (included by CMakeLists.txt): the three
# programs, their man pages, the systemd units and the two configuration
# files, under CMAKE_INSTALL_PREFIX with the GNU directories. The Debian
# package (debian/, scripts/package) is this install with prefix /usr.
include(GNUInstallDirs)

install(TARGETS lodwash lodwash-scheduler lodwash-worker
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# ---- man pages -------------------------------------------------------------
# lodwash(1), lodwash-scheduler(8) and lodwash-worker(8) are made by help2man
# from the programs' own --help and --version at build time, so they cannot
# drift from it: --help is generated from config/config.c's one table of
# settings and each program's own options. What --help does not say (files,
# exit codes, signals, see also) comes from packaging/man/NAME.h2m.
# lodwash-registry(5) is written by hand (packaging/man/lodwash-registry.5):
# the registry's format is not in any --help. AUTO: the pages when help2man
# is installed; ON (the package): help2man is required.
set(LODWASH_MANPAGES AUTO CACHE STRING "Build and install the man pages (needs help2man): AUTO, ON or OFF")
set_property(CACHE LODWASH_MANPAGES PROPERTY STRINGS AUTO ON OFF)
if(NOT LODWASH_MANPAGES STREQUAL "OFF")
  find_program(HELP2MAN help2man)
  if(NOT HELP2MAN AND LODWASH_MANPAGES STREQUAL "ON")
    message(FATAL_ERROR "LODWASH_MANPAGES=ON but help2man is not installed (apt-get install help2man)")
  elseif(NOT HELP2MAN)
    message(STATUS "help2man not found: no man pages (apt-get install help2man)")
  endif()
endif()
if(HELP2MAN AND NOT LODWASH_MANPAGES STREQUAL "OFF")
  set(man_dir ${CMAKE_BINARY_DIR}/man)
  file(MAKE_DIRECTORY ${man_dir})
  set(man_pages)
  foreach(page "lodwash|1|the command-line tool of lodwash, a harvester of Linked Open Data"
               "lodwash-scheduler|8|decide what lodwash harvests, and when"
               "lodwash-worker|8|run lodwash's harvest jobs from Redis")
    string(REPLACE "|" ";" parts "${page}")
    list(GET parts 0 prog)
    list(GET parts 1 section)
    list(GET parts 2 name)
    set(include ${CMAKE_SOURCE_DIR}/packaging/man/${prog}.h2m)
    add_custom_command(
      OUTPUT ${man_dir}/${prog}.${section}
      # --no-discard-stderr: a program that writes --help to stderr would
      # otherwise give an empty page; LC_ALL=C: the same page on every host.
      COMMAND ${CMAKE_COMMAND} -E env LC_ALL=C
              ${HELP2MAN} --no-info --no-discard-stderr --section=${section} "--name=${name}"
              --include=${include} --output=${man_dir}/${prog}.${section} $<TARGET_FILE:${prog}>
      DEPENDS ${prog} ${include}
      COMMENT "Man page ${prog}(${section}) from ${prog} --help"
      VERBATIM)
    list(APPEND man_pages ${man_dir}/${prog}.${section})
    install(FILES ${man_dir}/${prog}.${section} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
  endforeach()
  add_custom_target(lodwash-man ALL DEPENDS ${man_pages})
endif()
# The hand-written page needs no tool.
if(NOT LODWASH_MANPAGES STREQUAL "OFF")
  install(FILES ${CMAKE_SOURCE_DIR}/packaging/man/lodwash-registry.5
          DESTINATION ${CMAKE_INSTALL_MANDIR}/man5)
endif()

# ---- systemd units ----------------------------------------------------------
# The units name the installed paths (ExecStart, the state and configuration
# folders), so they are configured from packaging/systemd/*.in. Under
# PREFIX/lib/systemd/system by default; the package passes /lib/systemd/system,
# where Debian 12's systemd and debhelper look for them.
set(LODWASH_SYSTEMD_UNIT_DIR "lib/systemd/system" CACHE STRING
    "Where the systemd units are installed (relative: under CMAKE_INSTALL_PREFIX)")
# The state folder is /var/lib/lodwash whatever the prefix: the units'
# StateDirectory=lodwash (which makes it, owned by the user, at the first
# start) is always under /var/lib.
set(LODWASH_STATE_DIR /var/lib/lodwash CACHE PATH "The data directory of the installed programs (the units' LODWASH_DATA)")
set(LODWASH_CONF_DIR ${CMAKE_INSTALL_FULL_SYSCONFDIR}/lodwash)
foreach(unit lodwash-scheduler.service lodwash-worker@.service)
  configure_file(${CMAKE_SOURCE_DIR}/packaging/systemd/${unit}.in
                 ${CMAKE_BINARY_DIR}/systemd/${unit} @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/systemd/${unit} DESTINATION ${LODWASH_SYSTEMD_UNIT_DIR})
endforeach()

# ---- configuration -----------------------------------------------------------
# SYSCONFDIR/lodwash/lodwash.env (the settings, read by the units; it names
# the install's folders, so it is configured from packaging/lodwash.env.in) and
# registry.yaml (the repository's without the providers of the compose
# examples profile, between its "examples profile" markers, which only that
# profile serves: the others are disabled, so a scheduler started on it
# harvests nothing). They are the operator's once
# installed: a file already there is left alone (a second `cmake --install`
# must not undo the operator's edits; the package's conffiles get dpkg's
# rules instead).
# lodwash.env may hold passwords (the store's, the admin token): not
# readable by everyone (the package makes it root:lodwash 0640).
configure_file(${CMAKE_SOURCE_DIR}/packaging/lodwash.env.in ${CMAKE_BINARY_DIR}/lodwash.env @ONLY)
set(lw_confs "${CMAKE_BINARY_DIR}/lodwash.env|OWNER_READ OWNER_WRITE GROUP_READ")
# (the docker image's build stage configures without registry.yaml)
if(EXISTS ${CMAKE_SOURCE_DIR}/registry.yaml)
  file(READ ${CMAKE_SOURCE_DIR}/registry.yaml lw_registry_text)
  string(REGEX REPLACE "# >>> examples profile[^\n]*\n.*# <<< examples profile[^\n]*\n" ""
         lw_registry_text "${lw_registry_text}")
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/packaging)
  file(WRITE ${CMAKE_BINARY_DIR}/packaging/registry.yaml "${lw_registry_text}")
  list(APPEND lw_confs
       "${CMAKE_BINARY_DIR}/packaging/registry.yaml|OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ")
endif()
foreach(conf ${lw_confs})
  string(REPLACE "|" ";" parts "${conf}")
  list(GET parts 0 file)
  list(GET parts 1 mode)
  get_filename_component(name ${file} NAME)
  # file(INSTALL) puts DESTDIR in front of the destination itself.
  install(CODE "
    if(EXISTS \"\$ENV{DESTDIR}${LODWASH_CONF_DIR}/${name}\")
      message(STATUS \"Kept (yours): \$ENV{DESTDIR}${LODWASH_CONF_DIR}/${name}\")
    else()
      file(INSTALL \"${file}\" DESTINATION \"${LODWASH_CONF_DIR}\"
           PERMISSIONS ${mode})
    endif()")
endforeach()
