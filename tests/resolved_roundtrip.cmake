# The resolved form of a scenario is itself a scenario that resolves to
# the same text: ksim validate --resolved, twice, must agree byte for byte.
# Usage: cmake -DKSIM=path -DSCENARIO=file -DOUT=dir -P resolved_roundtrip.cmake
execute_process(COMMAND ${KSIM} validate --resolved ${SCENARIO}
                OUTPUT_FILE ${OUT}/first.json RESULT_VARIABLE rc1)
if(NOT rc1 EQUAL 0)
  message(FATAL_ERROR "validate --resolved ${SCENARIO} failed (${rc1})")
endif()
execute_process(COMMAND ${KSIM} validate --resolved ${OUT}/first.json
                OUTPUT_FILE ${OUT}/second.json RESULT_VARIABLE rc2)
if(NOT rc2 EQUAL 0)
  message(FATAL_ERROR "the resolved form of ${SCENARIO} does not load (${rc2})")
endif()
file(READ ${OUT}/first.json a)
file(READ ${OUT}/second.json b)
if(NOT a STREQUAL b)
  message(FATAL_ERROR "the resolved form of ${SCENARIO} resolves differently")
endif()
