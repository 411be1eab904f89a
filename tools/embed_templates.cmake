# embed_templates.cmake - writes OUT, a C file holding the text of every
# gnuplot template in DIR (reports/*.gp), so that an installed or copied
# `ksim report` draws its charts with no templates directory beside it
# (tools/report.c falls back to them). Run by the build:
#   cmake -DDIR=reports -DOUT=generated/ks_templates.c -P embed_templates.cmake
file(GLOB templates "${DIR}/*.gp")
list(SORT templates)
set(body "/* ks_templates.c - generated from the templates in reports/ by tools/embed_templates.cmake:\n * do not edit. */\n#include \"tools/templates.h\"\n\nconst ks_template ks_builtin_templates[] = {\n")
foreach(f ${templates})
  get_filename_component(name "${f}" NAME_WE)
  file(READ "${f}" text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "?" "\\?" text "${text}")
  string(REPLACE "\n" "\\n\"\n    \"" text "${text}")
  string(APPEND body "  {\"${name}\",\n    \"${text}\"},\n")
endforeach()
string(APPEND body "  {0, 0},\n};\n")
# written only when it changed, so that an unchanged template rebuilds nothing
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL body)
  file(WRITE "${OUT}" "${body}")
endif()
