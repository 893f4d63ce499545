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
#ifndef itkCudaSeparableImageFilter_h
#define itkCudaSeparableImageFilter_h

#include "itkCudaImageToImageFilter.h"
#include "itkCudaBoxFilter.hcu"
#include "itkCudaSeparableConvolution.hcu"
#include "itkCudaSlabSplitter.h"
#include "itkImageBoundaryCondition.h"

#include <type_traits>
#include <vector>

namespace itk
{
/** \class CudaSeparableImageFilter
 * \brief The base of CUDA filters that are a sequence of 1-D kernels, one
 * pass per axis: a subclass of the ITK filter it stands for
 * (TParentImageFilter) states its passes in GetPasses(), and this class runs
 * them on the GPU.
 *
 * Each pass is a 1-D kernel over the input's buffered region (which the ITK
 * parent's GenerateInputRequestedRegion() pads by the radius) with
 * shared-memory tiles, sums in double, and a boundary condition at the
 * buffer's edges (CudaBoundary: ITK's ZeroFluxNeumann, Constant and Periodic
 * conditions, or Crop). Intermediate results are of the output's pixel type;
 * the output's region is copied out of the last pass. Everything is queued on
 * the output's stream, scratch buffers are freed in its order, and nothing
 * crosses to the host. Box passes (every weight of a pass one value: the mean
 * filters') over the three axes of a 3-D image, a radius of 1 to 3 along
 * each, run as one kernel instead (CudaBoxFilterAsync: the input read and the
 * output written once, no intermediate volume). Float and double images (input
 * and output of one pixel type) whose passes take at most 255 taps run on the
 * GPU; otherwise,
 * and without a GPU or with GPUEnabled off, the ITK parent's code runs.
 *
 * SetSplitDevices() or SetSplitAcrossAllDevices() shares the work between
 * devices (CudaSlabSplitter): each computes a slab of the output's planes
 * along the last axis from the input's planes of that slab and a halo of the
 * last axis's radius, so results are those of one device; a periodic
 * condition along the last axis keeps the whole image on the input's device.
 * \ingroup CudaCommon
 */
template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
class ITK_TEMPLATE_EXPORT CudaSeparableImageFilter
  : public CudaImageToImageFilter<TInputImage, TOutputImage, TParentImageFilter>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaSeparableImageFilter);

  using Self = CudaSeparableImageFilter;
  using CPUSuperclass = TParentImageFilter;
  using Superclass = CudaImageToImageFilter<TInputImage, TOutputImage, TParentImageFilter>;
  using GPUSuperclass = Superclass;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkCudaTypeMacro(CudaSeparableImageFilter, CudaImageToImageFilter);

  using InputImageType = TInputImage;
  using OutputImageType = TOutputImage;
  using OutputPixelType = typename TOutputImage::PixelType;
  static constexpr unsigned int ImageDimension = TOutputImage::ImageDimension;

  /** Whether this pixel type runs on the GPU (float or double, in and out). */
  static constexpr bool GPUPixelType =
    std::is_same<typename TInputImage::PixelType, OutputPixelType>::value &&
    (std::is_same<OutputPixelType, float>::value || std::is_same<OutputPixelType, double>::value);

  /** One pass: a 1-D kernel of 2 radius + 1 taps along Axis, out[i] = sum
   * over t of Weights[t] * in[i + t - radius] (t ascending, in double), and
   * what it reads past the buffer's edges (Constant for CudaBoundary::Constant). */
  struct Pass
  {
    unsigned int        Axis;
    std::vector<double> Weights;
    CudaBoundary        Boundary = CudaBoundary::ZeroFluxNeumann;
    double              Constant = 0.0;
  };

  /** The passes the filter applies, in order. */
  virtual std::vector<Pass>
  GetPasses() const = 0;

  /** Sharing the work between devices (see the class's doc):
   * SetSplitDevices(), SplitAcrossAllDevicesOn(), GetSlabSplitter(), ... */
  itkCudaSlabSplitSettingsMacro(m_Splitter);

