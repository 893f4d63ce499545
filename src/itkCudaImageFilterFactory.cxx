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
#include "itkCudaImageFilterFactory.h"
#include "itkCudaAbsImageFilter.h"
#include "itkCudaAddImageFilter.h"
#include "itkCudaBinaryThresholdImageFilter.h"
#include "itkCudaCastImageFilter.h"
#include "itkCudaConstantPadImageFilter.h"
#include "itkCudaCropImageFilter.h"
#include "itkCudaDiscreteGaussianImageFilter.h"
#include "itkCudaBoxMeanImageFilter.h"
#include "itkCudaMeanImageFilter.h"
#include "itkCudaGradientImageFilter.h"
#include "itkCudaGradientMagnitudeImageFilter.h"
#include "itkCudaLaplacianImageFilter.h"
#include "itkCudaDivideImageFilter.h"
#include "itkCudaDivideOrZeroOutImageFilter.h"
#include "itkCudaExpImageFilter.h"
#include "itkCudaExtractImageFilter.h"
#include "itkCudaLogImageFilter.h"
#include "itkCudaMaximumImageFilter.h"
#include "itkCudaMinimumImageFilter.h"
#include "itkCudaMultiplyImageFilter.h"
#include "itkCudaPasteImageFilter.h"
#include "itkCudaSubtractImageFilter.h"
#include "itkCudaImage.h"
#include "itkCudaProcessGlobal.h"
#include "itkCudaShiftScaleImageFilter.h"
#include "itkCudaSqrtImageFilter.h"
#include "itkCudaSquareImageFilter.h"
#include "itkCudaStatisticsImageFilter.h"
#include "itkCudaThresholdImageFilter.h"
#include "itkVersion.h"

#include <type_traits>
#include <typeinfo>
#include <utility>

namespace itk
{
namespace
{
template <typename TFilter, typename = void>
struct HasInPlace : std::false_type
{};
template <typename TFilter>
struct HasInPlace<TFilter, std::void_t<decltype(std::declval<TFilter &>().InPlaceOff())>> : std::true_type
{};

/** Makes a TCudaFilter for ITK's factory, with the ITK filter's defaults
 * where the CUDA filter's differ: not in place (ITK's functor filters turn it
 * off; CudaSquareImageFilter turns it on), for the filters that can be. */
template <typename TCudaFilter>
class CreateCudaFilter : public CreateObjectFunctionBase
{
public:
  using Self = CreateCudaFilter;
  using Pointer = SmartPointer<Self>;
  itkFactorylessNewMacro(Self);

