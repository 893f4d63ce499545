# Module description for ITK's module system (used when CudaCommon is built
# inside an ITK source tree or as an external module of an ITK build tree).
get_filename_component(MY_CURRENT_DIR "${CMAKE_CURRENT_LIST_FILE}" PATH)
file(READ "${MY_CURRENT_DIR}/README.md" DOCUMENTATION)

itk_module(CudaCommon
  DEPENDS
    ITKCommon
    ITKImageIntensity
  TEST_DEPENDS
    ITKTestKernel
    ITKGoogleTest
    ITKImageIntensity
    ITKSmoothing
  DESCRIPTION
    "${DOCUMENTATION}"
  EXCLUDE_FROM_DEFAULT
)
