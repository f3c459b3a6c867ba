# cmake -DDIR=<folder> -DOUT=<file> -P list_sources.cmake
# Writes the .java files under DIR to OUT, one quoted path a line (a javac @file), rewriting OUT
# only when the list changes.
file(GLOB_RECURSE _files "${DIR}/*.java")
list(SORT _files)
set(_text "")
foreach(f IN LISTS _files)
  string(APPEND _text "\"${f}\"\n")
endforeach()
file(CONFIGURE OUTPUT "${OUT}" CONTENT "${_text}")