protected:
  CudaSeparableImageFilter() = default;
  ~CudaSeparableImageFilter() override = default;

  /** Whether the GPU path takes this filter's settings beyond its passes
   * (e.g. its boundary conditions); true here. */
  virtual bool
  GPUTakesSettings() const
  {
    return true;
  }

  /** The GPU path where it applies (see the class's doc), else ITK's code. */
  void
  GenerateData() override;

  void
  GPUGenerateData() override;

  /** False: the passes are queued on GetCudaStream(). */
  bool
  GPUGenerateDataUsesLegacyStream() const override
  {
    return false;
  }

  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  using InputRegionType = typename TInputImage::RegionType;
  using OutputRegionType = typename TOutputImage::RegionType;

  /** The passes over `inputRegion` of `in` into `outputRegion` of `out`,
   * memory of `device`, queued on `stream`: one slab's work. */
  void
  GPUGenerateSlab(const void *             in,
                  const InputRegionType &  inputRegion,
                  void *                   out,
                  const OutputRegionType & outputRegion,
                  int                      device,
                  cudaStream_t             stream) const;

  std::vector<Pass> m_Passes; // GenerateData()'s, for GPUGenerateData()
  CudaSlabSplitter  m_Splitter;
};

namespace CudaDetail
{
/** One pass per axis of nonzero radius, the last axis first, each 2 r + 1
 * taps of `weight` (1 / (2 r + 1) when `weight` is 0) and `boundary`. */
template <typename TPass, typename TRadius>
std::vector<TPass>
BoxPasses(const TRadius & radius, double weight, CudaBoundary boundary)
{
  std::vector<TPass> passes;
  for (unsigned int p = 0; p < TRadius::Dimension; ++p)
  {
    const unsigned int axis = TRadius::Dimension - 1 - p;
    if (radius[axis] == 0)
    {
      continue;
    }
    const size_t taps = 2 * static_cast<size_t>(radius[axis]) + 1;
    TPass        pass;
    pass.Axis = axis;
    pass.Weights.assign(taps, weight != 0.0 ? weight : 1.0 / static_cast<double>(taps));
    pass.Boundary = boundary;
    passes.push_back(std::move(pass));
  }
  return passes;
}

/** Whether `passes` are a box over a 3-D image's axes (every weight of a
 * pass one value, each axis at most once, one boundary condition): then
 * `geometry` the box and the regions, `scale` the product of the passes'
 * weights, `boundary` and `constant` the passes' condition. */
template <typename TPass, typename TRegion>
bool
BoxOfPasses(const std::vector<TPass> & passes,
            const TRegion &            inputRegion,
            const TRegion &            outputRegion,
            CudaBoxGeometry &          geometry,
            double &                   scale,
            CudaBoundary &             boundary,
            double &                   constant);

/** Whether the output's region has pixels to compute; \throws
 * itk::ExceptionObject naming `filter` where the input's buffered region
 * lacks part of it. */
template <typename TInputRegion, typename TOutputRegion>
bool
NeighborhoodOutputToCompute(const TInputRegion & inputRegion, const TOutputRegion & outputRegion, const char * filter);

/** `compute(in, inputRegion, out, outputRegion, device, stream)` over the
 * slabs `splitter` cuts `outputRegion` into along the last axis, each with
 * the input's planes `halo` beyond it (a periodic operation, `mayCut` false:
 * one slab). `in` and `out` are the buffers of the regions, on `device`. */
template <typename TInputRegion, typename TOutputRegion, typename TCompute>
void
RunNeighborhoodSlabs(CudaSlabSplitter &    splitter,
                     const void *          in,
                     const TInputRegion &  inputRegion,
                     size_t                inputPixelBytes,
                     void *                out,
                     const TOutputRegion & outputRegion,
                     size_t                outputPixelBytes,
                     size_t                halo,
                     bool                  mayCut,
                     int                   device,
                     cudaStream_t          stream,
                     const TCompute &      compute);

/** An ITK boundary condition as the kernels take it; false for one they lack. */
template <typename TImage>
bool
KernelBoundary(const ImageBoundaryCondition<TImage> * condition, CudaBoundary & boundary, double & constant);
} // namespace CudaDetail
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkCudaSeparableImageFilter.hxx"
#endif

#endif
