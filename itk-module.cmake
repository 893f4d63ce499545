# Module description for ITK's module system (used when CudaCommon is built
# inside an ITK source tree or as an external module of an ITK build tree).
set(DOCUMENTATION "ITK images mirrored on the GPU (itk::CudaImage), and base classes of CUDA filters, \
see README.md.")

itk_module(CudaCommon
  ENABLE_SHARED
  DEPENDS
    ITKCommon
    ITKImageIntensity
    ITKThresholding
    ITKImageStatistics
    ITKImageGrid
    ITKSmoothing
    ITKImageGradient
    ITKImageFeature
  TEST_DEPENDS
    ITKGoogleTest
    ITKImageIntensity
    ITKIOImageBase
    ITKIOMeta
    ITKSmoothing
  DESCRIPTION
    "${DOCUMENTATION}"
  EXCLUDE_FROM_DEFAULT
)
