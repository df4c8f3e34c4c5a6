# The .npy reader and writer and the safe output files: shared by the command line, the C++ tests (which
# compile them against the library's objects) and the fuzz targets (tests/fuzz).
set(ACCELERA_NPY_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/npy_header.cpp
  ${CMAKE_CURRENT_LIST_DIR}/npy_format.cpp
  ${CMAKE_CURRENT_LIST_DIR}/npy.cpp
  ${CMAKE_CURRENT_LIST_DIR}/output_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/interrupt.cpp)
