# Fails when a source file includes a header of a higher layer. Run with
#   cmake -DROOT=<source dir> -DSTAMP=<file> -P cmake/check_layers.cmake
# (the build runs it before compiling any layer, so an upward include fails the build).
#
# The layers, lowest first. A file under src/<dir>/ may include headers of its own layer and of
# the layers before it; the public headers include/probity/<name>.hpp belong to the layer given
# in PUBLIC_<name>.
set(LAYERS util text data stats llm predict metrics perturb audit report meta cli)
set(PUBLIC_error util)
set(PUBLIC_version util)
set(PUBLIC_signature util)
set(PUBLIC_limits util)
set(PUBLIC_dataset data)
set(PUBLIC_inputs data)
set(PUBLIC_scores data)
set(PUBLIC_text text)
set(PUBLIC_stats stats)
set(PUBLIC_llm llm)
set(PUBLIC_mi predict)  # the predictor interface; the measures are implemented in metrics
set(PUBLIC_metric metrics)
set(PUBLIC_scoring metrics)
set(PUBLIC_significance metrics)
set(PUBLIC_fit metrics)  # probity fit and the model files of fit=FILE
set(PUBLIC_engine metrics)  # declarations only: assembled by audit/engine.cpp
set(PUBLIC_perturb perturb)
set(PUBLIC_audit audit)
set(PUBLIC_requests meta)  # the requests of the commands the CLI renders itself
set(PUBLIC_attack audit)
set(PUBLIC_score_run audit)
set(PUBLIC_report report)
set(PUBLIC_meta meta)
set(PUBLIC_wmt report)  # types drawn by report; run_wmt_protocol is in meta

function(layer_index name out)
  list(FIND LAYERS "${name}" i)
  set(${out} ${i} PARENT_SCOPE)
endfunction()

function(header_layer header out)  # "probity/x.hpp" or "dir/x.hpp"
  string(REGEX MATCH "^([a-z_]+)/([a-z_0-9]+)" m "${header}")
  set(dir "${CMAKE_MATCH_1}")
  set(name "${CMAKE_MATCH_2}")
  if(dir STREQUAL "probity")
    if(NOT DEFINED PUBLIC_${name})
      message(FATAL_ERROR "check_layers: include/probity/${name}.hpp has no layer")
    endif()
    set(${out} "${PUBLIC_${name}}" PARENT_SCOPE)
  else()
    set(${out} "${dir}" PARENT_SCOPE)
  endif()
endfunction()

set(violations "")
file(GLOB_RECURSE files "${ROOT}/src/*.cpp" "${ROOT}/src/*.hpp" "${ROOT}/include/probity/*.hpp")
foreach(f IN LISTS files)
  file(RELATIVE_PATH rel "${ROOT}" "${f}")
  if(rel MATCHES "^include/probity/([a-z_]+)\\.hpp$")
    set(own "${PUBLIC_${CMAKE_MATCH_1}}")
  else()
    string(REGEX MATCH "^src/([a-z_]+)/" m "${rel}")
    header_layer("${CMAKE_MATCH_1}/x" own)
  endif()
  layer_index("${own}" own_i)
  if(own_i LESS 0)
    message(FATAL_ERROR "check_layers: ${rel} is in no layer")
  endif()
  file(STRINGS "${f}" lines REGEX "^#include \"")
  foreach(line IN LISTS lines)
    string(REGEX MATCH "^#include \"([^\"]+)\"" m "${line}")
    set(inc "${CMAKE_MATCH_1}")
    if(NOT inc MATCHES "/")
      continue()
    endif()
    header_layer("${inc}" layer)
    layer_index("${layer}" i)
    if(i LESS 0)
      continue()  # not a project header
    endif()
    if(i GREATER own_i)
      string(APPEND violations "\n  ${rel} (${own}) includes ${inc} (${layer})")
    endif()
  endforeach()
endforeach()
if(violations)
  message(FATAL_ERROR "upward includes (layers, lowest first: ${LAYERS}):${violations}")
endif()
if(STAMP)
  file(TOUCH "${STAMP}")
endif()
