# The .npy reader and writer: shared by the command line and the C++ tests (which compile them against the
# library's objects).
set(ACCELERA_NPY_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/npy_header.cpp
  ${CMAKE_CURRENT_LIST_DIR}/npy_format.cpp
  ${CMAKE_CURRENT_LIST_DIR}/npy.cpp)
