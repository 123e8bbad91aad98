# ROPELAB_GIT_COMMIT: the commit a build from a git checkout was made from ("<sha>+dirty" when
# tracked files differ from it), empty for a build from an sdist. Reports record it as provenance.
set(ROPELAB_GIT_COMMIT "")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${PROJECT_SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse HEAD
                  WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}" RESULT_VARIABLE _rc
                  OUTPUT_VARIABLE _sha OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_rc EQUAL 0 AND _sha MATCHES "^[0-9a-f]+$")
    set(ROPELAB_GIT_COMMIT "${_sha}")
    execute_process(COMMAND "${GIT_EXECUTABLE}" status --porcelain --untracked-files=no
                    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}" RESULT_VARIABLE _rc
                    OUTPUT_VARIABLE _changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_rc EQUAL 0 AND NOT _changes STREQUAL "")
      string(APPEND ROPELAB_GIT_COMMIT "+dirty")
    endif()
  endif()
endif()