  LightObject::Pointer
  CreateObject() override
  {
    typename TCudaFilter::Pointer filter = TCudaFilter::New();
    if constexpr (HasInPlace<TCudaFilter>::value)
    {
      filter->InPlaceOff();
    }
    return filter.GetPointer();
  }
};

} // namespace

template <typename TITKFilter, typename TCudaFilter>
void
CudaImageFilterFactory::Override()
{
  this->RegisterOverride(typeid(TITKFilter).name(),
                         typeid(TCudaFilter).name(),
                         "CUDA filter override",
                         true,
                         CreateCudaFilter<TCudaFilter>::New());
}

template <typename TPixel, unsigned int VDimension>
void
CudaImageFilterFactory::RegisterOverridesFor()
{
  using ImageType = CudaImage<TPixel, VDimension>;
  this->Override<SquareImageFilter<ImageType, ImageType>, CudaSquareImageFilter<ImageType>>();
  this->Override<AbsImageFilter<ImageType, ImageType>, CudaAbsImageFilter<ImageType, ImageType>>();
  this->Override<AddImageFilter<ImageType, ImageType, ImageType>, CudaAddImageFilter<ImageType>>();
  this->Override<SubtractImageFilter<ImageType, ImageType, ImageType>, CudaSubtractImageFilter<ImageType>>();
  this->Override<MultiplyImageFilter<ImageType, ImageType, ImageType>, CudaMultiplyImageFilter<ImageType>>();
  this->Override<MaximumImageFilter<ImageType, ImageType, ImageType>, CudaMaximumImageFilter<ImageType>>();
  this->Override<MinimumImageFilter<ImageType, ImageType, ImageType>, CudaMinimumImageFilter<ImageType>>();
  this->Override<DivideImageFilter<ImageType, ImageType, ImageType>, CudaDivideImageFilter<ImageType>>();
  this->Override<DivideOrZeroOutImageFilter<ImageType, ImageType, ImageType>,
                 CudaDivideOrZeroOutImageFilter<ImageType>>();
  this->Override<SqrtImageFilter<ImageType, ImageType>, CudaSqrtImageFilter<ImageType>>();
  this->Override<ExpImageFilter<ImageType, ImageType>, CudaExpImageFilter<ImageType>>();
  this->Override<LogImageFilter<ImageType, ImageType>, CudaLogImageFilter<ImageType>>();
  this->Override<ThresholdImageFilter<ImageType>, CudaThresholdImageFilter<ImageType>>();
  this->Override<BinaryThresholdImageFilter<ImageType, ImageType>, CudaBinaryThresholdImageFilter<ImageType>>();
  this->Override<ShiftScaleImageFilter<ImageType, ImageType>, CudaShiftScaleImageFilter<ImageType, ImageType>>();
  // Casts to the same type and between float and double.
  using OtherRealImageType = CudaImage<typename std::conditional<std::is_same<TPixel, float>::value, double, float>::type,
                                       VDimension>;
  this->Override<CastImageFilter<ImageType, ImageType>, CudaCastImageFilter<ImageType, ImageType>>();
  this->Override<CastImageFilter<ImageType, OtherRealImageType>, CudaCastImageFilter<ImageType, OtherRealImageType>>();
  // Regions, of the image's dimension and one fewer (a slice, a volume of a series).
  this->Override<ExtractImageFilter<ImageType, ImageType>, CudaExtractImageFilter<ImageType, ImageType>>();
  this->Override<CropImageFilter<ImageType, ImageType>, CudaCropImageFilter<ImageType, ImageType>>();
  this->Override<ConstantPadImageFilter<ImageType, ImageType>, CudaConstantPadImageFilter<ImageType, ImageType>>();
  this->Override<PasteImageFilter<ImageType, ImageType, ImageType>, CudaPasteImageFilter<ImageType>>();
  if constexpr (VDimension > 2)
  {
    using SliceType = CudaImage<TPixel, VDimension - 1>;
    this->Override<ExtractImageFilter<ImageType, SliceType>, CudaExtractImageFilter<ImageType, SliceType>>();
    this->Override<PasteImageFilter<ImageType, SliceType, ImageType>,
                   CudaPasteImageFilter<ImageType, SliceType, ImageType>>();
  }
  // Neighborhood filters.
  this->Override<DiscreteGaussianImageFilter<ImageType, ImageType>, CudaDiscreteGaussianImageFilter<ImageType, ImageType>>();
  this->Override<MeanImageFilter<ImageType, ImageType>, CudaMeanImageFilter<ImageType, ImageType>>();
  this->Override<BoxMeanImageFilter<ImageType, ImageType>, CudaBoxMeanImageFilter<ImageType, ImageType>>();
  this->Override<GradientMagnitudeImageFilter<ImageType, ImageType>,
                 CudaGradientMagnitudeImageFilter<ImageType, ImageType>>();
  this->Override<LaplacianImageFilter<ImageType, ImageType>, CudaLaplacianImageFilter<ImageType, ImageType>>();
  // The gradient into a CudaImage of covariant vectors of the pixel type.
  using GradientImageType = CudaImage<CovariantVector<TPixel, VDimension>, VDimension>;
  this->Override<GradientImageFilter<ImageType, TPixel, TPixel, GradientImageType>,
                 CudaGradientImageFilter<ImageType, TPixel, TPixel, GradientImageType>>();
  // Reductions (MinimumMaximumImageCalculator's Compute() is not virtual: not here).
  this->Override<StatisticsImageFilter<ImageType>, CudaStatisticsImageFilter<ImageType>>();
}

CudaImageFilterFactory::CudaImageFilterFactory()
{
  this->RegisterOverridesFor<float, 2>();
  this->RegisterOverridesFor<float, 3>();
  this->RegisterOverridesFor<float, 4>();
  this->RegisterOverridesFor<double, 2>();
  this->RegisterOverridesFor<double, 3>();
  this->RegisterOverridesFor<double, 4>();
}

const char *
CudaImageFilterFactory::GetITKSourceVersion() const
{
  return ITK_SOURCE_VERSION;
}

const char *
CudaImageFilterFactory::GetDescription() const
{
  return "Makes ITK's filters of CudaImages (Square, Abs, Add, Subtract, Multiply, Maximum, Minimum, Divide, "
         "DivideOrZeroOut, Sqrt, Exp, Log, Threshold, BinaryThreshold, ShiftScale, Cast, Extract, Crop, ConstantPad, Paste, "
         "DiscreteGaussian, Mean, BoxMean, GradientMagnitude, Laplacian, Gradient, Statistics) their CUDA counterparts";
}

void
CudaImageFilterFactory::RegisterOneFactory()
{
  CudaDetail::RegisterFactoryOnce("CudaImageFilterFactory", []() -> ObjectFactoryBase::Pointer {
    return CudaImageFilterFactory::New().GetPointer();
  });
}
} // namespace itk
