/*=========================================================================
 *
 *  Copyright CudaCommon contributors
 *
 *  Licensed under the Apache License, Version 2.0 (the "License");
 *  you may not use this file except in compliance with the License.
 *  You may obtain a copy of the License at
 *
 *         https://www.apache.org/licenses/LICENSE-2.0.txt
 *
 *  Unless required by applicable law or agreed to in writing, software
 *  distributed under the License is distributed on an "AS IS" BASIS,
 *  WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 *  See the License for the specific language governing permissions and
 *  limitations under the License.
 *
 *=========================================================================*/
#ifndef itkCudaImageFilterFactory_h
#define itkCudaImageFilterFactory_h

#include "CudaCommonExport.h"
#include "itkCudaCompatibility.h"
#include "itkObjectFactoryBase.h"

namespace itk
{
/** \class CudaImageFilterFactory
 * \brief Object factory that makes ITK's filters of CudaImages their CUDA
 * counterparts: with it registered, `itk::AddImageFilter<CudaImage<float, 3>>::New()`
 * returns a CudaAddImageFilter, so code written for ITK's filters (RTK's
 * pipelines) keeps its images on the GPU without a change.
 *
 * Covered, of CudaImage<float, D> and CudaImage<double, D> for D in
 * {2, 3, 4}, all inputs and the output of one type: SquareImageFilter,
 * AbsImageFilter, AddImageFilter, SubtractImageFilter, MultiplyImageFilter,
 * MaximumImageFilter, MinimumImageFilter, DivideImageFilter,
 * DivideOrZeroOutImageFilter, SqrtImageFilter, ExpImageFilter,
 * LogImageFilter, ThresholdImageFilter, BinaryThresholdImageFilter,
 * CastImageFilter (also between float and double) and ExtractImageFilter
 * (also into one dimension fewer). Any other type or filter
 * keeps ITK's. Each CUDA filter
 * is a subclass of the ITK filter it stands for: ITK's parameters are its
 * parameters, and without a CUDA device (or with GPUEnabled off) it runs
 * ITK's code. It is made with ITK's defaults where they differ from the
 * CUDA filter's own (not in place, as ITK's functor filters).
 *
 * Opt-in, in either of two ways: RegisterOneFactory() in the application, or
 * the plugin library, which ITK loads from the directories of the environment
 * variable ITK_AUTOLOAD_PATH at the first use of an object factory
 * (installed in `<libdir>/CudaCommon/autoload`, a directory holding it alone:
 * ITK tries to load every library there).
 * \ingroup CudaCommon
 */
class CudaCommon_EXPORT CudaImageFilterFactory : public ObjectFactoryBase
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaImageFilterFactory);

  using Self = CudaImageFilterFactory;
  using Superclass = ObjectFactoryBase;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  const char *
  GetITKSourceVersion() const override;
  const char *
  GetDescription() const override;

  itkFactorylessNewMacro(Self);
  itkCudaTypeMacro(CudaImageFilterFactory, ObjectFactoryBase);

  /** Register one CudaImageFilterFactory unless one is registered already
   * (by this call, an earlier one, or ITK_AUTOLOAD_PATH). Registered without
   * a CUDA device too: the CUDA filters then compute on the CPU as ITK's. */
  static void
  RegisterOneFactory();

protected:
  CudaImageFilterFactory();
  ~CudaImageFilterFactory() override = default;

private:
  template <typename TITKFilter, typename TCudaFilter>
  void
  Override();
  template <typename TPixel, unsigned int VDimension>
  void
  RegisterOverridesFor();
};
} // namespace itk

#endif
