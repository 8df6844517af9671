# Installation: headers, libraries, CMake package, pkg-config file, symh_info, symhcc.
install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/symheap/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/symheap)
