# Test CudaCommon.consumer, run with `cmake -P`: install a CudaCommon build
# tree into a private prefix, then configure, build and run examples/consumer
# against that installation only, as a downstream project would.
#
# Required: -DCudaCommon_BINARY_DIR=  the top build directory of CudaCommon
#           -DCONSUMER_SOURCE_DIR=    examples/consumer
#           -DINSTALL_PREFIX=         where to install (emptied first)
#           -DCONSUMER_BINARY_DIR=    where to build the consumer (emptied first)
# Optional: -DGENERATOR= -DBUILD_TYPE= -DCUDA_ARCHITECTURES= (comma separated)
#           -DCXX_COMPILER= -DC_COMPILER= -DCUDA_COMPILER=
#           -DREADME=  README.md, checked to quote the consumer's marked snippets

cmake_minimum_required(VERSION 3.19) # file(REAL_PATH)

foreach(var IN ITEMS CudaCommon_BINARY_DIR CONSUMER_SOURCE_DIR INSTALL_PREFIX CONSUMER_BINARY_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "RunConsumerTest.cmake needs -D${var}=...")
  endif()
endforeach()
if(NOT GENERATOR)
  set(GENERATOR "Ninja")
endif()
if(NOT BUILD_TYPE)
  set(BUILD_TYPE "Release")
endif()

function(run_step description)
  message(STATUS "${description}: ${ARGN}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${description} failed (${result})")
  endif()
endfunction()

# The snippets of the consumer marked "// [readme-snippet]" ...
# "// [readme-snippet-end]" are README.md's examples: README must quote them
# verbatim, so that the examples users read are the ones compiled and run here.
if(README)
  file(READ "${README}" readme_text)
  file(GLOB consumer_sources "${CONSUMER_SOURCE_DIR}/*.cxx" "${CONSUMER_SOURCE_DIR}/*.hxx"
                             "${CONSUMER_SOURCE_DIR}/*.h" "${CONSUMER_SOURCE_DIR}/*.cu")
  set(snippet_count 0)
  foreach(source IN LISTS consumer_sources)
    file(READ "${source}" text)
    while(TRUE)
      string(FIND "${text}" "// [readme-snippet]" begin)
      if(begin EQUAL -1)
        break()
      endif()
      # The snippet starts on the line after the marker ...
      string(SUBSTRING "${text}" ${begin} -1 text)
      string(FIND "${text}" "\n" line_end)
      math(EXPR line_end "${line_end} + 1")
      string(SUBSTRING "${text}" ${line_end} -1 text)
      # ... and ends with the line before the end marker.
      string(FIND "${text}" "// [readme-snippet-end]" end)
      if(end EQUAL -1)
        message(FATAL_ERROR "${source}: \"// [readme-snippet]\" without \"// [readme-snippet-end]\"")
      endif()
      string(SUBSTRING "${text}" 0 ${end} snippet)
      string(FIND "${snippet}" "\n" last_line_end REVERSE)
      math(EXPR snippet_length "${last_line_end} + 1")
      string(SUBSTRING "${snippet}" 0 ${snippet_length} snippet)
      string(SUBSTRING "${text}" ${end} -1 text)
      string(FIND "${readme_text}" "${snippet}" position)
      if(position EQUAL -1)
        message(FATAL_ERROR "${README} does not quote this snippet of ${source} verbatim:\n${snippet}")
      endif()
      math(EXPR snippet_count "${snippet_count} + 1")
    endwhile()
  endforeach()
  message(STATUS "README.md quotes all ${snippet_count} snippets of the consumer")
endif()

file(REMOVE_RECURSE "${INSTALL_PREFIX}" "${CONSUMER_BINARY_DIR}")

run_step("Installing CudaCommon"
  "${CMAKE_COMMAND}" --install "${CudaCommon_BINARY_DIR}" --prefix "${INSTALL_PREFIX}")
# The object factory's plugin, alone in the directory ITK_AUTOLOAD_PATH names
# (a shared build installs it).
file(GLOB_RECURSE autoload_files "${INSTALL_PREFIX}/*/CudaCommon/autoload/*")
list(LENGTH autoload_files autoload_count)
if(EXISTS "${CudaCommon_BINARY_DIR}/autoload" AND
   (NOT autoload_count EQUAL 1 OR NOT autoload_files MATCHES "/libCudaCommonFilterFactoryPlugin\\.so$"))
  message(FATAL_ERROR "the plugin is not installed alone in <libdir>/CudaCommon/autoload: '${autoload_files}'")
endif()

set(configure_args
  -S "${CONSUMER_SOURCE_DIR}" -B "${CONSUMER_BINARY_DIR}" -G "${GENERATOR}"
  "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}"
  "-DCMAKE_PREFIX_PATH=${INSTALL_PREFIX}")
if(CUDA_ARCHITECTURES)
  string(REPLACE "," ";" CUDA_ARCHITECTURES "${CUDA_ARCHITECTURES}")
  list(APPEND configure_args "-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}")
endif()
foreach(lang IN ITEMS CXX C CUDA)
  if(${lang}_COMPILER)
    list(APPEND configure_args "-DCMAKE_${lang}_COMPILER=${${lang}_COMPILER}")
  endif()
endforeach()
run_step("Configuring the consumer" "${CMAKE_COMMAND}" ${configure_args})

# The package must come from the installation, not from a build tree or an
# older installation elsewhere.
file(STRINGS "${CONSUMER_BINARY_DIR}/CMakeCache.txt" found_dir REGEX "^CudaCommon_DIR:")
string(REGEX REPLACE "^CudaCommon_DIR:[A-Z]*=" "" found_dir "${found_dir}")
file(REAL_PATH "${INSTALL_PREFIX}" real_prefix)
file(REAL_PATH "${found_dir}" found_dir)
string(FIND "${found_dir}" "${real_prefix}/" position)
if(NOT position EQUAL 0)
  message(FATAL_ERROR "find_package(CudaCommon) used ${found_dir}, not the installation in ${INSTALL_PREFIX}")
endif()
message(STATUS "find_package(CudaCommon) used ${found_dir}")
run_step("Building the consumer" "${CMAKE_COMMAND}" --build "${CONSUMER_BINARY_DIR}")

find_program(consumer CudaCommonConsumer PATHS "${CONSUMER_BINARY_DIR}" NO_DEFAULT_PATH REQUIRED)
run_step("Running the consumer" "${consumer}")
