# docs/coherence.md names every part of the coherence state machine that the
# data manager's code names: the validity enumerators (enum Validity), the
# flags and the steps of the shared state (struct CudaDataManager::SharedState:
# its bool members and member functions, the legacy-stream bridge among them),
# the transitions (CudaDataManager::...Locked) and the producer and adoption
# calls (CudaDataManager::...ByProducer, Adopt..., RecordTransfers, the
# host-streamed production's Begin.../End... and Commit/Abandon). The names
# are read from the code, so a state, flag or transition added there without
# its line in the document fails this test. A name counts as documented when
# the document writes it in backticks (`Name`, or `Name(...)`).
# The data manager's files are SOURCE_DIR/itkCudaDataManager* (its shared
# state's header and sources, the transitions, the public calls), read as one
# text.
#   cmake -DSOURCE_DIR=src -DDOC=docs/coherence.md -P test/CheckCoherenceDoc.cmake
cmake_minimum_required(VERSION 3.16)
foreach(variable SOURCE_DIR DOC)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "CheckCoherenceDoc.cmake: ${variable} is not set")
  endif()
endforeach()
file(GLOB files "${SOURCE_DIR}/itkCudaDataManager*")
set(SOURCE "${SOURCE_DIR}/itkCudaDataManager*")
set(code "")
foreach(file IN LISTS files)
  file(READ "${file}" text)
  string(APPEND code "${text}\n")
endforeach()
file(READ "${DOC}" doc)

# section(OUT BEGIN): the text from the line BEGIN to the next line "};".
function(section out begin)
  string(FIND "${code}" "${begin}" start)
  if(start EQUAL -1)
    message(FATAL_ERROR "CheckCoherenceDoc.cmake: '${begin}' is not in ${SOURCE}")
  endif()
  string(SUBSTRING "${code}" ${start} -1 rest)
  string(FIND "${rest}" "\n};" stop)
  string(SUBSTRING "${rest}" 0 ${stop} body)
  set(${out} "${body}" PARENT_SCOPE)
endfunction()

# collect(PATTERN TEXT): adds the first group of every match to `names`.
function(collect pattern text)
  string(REGEX MATCHALL "${pattern}" matches "${text}")
  foreach(match IN LISTS matches)
    string(REGEX REPLACE "${pattern}" "\\1" name "${match}")
    list(APPEND names "${name}")
  endforeach()
  set(names "${names}" PARENT_SCOPE)
endfunction()

set(names "")
section(validity "enum Validity")
collect("([A-Za-z]+Valid) = " "${validity}")
section(state "struct CudaDataManager::SharedState")
# (no ";" in a pattern: it would split the matches)
string(REGEX MATCHALL "\n  (std::atomic<bool>|bool) +[A-Za-z]+" flags "${state}")
foreach(flag IN LISTS flags)
  string(REGEX MATCH "[A-Za-z]+$" flag "${flag}")
  list(APPEND names "${flag}")
endforeach()
collect("\n  ([A-Z][A-Za-z]+)\\(" "${state}")
list(REMOVE_ITEM names SharedState)
collect("\nCudaDataManager::([A-Za-z]+Locked)\\(" "${code}")
collect("\nCudaDataManager::([A-Za-z]+ByProducer)\\(" "${code}")
collect("\nCudaDataManager::(Adopt[A-Za-z]+)\\(" "${code}")
collect("\nCudaDataManager::(RecordTransfers)\\(" "${code}")
collect("\nCudaDataManager::([A-Za-z]+HostStreamedProduction)\\(" "${code}")
collect("\nCudaHostStreamedProduction::(Commit|Abandon)\\(" "${code}")
list(REMOVE_DUPLICATES names)

list(LENGTH names count)
if(count LESS 30)
  message(FATAL_ERROR "CheckCoherenceDoc.cmake: read only ${count} names from ${SOURCE} (${names}): "
    "the code's layout changed; update this script")
endif()
set(missing "")
foreach(name IN LISTS names)
  string(REGEX MATCH "`${name}[`(]" found "${doc}")
  if(NOT found)
    list(APPEND missing "${name}")
  endif()
endforeach()
if(missing)
  string(REPLACE ";" ", " missing "${missing}")
  message(FATAL_ERROR "docs/coherence.md does not name these parts of the coherence state machine of "
    "${SOURCE}: ${missing}")
endif()
string(REPLACE ";" ", " listed "${names}")
message(STATUS "docs/coherence.md names all ${count} states, flags and transitions of ${SOURCE}: ${listed}")
