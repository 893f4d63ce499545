# Runs CudaCommonBenchmark at a tiny size and checks that it exits 0, says
# whether its GPU rows ran or were skipped, prints the table and writes JSON.
# Variables: BENCHMARK (the executable), JSON_FILE (where to write the JSON).

file(REMOVE "${JSON_FILE}")
execute_process(
  COMMAND "${BENCHMARK}" --sizes 32 --repeats 3 --json "${JSON_FILE}"
  RESULT_VARIABLE result
  OUTPUT_VARIABLE output
  ERROR_VARIABLE errors)
message("${output}")
if(NOT result EQUAL 0)
  message(FATAL_ERROR "CudaCommonBenchmark exited with '${result}':\n${errors}")
endif()

if(output MATCHES "GPU rows: skipped")
  if(NOT output MATCHES "GPU rows skipped: ")
    message(FATAL_ERROR "without a GPU the table must end by saying that the GPU rows were skipped")
  endif()
  if(output MATCHES "square kernel|CudaImage upload|chain of")
    message(FATAL_ERROR "GPU rows were printed although the GPU rows were reported as skipped")
  endif()
elseif(NOT output MATCHES "GPU rows: measured on ")
  message(FATAL_ERROR "the output says neither that the GPU rows ran nor that they were skipped")
endif()
if(NOT output MATCHES "measurement +\\| size +\\| +value \\| unit")
  message(FATAL_ERROR "the results table is missing")
endif()
if(NOT output MATCHES "ITK SquareImageFilter Update, CPU")
  message(FATAL_ERROR "the CPU rows are missing")
endif()

if(NOT EXISTS "${JSON_FILE}")
  message(FATAL_ERROR "--json did not write ${JSON_FILE}")
endif()
file(READ "${JSON_FILE}" json)
string(JSON rows ERROR_VARIABLE jsonError LENGTH "${json}" rows)
if(jsonError OR rows LESS 1)
  message(FATAL_ERROR "${JSON_FILE} has no rows (${jsonError}):\n${json}")
endif()
string(JSON firstRowName GET "${json}" rows 0 name)
message("JSON: ${rows} rows, the first is '${firstRowName}'")
